package stats

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// module is the stats layer of one process. It embeds prof.Base, which
// passes every call down, and overrides the calls it counts.
type module struct {
	prof.Base
	cfg config

	on    atomic.Bool // Pcontrol 0 clears it, 1 sets it
	fns   [numFns]counter
	sites *sites

	// Filled in when Init returns: this rank's row of the matrices, by
	// world rank, and the translation of other communicators' ranks.
	world   *pmpi.Comm
	wgroup  *pmpi.Group
	rank    int
	p2p     []peer
	coll    []peer
	comms   atomic.Pointer[map[*pmpi.Comm][]int]
	commsMu sync.Mutex

	// The clock: ticks and wall time at Wrap, to convert ticks to
	// seconds at the end with the rate over the whole run.
	tick0 int64
	wall0 time.Time

	mu         sync.Mutex // guards the phases
	phaseStart time.Time
	phases     []phase
}

// phase is what a rank gathered between two flushes, in ticks.
type phase struct {
	endedBy   string // "pcontrol" or "finalize"
	app       time.Duration
	fns       [numFns]tally
	sites     []siteTally
	p2p, coll []peerTally
	mpiTicks  int64
}

type siteTally struct {
	id  siteID
	fun string
	t   tally
}

type peerTally struct{ msgs, bytes int64 }

func newModule(next pmpi.API, cfg config) *module {
	m := &module{Base: prof.Base{Next: next}, cfg: cfg, sites: newSites()}
	for i := range m.fns {
		m.fns[i].start()
	}
	m.comms.Store(&map[*pmpi.Comm][]int{})
	m.tick0, m.wall0 = ticks(), time.Now()
	m.phaseStart = m.wall0
	m.on.Store(true)
	return m
}

// Init passes through, then learns the world and starts the first phase
// at its return, where the application's time starts as in mpiP.
func (m *module) Init() error {
	if err := m.Next.Init(); err != nil {
		return err
	}
	return m.started()
}

// InitThread is Init with a thread level.
func (m *module) InitThread(required pmpi.ThreadLevel) (pmpi.ThreadLevel, error) {
	got, err := m.Next.InitThread(required)
	if err != nil {
		return got, err
	}
	return got, m.started()
}

func (m *module) started() error {
	m.world = pmpi.CommWorld()
	rank, err := pmpi.Real().CommRank(m.world)
	if err != nil {
		return err
	}
	size, err := pmpi.Real().CommSize(m.world)
	if err != nil {
		return err
	}
	if m.wgroup, err = pmpi.Real().CommGroup(m.world); err != nil {
		return err
	}
	m.rank, m.p2p, m.coll = rank, make([]peer, size), make([]peer, size)
	m.mu.Lock()
	m.phaseStart = time.Now()
	m.mu.Unlock()
	return nil
}

// Pcontrol stops (0), resumes (1) or flushes (2) the collection, and
// passes every level down.
func (m *module) Pcontrol(level int) error {
	switch level {
	case 0:
		m.on.Store(false)
	case 1:
		m.on.Store(true)
	case 2:
		m.flush("pcontrol")
	}
	return m.Next.Pcontrol(level)
}

// flush ends the current phase: it takes what the counters hold and
// empties them.
func (m *module) flush(endedBy string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	ph := phase{endedBy: endedBy, app: now.Sub(m.phaseStart)}
	m.phaseStart = now
	for i := range m.fns {
		ph.fns[i] = m.fns[i].take()
		ph.mpiTicks += ph.fns[i].Ticks
	}
	m.sites.each(func(s *site) {
		if t := s.c.take(); t.Calls > 0 {
			ph.sites = append(ph.sites, siteTally{id: s.id, fun: s.fun, t: t})
		}
	})
	ph.p2p, ph.coll = takePeers(m.p2p), takePeers(m.coll)
	m.phases = append(m.phases, ph)
}

func takePeers(row []peer) []peerTally {
	out := make([]peerTally, len(row))
	for i := range row {
		out[i] = peerTally{row[i].msgs.Swap(0), row[i].bytes.Swap(0)}
	}
	return out
}

// begin starts timing a call: its tick, or -1 while collection is off.
func (m *module) begin() int64 {
	if !m.on.Load() {
		return -1
	}
	return ticks()
}

// end counts a call begun at t0 that moved n bytes, for its function
// and its call site.
func (m *module) end(f fn, t0, n int64) {
	d := ticks() - t0
	if d < 0 { // a counter read on another core that runs behind
		d = 0
	}
	var pcs [keyDepth]uintptr
	callers(pcs[:])
	m.fns[f].add(d, n)
	m.sites.lookup(f, &pcs).c.add(d, n)
}

// send counts a message of n bytes to rank dest of comm, by world rank.
func (m *module) send(row []peer, comm *pmpi.Comm, dest int, n int64) {
	if w := m.worldRank(comm, dest); w >= 0 && w < len(row) {
		row[w].add(n)
	}
}

// worldRank translates rank r of c to its world rank; -1 for ProcNull
// and the like. Each communicator's table is built once, with pmpi's
// group calls, and kept until CommFree.
func (m *module) worldRank(c *pmpi.Comm, r int) int {
	if r < 0 || c == nil {
		return -1
	}
	if c == m.world {
		return r
	}
	t, ok := (*m.comms.Load())[c]
	if !ok {
		t = m.translate(c)
	}
	if r >= len(t) {
		return -1
	}
	return t[r]
}

func (m *module) translate(c *pmpi.Comm) []int {
	m.commsMu.Lock()
	defer m.commsMu.Unlock()
	old := *m.comms.Load()
	if t, ok := old[c]; ok {
		return t
	}
	var t []int
	if g, err := pmpi.Real().CommGroup(c); err == nil && m.wgroup != nil {
		if n, err := pmpi.Real().GroupSize(g); err == nil {
			ranks := make([]int, n)
			for i := range ranks {
				ranks[i] = i
			}
			if w, err := pmpi.Real().GroupTranslateRanks(g, ranks, m.wgroup); err == nil {
				t = w
			}
		}
	}
	nw := maps.Clone(old)
	nw[c] = t
	m.comms.Store(&nw)
	return t
}

// CommFree forgets the communicator's translation table.
func (m *module) CommFree(comm *pmpi.Comm) error {
	m.commsMu.Lock()
	if old := *m.comms.Load(); old[comm] != nil {
		nw := maps.Clone(old)
		delete(nw, comm)
		m.comms.Store(&nw)
	}
	m.commsMu.Unlock()
	return m.Next.CommFree(comm)
}
