package btl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/mca"
)

// Routes is the framework's choice, for every peer, of the module that
// carries its traffic: the reachable module with the highest exclusivity,
// equal ones by bandwidth. It is the Go form of Open MPI's BML.
type Routes struct {
	fw      *mca.Framework
	modules []Module
	polled  []Module // the modules Progress polls
	dozer   Dozer    // the only polled module, if it dozes
	byPeer  []Module
	reached map[Module][]Proc // what each module's AddProcs reached, for DelProcs
	// declined says which selected components gave no module, and why.
	declined []string
}

// Open opens and selects the btl components, initialises their modules,
// waits at fence for every rank to publish its addresses, and chooses a
// module per peer. A peer no module reaches is an error naming the
// modules tried.
func Open(ctx context.Context, fw *mca.Framework, env InitEnv, procs []Proc, fence func(context.Context) error) (*Routes, error) {
	if err := fw.Open(ctx); err != nil {
		return nil, err
	}
	rt := &Routes{fw: fw, reached: map[Module][]Proc{}}
	fail := func(err error) (*Routes, error) {
		return nil, errors.Join(err, rt.Finalize())
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
		if len(mods) == 0 {
			why := "it has no module here"
			if d, ok := s.Component.(Decliner); ok {
				why = d.Declined()
			}
			rt.declined = append(rt.declined, s.Name+" declined: "+why)
		}
		rt.modules = append(rt.modules, mods...)
	}
	// Highest exclusivity first, then bandwidth: the first that reaches a peer wins.
	sort.SliceStable(rt.modules, func(i, j int) bool {
		a, b := rt.modules[i], rt.modules[j]
		if a.Exclusivity() != b.Exclusivity() {
			return a.Exclusivity() > b.Exclusivity()
		}
		return a.Bandwidth() > b.Bandwidth()
	})
	if err := fence(ctx); err != nil {
		return fail(fmt.Errorf("btl: fence after publishing addresses: %w", err))
	}
	rt.byPeer = make([]Module, len(procs))
	for _, m := range rt.modules {
		reach, err := m.AddProcs(ctx, procs)
		if err != nil {
			return fail(named(m.Name(), "add procs", err))
		}
		for i, ok := range reach {
			if !ok {
				continue
			}
			rt.reached[m] = append(rt.reached[m], procs[i])
			if rt.byPeer[i] == nil {
				rt.byPeer[i] = m
			}
		}
	}
	for i, m := range rt.byPeer {
		if m == nil {
			return fail(rt.unreachable(env.Rank, procs[i]))
		}
		fw.Logger().Debug("transport chosen", "peer", procs[i].Rank, "btl", m.Name())
	}
	rt.polled = rt.toPoll()
	if len(rt.polled) == 1 {
		rt.dozer, _ = rt.polled[0].(Dozer)
	}
	return rt, nil
}

// toPoll lists the modules worth polling: those that carry traffic to
// some peer, and those that deliver only when polled (a peer that chose
// differently may still write to them). A module that carries nothing
// and delivers on its own, tcp on one node, would only slow every poll,
// as would one that delivers inline.
func (rt *Routes) toPoll() []Module {
	var ms []Module
	for _, m := range rt.modules {
		_, idler := m.(Idler)
		_, inline := m.(Inline)
		if idler || !inline && slices.Contains(rt.byPeer, m) {
			ms = append(ms, m)
		}
	}
	return ms
}

func (rt *Routes) unreachable(me int, p Proc) error {
	var names []string
	for _, m := range rt.modules {
		names = append(names, m.Name())
	}
	tried := strings.Join(orNone(names), ", ")
	for _, d := range rt.declined {
		tried += "; " + d
	}
	hint := ""
	switch {
	case rt.fw != nil && len(rt.fw.Components()) == 0:
		hint = `; no btl component is linked into this program: import _ "github.com/gompi/gompi/components/all"`
	case p.Rank == me:
		hint = "; sending to oneself needs the self component: add self to the btl parameter"
	}
	return fmt.Errorf("%w: no btl module reaches world rank %d on %s (modules tried: %s)%s",
		ErrUnreachable, p.Rank, p.Hostname, tried, hint)
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

// For returns the module that carries traffic to peer.
func (rt *Routes) For(peer int) Module { return rt.byPeer[peer] }

// Modules returns every module, highest exclusivity first.
func (rt *Routes) Modules() []Module { return rt.modules }

// Describe names the transport per peer, for reports such as the
// benchmarks' headers: "0:self 1:tcp 2:tcp".
func (rt *Routes) Describe() string {
	parts := make([]string, len(rt.byPeer))
	for i, m := range rt.byPeer {
		parts[i] = fmt.Sprintf("%d:%s", i, m.Name())
	}
	return strings.Join(parts, " ")
}

// Progress polls once every module that may have something to deliver.
func (rt *Routes) Progress() int {
	n := 0
	for _, m := range rt.polled {
		n += m.Progress()
	}
	return n
}

// Watch reports whether every module Progress polls is a Watcher that
// found nothing to do, adding their words; the modules not polled deliver
// from their own goroutines, or inline.
func (rt *Routes) Watch(add func(w *atomic.Uint64, v uint64) bool) bool {
	for _, m := range rt.polled {
		w, ok := m.(Watcher)
		if !ok || !w.Watch(add) {
			return false
		}
	}
	return true
}

// Idle tells the modules that deliver only when polled that polling
// stops (see Idler); Busy that it resumes.
func (rt *Routes) Idle() {
	for _, m := range rt.modules {
		if i, ok := m.(Idler); ok {
			i.Idle()
		}
	}
}

// Busy undoes one Idle.
func (rt *Routes) Busy() {
	for _, m := range rt.modules {
		if i, ok := m.(Idler); ok {
			i.Busy()
		}
	}
}

// CanDoze reports whether the only polled module is a Dozer. A module
// that delivers from its own goroutines, tcp, needs the processor that a
// doze holds: with it among the polled, or more than one module to sleep
// in, a rank yields instead.
func (rt *Routes) CanDoze() bool { return rt.dozer != nil }

// Doze sleeps in the only polled module (btl.Dozer); without CanDoze it
// returns at once.
func (rt *Routes) Doze(d time.Duration, ready func() bool) {
	if rt.dozer != nil {
		rt.dozer.Doze(d, ready)
	}
}

// Wake ends the Dozes of this rank's threads.
func (rt *Routes) Wake() {
	if rt.dozer != nil {
		rt.dozer.Wake()
	}
}

// Finalize releases every module's peers, finalizes the modules and
// closes the framework.
func (rt *Routes) Finalize() error {
	var errs []error
	for _, m := range rt.modules {
		if err := m.DelProcs(context.Background(), rt.reached[m]); err != nil {
			errs = append(errs, named(m.Name(), "del procs", err))
		}
		if err := m.Finalize(); err != nil {
			errs = append(errs, named(m.Name(), "finalize", err))
		}
	}
	rt.modules = nil
	return errors.Join(append(errs, rt.fw.Close())...)
}

// Routes passes Idle and Busy on to the modules that need them.
var _ Idler = (*Routes)(nil)

// named says which component failed, and in what: components return
// their errors without their own name, so this is the one place that
// adds it, as mca.ComponentError does for the lifecycle steps.
func named(component, what string, err error) error {
	return fmt.Errorf("btl %s: %s: %w", component, what, err)
}
