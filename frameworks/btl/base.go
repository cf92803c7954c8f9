package btl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gompi/gompi/mca"
)

// Transports is the framework's choice, for every peer, of the module that
// carries its traffic: the reachable module with the highest exclusivity,
// equal ones by bandwidth. It is the Go form of Open MPI's BML.
type Transports struct {
	fw      *mca.Framework
	modules []Module
	polled  []Module // the modules Progress polls
	byPeer  []Module
	reached map[Module][]Proc // what each module's AddProcs reached, for DelProcs
}

// Open opens and selects the btl components, initialises their modules,
// waits at fence for every rank to publish its addresses, and chooses a
// module per peer. A peer no module reaches is an error naming the
// modules tried.
func Open(ctx context.Context, fw *mca.Framework, env InitEnv, procs []Proc, fence func(context.Context) error) (*Transports, error) {
	if err := fw.Open(ctx); err != nil {
		return nil, err
	}
	t := &Transports{fw: fw, reached: map[Module][]Proc{}}
	fail := func(err error) (*Transports, error) {
		return nil, errors.Join(err, t.Finalize())
	}
	selected, err := fw.Select(ctx)
	if err != nil {
		return fail(err)
	}
	for _, s := range selected {
		mods, err := s.Component.(Component).Init(ctx, env)
		if err != nil {
			return fail(named(s.Name, "init", err))
		}
		t.modules = append(t.modules, mods...)
	}
	// Highest exclusivity first, then bandwidth: the first that reaches a peer wins.
	sort.SliceStable(t.modules, func(i, j int) bool {
		a, b := t.modules[i], t.modules[j]
		if a.Exclusivity() != b.Exclusivity() {
			return a.Exclusivity() > b.Exclusivity()
		}
		return a.Bandwidth() > b.Bandwidth()
	})
	if err := fence(ctx); err != nil {
		return fail(fmt.Errorf("btl: fence after publishing addresses: %w", err))
	}
	t.byPeer = make([]Module, len(procs))
	for _, m := range t.modules {
		reach, err := m.AddProcs(ctx, procs)
		if err != nil {
			return fail(named(m.Name(), "add procs", err))
		}
		for i, ok := range reach {
			if !ok {
				continue
			}
			t.reached[m] = append(t.reached[m], procs[i])
			if t.byPeer[i] == nil {
				t.byPeer[i] = m
			}
		}
	}
	for i, m := range t.byPeer {
		if m == nil {
			return fail(t.unreachable(env.Rank, procs[i]))
		}
		fw.Logger().Debug("transport chosen", "peer", procs[i].Rank, "btl", m.Name())
	}
	t.polled = t.toPoll()
	return t, nil
}

// toPoll lists the modules worth polling: those that carry traffic to
// some peer, and those that deliver only when polled (a peer that chose
// differently may still write to them). A module that carries nothing
// and delivers on its own, tcp on one node, would only slow every poll.
func (t *Transports) toPoll() []Module {
	var ms []Module
	for _, m := range t.modules {
		_, idler := m.(Idler)
		if idler || slices.Contains(t.byPeer, m) {
			ms = append(ms, m)
		}
	}
	return ms
}

func (t *Transports) unreachable(me int, p Proc) error {
	var tried []string
	for _, m := range t.modules {
		tried = append(tried, m.Name())
	}
	hint := ""
	switch {
	case t.fw != nil && len(t.fw.Components()) == 0:
		hint = `; no btl component is linked into this program: import _ "github.com/gompi/gompi/components/all"`
	case p.Rank == me:
		hint = "; sending to oneself needs the self component: add self to the btl parameter"
	}
	return fmt.Errorf("%w: no btl module reaches rank %d on %s (modules tried: %s)%s",
		ErrUnreachable, p.Rank, p.Hostname, strings.Join(orNone(tried), ", "), hint)
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

// For returns the module that carries traffic to peer.
func (t *Transports) For(peer int) Module { return t.byPeer[peer] }

// Modules returns every module, highest exclusivity first.
func (t *Transports) Modules() []Module { return t.modules }

// Describe names the transport per peer, for reports such as the
// benchmarks' headers: "0:self 1:tcp 2:tcp".
func (t *Transports) Describe() string {
	parts := make([]string, len(t.byPeer))
	for i, m := range t.byPeer {
		parts[i] = fmt.Sprintf("%d:%s", i, m.Name())
	}
	return strings.Join(parts, " ")
}

// Progress polls once every module that may have something to deliver.
func (t *Transports) Progress() int {
	n := 0
	for _, m := range t.polled {
		n += m.Progress()
	}
	return n
}

// Idle tells the modules that deliver only when polled that polling
// stops (see Idler); Busy that it resumes.
func (t *Transports) Idle() {
	for _, m := range t.modules {
		if i, ok := m.(Idler); ok {
			i.Idle()
		}
	}
}

// Busy undoes one Idle.
func (t *Transports) Busy() {
	for _, m := range t.modules {
		if i, ok := m.(Idler); ok {
			i.Busy()
		}
	}
}

// Finalize releases every module's peers, finalizes the modules and
// closes the framework.
func (t *Transports) Finalize() error {
	var errs []error
	for _, m := range t.modules {
		if err := m.DelProcs(context.Background(), t.reached[m]); err != nil {
			errs = append(errs, named(m.Name(), "del procs", err))
		}
		if err := m.Finalize(); err != nil {
			errs = append(errs, named(m.Name(), "finalize", err))
		}
	}
	t.modules = nil
	return errors.Join(append(errs, t.fw.Close())...)
}

// Transports passes Idle and Busy on to the modules that need them.
var _ Idler = (*Transports)(nil)

// named says which component failed, and in what, unless its error says
// so already: gompi's components start theirs with "btl <name>:", and
// wrapping those gave "btl tcp: init: btl tcp: ...".
func named(component, what string, err error) error {
	if strings.HasPrefix(err.Error(), "btl "+component+":") {
		return err
	}
	return fmt.Errorf("btl %s: %s: %w", component, what, err)
}
