package stats

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// module is the stats layer of one process. It embeds prof.Base, which
// passes every call down, and overrides the calls it counts.
type module struct {
	prof.Base
	cfg config

	on     atomic.Bool // Pcontrol 0 clears it, 1 sets it
	shards shards
	sites  *sites

	// Filled in when Init returns (before it, no call is counted): the
	// world and its size, the width of this rank's row of the matrices,
	// and the translation of other communicators' ranks.
	world   *pmpi.Comm
	wgroup  *pmpi.Group
	rank    int
	size    int
	comms   atomic.Pointer[map[*pmpi.Comm]peers]
	commsMu sync.Mutex

	// kv is the keyval of the layer's attribute on each communicator
	// (comms.go); slots holds the communicator counted in each slot, nil
	// for a free one, freeSlots the free ones, and folded the counts of
	// the communicators freed in the phase under way. mu guards them.
	kv        pmpi.Keyval
	slots     []*pmpi.Comm
	freeSlots []int
	folded    []commTally

	// persistent maps a persistent send's request to what each of its
	// Starts moves (a persistentSend), from its Init to its Free.
	persistent sync.Map

	// Zeroed at Wrap: ticks convert to seconds at the end, at the rate
	// over the whole run.
	clock prof.Clock

	mu         sync.Mutex // guards the phases and the slots
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
	comms     []commTally
	mpiTicks  int64
}

type siteTally struct {
	id  siteID
	fun string
	t   tally
}

func newModule(next pmpi.API, cfg config) *module {
	m := &module{Base: prof.Base{Next: next}, cfg: cfg, sites: newSites(), shards: defaultShards(),
		slots: []*pmpi.Comm{worldSlot: nil}}
	m.comms.Store(&map[*pmpi.Comm]peers{})
	m.clock = prof.NewClock()
	m.phaseStart = m.clock.Zero()
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
	m.world = pmpi.Real().CommWorld()
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
	m.setWorld(rank, size)
	if err := m.createKeyval(); err != nil {
		return err
	}
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

// setWorld sizes every shard's row of the matrices.
func (m *module) setWorld(rank, size int) {
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		sh.p2p, sh.coll = make([]peerTally, size), make([]peerTally, size)
		sh.mu.Unlock()
	}
	m.rank, m.size = rank, size
}

// flush ends the current phase: it takes what the shards hold and
// empties them. A call that another goroutine counts meanwhile lands in
// this phase or the next.
func (m *module) flush(endedBy string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	ph := phase{endedBy: endedBy, app: now.Sub(m.phaseStart),
		p2p: make([]peerTally, m.size), coll: make([]peerTally, m.size)}
	m.phaseStart = now
	all := m.sites.all()
	sites := make([]tally, len(all))
	comms := make([]tally, len(m.slots))
	for i := range m.shards {
		m.shards[i].take(&ph.fns, sites, ph.p2p, ph.coll, comms)
	}
	ph.comms = m.phaseComms(comms)
	for _, t := range ph.fns {
		ph.mpiTicks += t.Ticks
	}
	for i, t := range sites {
		if t.Calls > 0 {
			ph.sites = append(ph.sites, siteTally{id: all[i].id, fun: all[i].fun, t: t})
		}
	}
	m.phases = append(m.phases, ph)
}

// begin starts timing a call: its tick, or -1 while collection is off.
func (m *module) begin() int64 {
	if !m.on.Load() {
		return -1
	}
	return prof.Ticks()
}

// count counts a call begun at t0 that moved n bytes, for its function,
// its call site and its communicator's slot (none if negative), and
// returns its shard still locked, for the caller to add the call's peers.
func (m *module) count(f fn, t0, n int64, slot int) *shard {
	d := prof.Ticks() - t0
	if d < 0 { // a counter read on another core that runs behind
		d = 0
	}
	k := siteKey{f: f}
	lowlevel.Callers(k.pcs[:])
	sh := m.shards.pick()
	sh.mu.Lock()
	r := &sh.recent[int(f)%len(sh.recent)]
	st := r.st
	if st == nil || !r.key.same(&k) {
		st = m.sites.lookup(&k)
		r.key, r.st = k, st
	}
	sh.fns[f].add(d, n)
	if st.idx >= len(sh.sites) {
		sh.sites = append(sh.sites, make([]tally, st.idx+1-len(sh.sites))...)
	}
	sh.sites[st.idx].add(d, n)
	if slot >= 0 {
		if slot >= len(sh.comms) {
			sh.comms = append(sh.comms, make([]tally, slot+1-len(sh.comms))...)
		}
		sh.comms[slot].add(d, n)
	}
	return sh
}

// end counts a call begun at t0 on comm (nil for a call on none) that
// moved n bytes; a send also counts in the p2p matrix, as a message to
// rank dest of comm (-1 for a call that sends none).
func (m *module) end(f fn, t0, n int64, comm *pmpi.Comm, dest int) {
	slot, w := m.route(comm, dest)
	sh := m.count(f, t0, n, slot)
	if w >= 0 && w < len(sh.p2p) {
		sh.p2p[w].msgs++
		sh.p2p[w].bytes += n
	}
	sh.mu.Unlock()
}

// route returns c's slot (-1 for a nil c) and the world rank of its
// rank r (-1 for ProcNull and the like). Each communicator's table is
// built once, with pmpi's group calls, and kept until CommFree.
func (m *module) route(c *pmpi.Comm, r int) (slot, world int) {
	switch {
	case c == nil:
		return -1, -1
	case c == m.world:
		return worldSlot, max(r, -1)
	}
	t := m.table(c)
	if r < 0 || r >= len(t.worlds) {
		return t.slot, -1
	}
	return t.slot, t.worlds[r]
}

// peers is what the layer knows of a communicator: the world ranks of
// the ranks a point-to-point call names (an intercommunicator's remote
// group), whether it is an intercommunicator, and its slot (comms.go).
type peers struct {
	worlds []int
	inter  bool
	slot   int
}

// table returns c's peers, translated once.
func (m *module) table(c *pmpi.Comm) peers {
	if t, ok := (*m.comms.Load())[c]; ok {
		return t
	}
	return m.translate(c)
}

func (m *module) translate(c *pmpi.Comm) peers {
	m.commsMu.Lock()
	defer m.commsMu.Unlock()
	old := *m.comms.Load()
	if t, ok := old[c]; ok {
		return t
	}
	t := peers{slot: m.attach(c)}
	api := pmpi.Real()
	g, err := api.CommGroup(c)
	if inter, ierr := api.CommTestInter(c); ierr == nil && inter {
		t.inter = true
		g, err = api.CommRemoteGroup(c)
	}
	if err == nil && m.wgroup != nil {
		if n, err := api.GroupSize(g); err == nil {
			ranks := make([]int, n)
			for i := range ranks {
				ranks[i] = i
			}
			if w, err := api.GroupTranslateRanks(g, ranks, m.wgroup); err == nil {
				t.worlds = w
			}
		}
	}
	nw := maps.Clone(old)
	nw[c] = t
	m.comms.Store(&nw)
	return t
}

// CommFree forgets the communicator's translation table; the delete
// callback of the layer's attribute folds its counts (comms.go).
func (m *module) CommFree(comm *pmpi.Comm) error {
	return m.freeing(fnCommFree, comm, m.Next.CommFree)
}

// CommDisconnect forgets the communicator's translation table, as CommFree.
func (m *module) CommDisconnect(comm *pmpi.Comm) error {
	return m.freeing(fnCommDisconnect, comm, m.Next.CommDisconnect)
}

// freeing counts a call that frees comm, as a call of no communicator:
// the delete callback has folded comm's counts into the report by the
// time it returns.
func (m *module) freeing(f fn, comm *pmpi.Comm, call func(*pmpi.Comm) error) error {
	m.forget(comm)
	t0 := m.begin()
	err := call(comm)
	if t0 >= 0 {
		m.end(f, t0, 0, nil, -1)
	}
	return err
}

func (m *module) forget(comm *pmpi.Comm) {
	m.commsMu.Lock()
	defer m.commsMu.Unlock()
	old := *m.comms.Load()
	if _, ok := old[comm]; ok {
		nw := maps.Clone(old)
		delete(nw, comm)
		m.comms.Store(&nw)
	}
}
