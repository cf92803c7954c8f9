package sm

import (
	"cmp"
	"context"
	"os"
	"strconv"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/lowlevel"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// info is the component's identity: above tuned, below self (which serves
// communicators of one rank, which sm declines).
var info = coll.Info("sm", mca.Version{Major: 1}, 50, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Limits of the parameters.
const (
	defaultMaxBytes = 256 << 10
	maxMaxBytes     = 1 << 20
	defaultMaxRanks = 16
	maxMaxRanks     = 256
	// defaultSegmentAfter is how many collective calls a communicator
	// makes through the next component before sm makes its segment (see
	// lazy.go for why).
	defaultSegmentAfter = 256
	maxSegmentAfter     = 1 << 30
)

// Component is the sm coll component.
type Component struct {
	coll.BaseComponent

	maxBytes params.Param[int64]
	maxRanks params.Param[int]
	dir      params.Param[string]
	path     params.Param[string]
	after    params.Param[int]

	cfg    config
	log    hclog.Logger
	pool   pool   // freed communicators' segments, for reuse
	spares spares // and their modules
	fenced bool   // the process joined the remote fences (module.fenced)
	// fellBack says, once, that the backing directory refused a segment.
	fellBack sync.Once
}

type config struct {
	maxBytes, maxRanks int
	dir                string
	dirSet             bool   // the user chose dir: falling back deserves a warning
	path               string // coll_sm_path
	segmentAfter       int    // coll_sm_segment_after
	// forced: collectives whose tuned algorithm the user forced.
	forced map[string]bool
}

// stepAside clears, for each collective sm provides, its function in a
// module: sm leaves a collective to tuned when the user forced tuned's
// algorithm for it (coll_tuned_<collective>_algorithm, so that setting it
// is enough, whatever the size) or a decider's rules speak of it.
var stepAside = map[string]func(*coll.Module){
	"barrier":   func(m *coll.Module) { m.Barrier = nil },
	"bcast":     func(m *coll.Module) { m.Bcast = nil },
	"reduce":    func(m *coll.Module) { m.Reduce = nil },
	"allreduce": func(m *coll.Module) { m.Allreduce = nil },
	"gather":    func(m *coll.Module) { m.Gather = nil },
	"scatter":   func(m *coll.Module) { m.Scatter = nil },
	"allgather": func(m *coll.Module) { m.Allgather = nil },
	"alltoall":  func(m *coll.Module) { m.Alltoall = nil },

	"allgatherv":           func(m *coll.Module) { m.Allgatherv = nil },
	"reduce_scatter":       func(m *coll.Module) { m.ReduceScatter = nil },
	"reduce_scatter_block": func(m *coll.Module) { m.ReduceScatterBlock = nil },
	"scan":                 func(m *coll.Module) { m.Scan = nil },
	"exscan":               func(m *coll.Module) { m.Exscan = nil },
}

// tunedForced reads tuned's algorithm parameters, where tuned is built in.
func tunedForced(s *params.Snapshot) map[string]bool {
	forced := map[string]bool{}
	for name := range stepAside {
		if v, ok := s.Lookup("coll_tuned_" + name + "_algorithm"); ok {
			if alg, _ := v.Parsed.(string); alg != "" && alg != "auto" {
				forced[name] = true
			}
		}
	}
	return forced
}

// RegisterParams registers the coll_sm_* parameters.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.maxBytes = r.Size(params.Spec{
		Name: "max_bytes", Default: strconv.Itoa(defaultMaxBytes), Level: 5,
		Help: "Size in bytes of a rank's blocks in the shared segment (the segment holds two per rank): the " +
			"largest contribution of one rank (the whole send buffer of alltoall and of scatter's root) that " +
			"one round of a collective carries. Larger calls go in rounds of a block each, or, when a block " +
			"holds less than 64 bytes per rank, to the next component. 0 sends every call to the next component.",
		Range: params.SizeIn(0, maxMaxBytes),
	})
	c.maxRanks = r.Int(params.Spec{
		Name: "max_ranks", Default: strconv.Itoa(defaultMaxRanks), Level: 5,
		Help: "Largest communicator that the component serves: its algorithms are flat (every rank reads " +
			"every block it needs), which stops paying beyond some tens of ranks.",
		Range: params.IntIn(2, maxMaxRanks),
	})
	c.dir = r.String(params.Spec{
		Name: "backing_directory", Default: "/dev/shm", Level: 5,
		Help: "Directory of the shared segments' files (a memory file system). A segment's file is removed as " +
			"soon as every member has mapped it; the launcher removes what a killed job left in /dev/shm. " +
			"Empty, or a directory that refuses the file (missing, not writable, full), means the job's " +
			"session directory.",
		Accepts:  shm.DirAccepts,
		Validate: shm.ValidDir,
	})
	c.path = r.Enum(params.Spec{
		Name: "path", Default: modeTimed, Level: 5,
		Help: "How a bcast, allgather or alltoall of 2 KiB or more on 2 ranks, 16 KiB or more on more, and a " +
			"reduce of 2 KiB or more on 2 ranks (to rank 0, or of a non-commutative operation) go: through the " +
			"shared segment (a copy in and a copy out) or to the next component (tuned's messages, which btl sm " +
			"copies inline or, when large, in one cross-memory copy). Which is faster depends on the machine's state.",
		Values: []params.EnumValue{
			{Name: modeTimed, Help: "a class's first 128 blocking calls take a fixed path (2 ranks: the next component for a bcast from 512 KiB, else the segment; more ranks: the segment), then both are timed (again every 1024 blocking calls) and the faster taken, alike on every rank; non-blocking and persistent calls take the class's current path"},
			{Name: modeSegment, Help: "always through the segment"},
			{Name: modeNext, Help: "always to the next component"},
		},
	})
	c.after = r.Int(params.Spec{
		Name: "segment_after", Default: strconv.Itoa(defaultSegmentAfter), Level: 5,
		Help: "How many collective calls a communicator makes through the next component before sm makes its " +
			"shared segment and serves the calls after them. The set-up takes milliseconds (more with more " +
			"ranks), which a communicator that makes a few dozen calls would not win back. 0 makes the segment " +
			"at the first call. Where no component below provides every collective, the segment is made at the first call; " +
			"on 3 ranks or more, at the first reduction whose result depends on how the operands are grouped (a " +
			"floating-point sum or product, a user's operation), so that its result never changes at the set-up.",
		Range: params.IntIn(0, maxSegmentAfter),
	})
	return nil
}

// Open reads the parameters.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.log = env.Logger
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	c.cfg = config{
		maxBytes:     int(c.maxBytes.Get(env.Params)),
		maxRanks:     c.maxRanks.Get(env.Params),
		dir:          c.dir.Get(env.Params),
		dirSet:       env.Params.IsSet(c.dir.Name()),
		path:         c.path.Get(env.Params),
		segmentAfter: c.after.Get(env.Params),
		forced:       tunedForced(env.Params),
	}
	c.fenced = lowlevel.JoinRemoteFences() == nil
	return nil
}

// CommQuery offers a module for a communicator of 2 to coll_sm_max_ranks
// ranks on one node. The module maps the communicator's segment once the
// communicator has made coll_sm_segment_after collective calls (lazy.go):
// a communicator that makes fewer costs no memory and no set-up.
func (c *Component) CommQuery(comm coll.Comm, q coll.Query) (int, *coll.Module, error) {
	poller, ok := comm.(coll.Poller)
	n := comm.Size()
	if !ok || !q.OneNode || q.ID == "" || n < 2 || n > c.cfg.maxRanks || c.cfg.maxBytes == 0 {
		return 0, nil, nil
	}
	log := c.log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	m := c.spares.take()
	if m == nil {
		m = &module{tables: &tables{}}
		m.tables.all, m.tables.start = m.collectives(), m.starts()
	}
	t, seen := m.tables, m.seen
	if cap(seen) < n {
		seen = make([]uint64, n)
	}
	*m = module{comm: comm, poller: poller, me: comm.Rank(), n: n, yield: q.Oversubscribed, fenced: c.fenced,
		limit: c.cfg.maxBytes, seen: seen[:n], log: log, pathMode: c.cfg.path, lazy: lazyState{early: c.cfg.segmentAfter},
		place: c.placement(q, newLayout(n, c.cfg.maxBytes), log), pool: &c.pool, spares: &c.spares, tables: t}
	clear(m.seen)
	mod := &t.offered
	*mod = t.all
	mod.Start = &t.start
	if len(c.cfg.forced) > 0 || q.Rules.Len() > 0 {
		for name, drop := range stepAside {
			if c.cfg.forced[name] || len(q.Rules.For(name, n)) > 0 {
				drop(mod)
			}
		}
	}
	return q.Priority, mod, nil
}

// tables are a module's tables of closures over it, made with the module
// and kept with it among the spares.
type tables struct {
	all, start coll.Module // as made
	offered    coll.Module // what CommQuery offers: all, less the collectives sm steps aside from
}

// spares are the modules of freed communicators: a program that makes a
// communicator for a few calls and frees it (a library's Dup in each of
// its calls) makes the 30 closures of a module once, not at every Dup.
type spares struct {
	mu   sync.Mutex
	mods []*module
}

// sparesMax bounds the spares: a program that frees many communicators
// at once keeps no more.
const sparesMax = 16

func (s *spares) take() *module {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mods) == 0 {
		return nil
	}
	m := s.mods[len(s.mods)-1]
	s.mods = s.mods[:len(s.mods)-1]
	return m
}

func (s *spares) put(m *module) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mods) < sparesMax {
		s.mods = append(s.mods, m)
	}
}

// placement is where a communicator's segment is made: in the backing
// directory, the session directory where it refuses the file.
func (c *Component) placement(q coll.Query, lay layout, log hclog.Logger) placement {
	dir := cmp.Or(c.cfg.dir, q.SessionDir, os.TempDir())
	return placement{dir: dir, session: q.SessionDir, id: q.ID, lay: lay, comp: c, log: log}
}

// refused says, once a process, that the backing directory refused a
// segment: a warning where the user chose it.
func (p placement) refused(err error) {
	c := p.comp
	c.fellBack.Do(func() {
		say := p.log.Info
		if c.cfg.dirSet {
			say = p.log.Warn
		}
		say("backing directory unusable; using the session directory", "directory", p.dir, "error", err)
	})
}

// Close unmaps the segments kept for reuse.
func (c *Component) Close() error { return c.pool.drain() }

var _ coll.Component = (*Component)(nil)
