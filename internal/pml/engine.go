package pml

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/internal/lowlevel"
)

// Routes gives the module that carries traffic to each peer: the
// engine's view of btl.Routes.
type Routes interface {
	For(peer int) btl.Module
	Progress() int
}

// dozer is what Routes offers a rank whose host's CPUs are outnumbered
// (btl.Routes), if its transports CanDoze.
type dozer interface {
	CanDoze() bool
	Doze(d time.Duration, ready func() bool)
	Wake()
}

// watcher is what Routes offers the C library's gate (Arm): the words a
// peer's next fragment changes, while a poll would find nothing
// (btl.Watcher).
type watcher interface {
	Watch(add func(w *atomic.Uint64, v uint64) bool) bool
}

// Engine matches and moves messages for one process. It implements
// btl.Receiver; its methods are safe for concurrent use.
type Engine struct {
	me    int
	log   hclog.Logger
	cfg   Config
	idles atomic.Uint32 // calls of Idle: every other one yields

	ready   chan struct{} // closed by Start
	started atomic.Bool   // set by Start: the hot paths check it instead of the channel
	routes  Routes

	mu         lowlevel.SpinLock   // its sections are short, and never send or wait
	queues     []*queues           // by context id, for the small ids communicators take
	farQueues  map[uint32]*queues  // the rest: ids a peer made up, say
	sends      map[uint64]*Request // rendezvous sends waiting for their CTS
	recvs      map[uint64]*Request // matched rendezvous receives waiting for data
	dead       map[int]error
	deaths     []int        // the dead peers in the order they failed
	anyDead    atomic.Bool  // some peer is in dead: eager sends skip the lock until then
	stalled    atomic.Int32 // sends in stall: the send paths look there only when set
	waiting    atomic.Int64 // messages in unexpected queues: a probe finds none without the lock
	nextID     uint64
	finalizing bool

	sigMu    sync.Mutex
	sig      chan struct{} // closed and replaced when something completes or arrives, if anyone sleeps on it
	sleepers atomic.Int32
	dozers   atomic.Int32  // waiters in dozer.Doze: notify wakes them
	notes    atomic.Uint32 // notifies seen by dozers
	dozer    dozer         // set by Start if Routes can doze

	reqPool sync.Pool

	pollers   atomic.Int32             // waiters inside progress: they run what deliveries queue
	queued    atomic.Bool              // outbox or deferred may hold something: pollers look under outMu only then
	lone      atomic.Pointer[Deferred] // deferred work held apart from outMu (Defer); pollers look at it with queued
	outMu     sync.Mutex
	outbox    []func() // sends decided while delivering, for the pollers
	spare     []func()
	gets      []get // single-copy reads decided while delivering, for the pollers
	spareGets []get
	ctss      []ctsJob // clear-to-sends decided while delivering, for the pollers
	spareCTSs []ctsJob
	deferred  []Deferred // work for the next poll, whoever polls (Defer)
	spareDefs []Deferred

	waits waits // blocking calls that have waited a while, for State

	transfers  sync.WaitGroup // background sends of CTS and rendezvous data
	inFlight   atomic.Int32   // how many of them and of the goroutines above run (AsideStarted): waiters yield to them
	hdrPool    sync.Pool
	unexPool   sync.Pool               // *unexpected, with the payload buffer it last held
	chunks     [chunkClasses]sync.Pool // *[]byte by size class: fragments of layouts (getChunk)
	blockLists sync.Pool               // *[][]byte: a layout's blocks for a vectored call (blocksOf)

	// Under mu: messages a matched probe took that no receive has taken
	// yet, each at its Matched's at. Last, so that the hot fields keep
	// their places.
	probed []*Matched
	// held counts the messages that went to an unexpected queue and the
	// peers that failed, which is when a probe may newly succeed: a
	// probe's waiter looks at the queues again only when it moved.
	// Written under mu.
	held atomic.Uint64
	// stall holds the sends that found their peer's transport full.
	stall stalls
	// gate, set by SetGate, is a word outside Go that the library above
	// sets while it trusts that nothing changes (Arm); every change
	// clears it.
	gate atomic.Pointer[atomic.Uint32]
}

// New returns an engine for world rank me. Messages may arrive before Start;
// nothing is sent until Start gives the transports.
func New(me int, log hclog.Logger, cfg Config) *Engine {
	return &Engine{
		me:        me,
		log:       log,
		cfg:       cfg,
		ready:     make(chan struct{}),
		farQueues: map[uint32]*queues{},
		sends:     map[uint64]*Request{},
		recvs:     map[uint64]*Request{},
		dead:      map[int]error{},
		sig:       make(chan struct{}),
		hdrPool:   sync.Pool{New: func() any { return new([HeaderSize]byte) }},
		reqPool:   sync.Pool{New: func() any { return new(Request) }},
	}
}

// request fills in r, or a fresh request when r is nil. Internal ones
// come from a pool and go back with Release; a request handed to the user
// is never recycled, since the user may wait on it again.
func (e *Engine) request(r *Request, k kind, cid uint32, peer, tag int, buf []byte, lay Layout, pooled bool) *Request {
	switch {
	case pooled:
		r = e.reqPool.Get().(*Request)
		*r = Request{} // here, not in Release: a blocking Recv's caller waits for Release, not for this
	case r == nil:
		r = new(Request)
	}
	r.kind, r.context, r.peer, r.tag, r.buf, r.lay, r.pooled = k, cid, peer, tag, buf, lay, pooled
	return r
}

// Release recycles an internal request once its caller has its status.
func (e *Engine) Release(r *Request) {
	if !r.pooled || !r.Done() {
		return
	}
	r.settledRef()                                          // whoever completed r is done with it
	r.buf, r.lay, r.done, r.status.Err = nil, nil, nil, nil // nothing stays reachable from the pool
	e.reqPool.Put(r)
}

// Start gives the engine its transports.
func (e *Engine) Start(routes Routes) {
	e.routes = routes
	if d, ok := routes.(dozer); ok && d.CanDoze() {
		e.dozer = d
	}
	e.started.Store(true)
	close(e.ready)
}

// Finalizing tells the engine that peers will now disconnect: their
// transports closing is no longer a failure.
func (e *Engine) Finalizing() {
	e.mu.Lock()
	e.finalizing = true
	e.mu.Unlock()
}

// Drain waits for background transfers to end.
func (e *Engine) Drain() { e.transfers.Wait() }

func (e *Engine) module(peer int) btl.Module {
	if !e.started.Load() {
		<-e.ready
	}
	return e.routes.For(peer)
}

// FailedPeers lists the world ranks this engine saw fail, in rank order.
func (e *Engine) FailedPeers() []int {
	if !e.anyDead.Load() {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	peers := make([]int, 0, len(e.dead))
	for p := range e.dead {
		peers = append(peers, p)
	}
	slices.Sort(peers)
	return peers
}

// PeerErr is why world rank peer failed, or nil.
func (e *Engine) PeerErr(peer int) error { return e.deadErr(peer) }

// deadErr is why peer failed, or nil.
func (e *Engine) deadErr(peer int) error {
	if !e.anyDead.Load() {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dead[peer]
}
