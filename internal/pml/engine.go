package pml

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
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

// Engine matches and moves messages for one process. It implements
// btl.Receiver; its methods are safe for concurrent use.
type Engine struct {
	me  int
	log hclog.Logger
	cfg Config

	ready   chan struct{} // closed by Start
	started atomic.Bool   // set by Start: the hot paths check it instead of the channel
	routes  Routes

	mu         sync.Mutex
	queues     []*queues           // by context id, for the small ids communicators take
	farQueues  map[uint32]*queues  // the rest: ids a peer made up, say
	sends      map[uint64]*Request // rendezvous sends waiting for their CTS
	recvs      map[uint64]*Request // matched rendezvous receives waiting for data
	dead       map[int]error
	anyDead    atomic.Bool // some peer is in dead: eager sends skip the lock until then
	nextID     uint64
	finalizing bool

	sigMu    sync.Mutex
	sig      chan struct{} // closed and replaced when something completes or arrives, if anyone sleeps on it
	sleepers atomic.Int32
	dozers   atomic.Int32  // waiters in dozer.Doze: notify wakes them
	notes    atomic.Uint32 // notifies seen by dozers
	dozer    dozer         // set by Start if Routes can doze

	reqPool sync.Pool

	pollers   atomic.Int32 // waiters inside progress: they run what deliveries queue
	queued    atomic.Bool  // outbox may hold something: pollers look under outMu only then
	outMu     sync.Mutex
	outbox    []func() // sends decided while delivering, for the pollers
	spare     []func()
	gets      []get // single-copy reads decided while delivering, for the pollers
	spareGets []get

	waits waits // blocking calls that have waited a while, for State

	transfers sync.WaitGroup // background sends of CTS and rendezvous data
	inFlight  atomic.Int32   // how many of them run: waiters yield to them
	hdrPool   sync.Pool
	unexPool  sync.Pool // *unexpected, with the payload buffer it last held
}

// queues are one communicator context's posted receives and unexpected
// messages, each in arrival order: matching the first fit in order is what
// keeps MPI's non-overtaking rule.
type queues struct {
	posted     fifo[*Request]
	unexpected fifo[*unexpected]
}

// unexpected is a message that arrived before a receive matched it: an
// eager one with a copy of its payload, or a rendezvous request to send,
// whose payload stays with the sender until a receive is posted.
type unexpected struct {
	h    header
	from int
	data []byte
}

// maxKeptUnexpected bounds the payload buffer a pooled unexpected message
// keeps: a rare large first fragment is not held for good.
const maxKeptUnexpected = 64 << 10

// newUnexpected records a message that no receive matched, with a copy of
// payload (the transport's buffer). Entries and their buffers come from a
// pool: when ranks run ahead of each other, as in a collective on more ranks
// than CPUs, most messages arrive before their receive, and a fresh buffer
// for each made the garbage collector run every few milliseconds.
func (e *Engine) newUnexpected(from int, h header, payload []byte) *unexpected {
	u, _ := e.unexPool.Get().(*unexpected)
	if u == nil {
		u = new(unexpected)
	}
	u.h, u.from = h, from
	u.data = append(u.data[:0], payload...)
	return u
}

// freeUnexpected returns u to the pool once nothing reads its payload.
func (e *Engine) freeUnexpected(u *unexpected) {
	if cap(u.data) > maxKeptUnexpected {
		u.data = nil
	}
	u.h = header{}
	e.unexPool.Put(u)
}

func (u *unexpected) size() int {
	if u.h.typ == typeMatch {
		return len(u.data)
	}
	return int(u.h.size)
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
func (e *Engine) request(r *Request, k kind, cid uint32, peer, tag int, buf []byte, pooled bool) *Request {
	switch {
	case pooled:
		r = e.reqPool.Get().(*Request)
		*r = Request{} // here, not in Release: a blocking Recv's caller waits for Release, not for this
	case r == nil:
		r = new(Request)
	}
	r.kind, r.context, r.peer, r.tag, r.buf, r.pooled = k, cid, peer, tag, buf, pooled
	return r
}

// Release recycles an internal request once its caller has its status.
func (e *Engine) Release(r *Request) {
	if !r.pooled || !r.Done() {
		return
	}
	r.settledRef()                              // whoever completed r is done with it
	r.buf, r.done, r.status.Err = nil, nil, nil // nothing stays reachable from the pool
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

// nearContexts bounds the context ids whose queues sit in a slice,
// indexed without hashing; pmpi hands out the lowest free ids.
const nearContexts = 1024

func (e *Engine) queue(cid uint32) *queues {
	if cid < nearContexts {
		if int(cid) >= len(e.queues) {
			e.queues = append(e.queues, make([]*queues, int(cid)+1-len(e.queues))...)
		}
		if e.queues[cid] == nil {
			e.queues[cid] = &queues{}
		}
		return e.queues[cid]
	}
	q := e.farQueues[cid]
	if q == nil {
		q = &queues{}
		e.farQueues[cid] = q
	}
	return q
}

// eachQueue calls f for every context's queues.
func (e *Engine) eachQueue(f func(*queues)) {
	for _, q := range e.queues {
		if q != nil {
			f(q)
		}
	}
	for _, q := range e.farQueues {
		f(q)
	}
}

// send transmits one fragment with a pooled header buffer.
func (e *Engine) send(m btl.Module, peer int, h header, payload []byte) error {
	return e.transmit(m, peer, h, payload, false)
}

// post transmits the fragment of a send nobody waits on yet: a module that
// can hold it back and write it with the next ones may.
func (e *Engine) post(m btl.Module, peer int, h header, payload []byte) error {
	return e.transmit(m, peer, h, payload, true)
}

func (e *Engine) transmit(m btl.Module, peer int, h header, payload []byte, hold bool) error {
	hb := e.hdrPool.Get().(*[HeaderSize]byte)
	err := transmitIn(m, peer, h.encode(hb[:]), payload, hold)
	e.hdrPool.Put(hb)
	return err
}

// transmitIn sends one fragment with its encoded header hb, which the
// module is done with when it returns; with hold, a module that can
// (btl.Poster) may hold the fragment back to write it with the next ones.
func transmitIn(m btl.Module, peer int, hb []byte, payload []byte, hold bool) error {
	send := m.Send
	if hold {
		if p, ok := m.(btl.Poster); ok {
			send = p.Post
		}
	}
	return send(context.Background(), peer, hb, payload) // its error names the peer (btl.Module)
}

// Isend starts a send of buf to world rank dest, on the communicator
// whose context id is cid (the id that keeps communicators' and the
// library's own traffic apart). Messages up to the transport's eager
// limit go at once; larger ones and synchronous sends announce
// themselves and move their payload once the receiver matched.
func (e *Engine) Isend(cid uint32, dest, tag int, buf []byte, sync bool) *Request {
	return e.isend(nil, cid, dest, tag, buf, sync, false, false)
}

// StartSend is Isend into r, a zero Request that the caller allocated,
// perhaps inside its own request: one allocation per call instead of two.
// Its eager fragment is written at once, never held back for the next
// ones (btl.Poster): the collectives that use it wait on their few sends
// at once, and a held fragment would cost them its publication later.
func (e *Engine) StartSend(r *Request, cid uint32, dest, tag int, buf []byte, sync bool) *Request {
	return e.isend(r, cid, dest, tag, buf, sync, false, true)
}

// PostSend is StartSend for a caller that may start more sends before it
// waits: the module may hold the eager fragment back to write it with the
// next ones (btl.Poster). MPI's Isend.
func (e *Engine) PostSend(r *Request, cid uint32, dest, tag int, buf []byte, sync bool) *Request {
	return e.isend(r, cid, dest, tag, buf, sync, false, false)
}

// PostEager sends buf to world rank dest at once, as an eager message
// with no request, when it is one and the module that reaches dest takes
// a short header by value for Post (btl.SmallPoster); the module may hold
// it back to go with the next ones until Flush. It reports whether it
// sent, with the module's error: when it did not, the caller starts a
// request. Open MPI's ob1 does the same for a send its transport takes
// whole at once.
func (e *Engine) PostEager(cid uint32, dest, tag int, buf []byte) (bool, error) {
	m := e.module(dest)
	sp, ok := m.(btl.SmallPoster)
	if !ok || len(buf) > m.EagerLimit() || e.anyDead.Load() {
		return false, nil
	}
	return true, sp.PostSmall(dest, matchHeader(cid, int32(e.me), int32(tag)), buf)
}

// Flush writes what the module that reaches world rank peer holds back
// for it (btl.Poster).
func (e *Engine) Flush(peer int) {
	if p, ok := e.module(peer).(btl.Poster); ok {
		p.Flush(peer)
	}
}

// Send is a blocking send. An eager one needs no request at all: it is
// complete once the transport has the bytes, as Open MPI's sendi path
// does it. Others use a pooled request. It returns the send's error: a
// Status would only carry it, and returning one cost a copy of narrow
// stores the processor cannot forward.
func (e *Engine) Send(cid uint32, dest, tag int, buf []byte, sync bool) error {
	if !sync {
		m := e.module(dest)
		if len(buf) <= m.EagerLimit() && !e.anyDead.Load() {
			if ss, ok := m.(btl.SmallSender); ok {
				return ss.SendSmall(dest, matchHeader(cid, int32(e.me), int32(tag)), buf) // in registers: no pool
			}
			h := header{typ: typeMatch, context: cid, source: int32(e.me), tag: int32(tag)}
			return e.send(m, dest, h, buf)
		}
	}
	r := e.isend(nil, cid, dest, tag, buf, sync, true, true)
	err := e.WaitRef(r).Err
	e.Release(r)
	return err
}

// isend starts a send; now says the caller waits for it at once (a
// blocking Send, a collective), so an eager fragment is written now instead
// of being held back to go with the next ones.
func (e *Engine) isend(r *Request, cid uint32, dest, tag int, buf []byte, sync, pooled, now bool) *Request {
	r = e.request(r, kindSend, cid, dest, tag, buf, pooled)
	r.sync = sync
	m := e.module(dest)
	if err := e.deadErr(dest); err != nil {
		e.complete(r, Status{Err: err})
		return r
	}
	if len(buf) <= m.EagerLimit() && !sync {
		// The header goes in r's own buffer: the header pool's pinning cost
		// more than a request's 16 bytes.
		err := transmitIn(m, dest, encodeMatch(r.hdr[:], cid, int32(e.me), int32(tag)), buf, !now)
		r.finishNew(Status{Err: err}, !now && err == nil) // nobody waits on r before we return it
		return r
	}
	e.mu.Lock()
	if err := e.dead[dest]; err != nil { // it may have died since deadErr
		e.mu.Unlock()
		e.complete(r, Status{Err: err})
		return r
	}
	e.nextID++
	r.id = e.nextID
	e.sends[r.id] = r // before the RTS: the CTS may come back at once
	e.mu.Unlock()
	h := header{typ: typeRTS, context: cid, source: int32(e.me), tag: int32(tag), size: uint64(len(buf)), sreq: r.id}
	if sync {
		h.flags |= flagSync
	}
	if sc, ok := m.(btl.SingleCopier); ok {
		if least := sc.SingleCopyMin(dest); least > 0 && len(buf) >= least {
			// The receiver reads buf itself; r keeps it reachable until the FIN.
			h.flags |= flagGet
			h.token = sc.Expose(dest, buf)
		}
	}
	var first []byte
	if h.flags&flagGet == 0 {
		// The first fragment goes with the RTS, as Open MPI's ob1 does: it
		// moves while the CTS comes back. The CTS then asks for the rest.
		first = buf[:min(len(buf), m.EagerLimit(), m.MaxSendSize())]
		r.first = len(first)
	}
	if err := e.send(m, dest, h, first); err != nil {
		e.mu.Lock()
		_, pending := e.sends[r.id]
		delete(e.sends, r.id)
		e.mu.Unlock()
		if pending {
			e.complete(r, Status{Err: err})
		}
	}
	return r
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

// Irecv posts a receive into buf from world rank src (or AnySource) with
// tag (or AnyTag) on context id cid. A message already waiting in the
// unexpected queue matches at once.
func (e *Engine) Irecv(cid uint32, src, tag int, buf []byte) *Request {
	return e.irecv(nil, cid, src, tag, buf, false)
}

// StartRecv is Irecv into r, a zero Request that the caller allocated.
func (e *Engine) StartRecv(r *Request, cid uint32, src, tag int, buf []byte) *Request {
	return e.irecv(r, cid, src, tag, buf, false)
}

// Recv is a blocking receive with a pooled request; it writes the
// receive's status into st, where the caller reads it (a Status returned
// was copied twice more on its way).
func (e *Engine) Recv(cid uint32, src, tag int, buf []byte, st *Status) {
	r := e.irecv(nil, cid, src, tag, buf, true)
	*st = *e.WaitRef(r)
	e.Release(r)
}

func (e *Engine) irecv(r *Request, cid uint32, src, tag int, buf []byte, pooled bool) *Request {
	r = e.request(r, kindRecv, cid, src, tag, buf, pooled)
	e.mu.Lock()
	q := e.queue(cid)
	for i, u := range q.unexpected.all() {
		if !r.matches(u.from, int(u.h.tag)) {
			continue
		}
		q.unexpected.remove(i)
		if u.h.typ == typeMatch {
			e.mu.Unlock()
			n := copy(buf, u.data)
			st := Status{Source: u.from, Tag: int(u.h.tag), Bytes: n, Total: len(u.data)}
			e.freeUnexpected(u)
			r.finishNew(st, false) // r is in no queue: nobody else can see it yet
			return r
		}
		e.matchRTS(r, u.from, u.h, u.data, true) // unlocks; done with u.data on return
		e.freeUnexpected(u)
		return r
	}
	if src != AnySource {
		if err := e.dead[src]; err != nil {
			e.mu.Unlock()
			e.complete(r, Status{Source: src, Err: err})
			return r
		}
	}
	q.posted.push(r)
	e.mu.Unlock()
	return r
}

// matchRTS binds a receive to an announced rendezvous message, takes the
// first fragment that came with the RTS, and sends the CTS for as many
// bytes as the buffer holds: at once when the caller may block (a posting
// receive), else from a poller or a goroutine. Called with e.mu held; it
// unlocks.
func (e *Engine) matchRTS(r *Request, from int, h header, first []byte, inline bool) {
	r.from, r.total = from, int(h.size)
	r.accepted = min(r.total, len(r.buf))
	if h.flags&flagGet != 0 {
		e.mu.Unlock()
		if inline {
			e.getData(r, from, h)
		} else {
			e.laterGet(get{r, from, h})
		}
		return
	}
	got := copy(r.buf[:r.accepted], first)
	if got < r.accepted {
		r.received.Store(int64(got))
		e.nextID++
		r.id = e.nextID
		e.recvs[r.id] = r
	}
	e.mu.Unlock()
	cts := header{typ: typeCTS, context: h.context, source: int32(e.me), tag: h.tag,
		accepted: uint64(r.accepted), sreq: h.sreq, rreq: r.id}
	id := r.id             // r may be recycled once complete: the send below must not touch it
	if got == r.accepted { // the first fragment held all it takes; the CTS still completes the send
		e.complete(r, Status{Source: from, Tag: int(h.tag), Bytes: got, Total: r.total})
	}
	if inline {
		e.sendCTS(from, cts, id) // no closure: a posting receive allocates nothing here
	} else {
		e.later(func() { e.sendCTS(from, cts, id) })
	}
}

// sendCTS sends a receive's clear-to-send; a failure fails the receive
// with id, if it still waits for data.
func (e *Engine) sendCTS(from int, cts header, id uint64) {
	if err := e.send(e.module(from), from, cts, nil); err != nil {
		e.failRecv(id, from, err)
	}
}

// getData reads a matched message straight from the sender's memory into
// the receive buffer, then tells the sender that its buffer is free (FIN).
// If the transport cannot read it, the sender is asked to send it (CTS).
func (e *Engine) getData(r *Request, from int, h header) {
	m := e.module(from)
	var err error
	if r.accepted > 0 {
		if sc, ok := m.(btl.SingleCopier); ok {
			err = sc.Read(from, h.token, 0, r.buf[:r.accepted])
		} else {
			err = fmt.Errorf("btl %s cannot read another rank's memory", m.Name())
		}
	}
	if err != nil {
		e.log.Debug("single copy failed; the sender will send the message", "from", from, "error", err)
		h.flags &^= flagGet
		e.mu.Lock()
		e.matchRTS(r, from, h, nil, true) // unlocks; we are off the delivery path already
		return
	}
	e.gotData(m, r, from, h, false)
}

// gotData ends a single-copy receive whose payload is in place: a FIN
// tells the sender its buffer is free. hold lets the module keep the FIN
// back to go with the next ones (btl.Poster).
func (e *Engine) gotData(m btl.Module, r *Request, from int, h header, hold bool) {
	fin := header{typ: typeFin, context: h.context, source: int32(e.me), tag: h.tag, accepted: uint64(r.accepted), sreq: h.sreq}
	st := Status{Source: from, Tag: int(h.tag), Bytes: r.accepted, Total: r.total}
	send := e.send
	if hold {
		send = e.post
	}
	if err := send(m, from, fin, nil); err != nil {
		st.Err = err
	}
	e.complete(r, st)
}

// maxGetBatch bounds the bytes that one vectored read gathers: here a
// cross-memory attach of 128-256 KiB in all, in pieces of 16-128 KiB, runs
// at 17-24 GB/s, one 32 KiB read at 9, and two of 256 KiB at once are
// slower than one at a time (the copy leaves the cache).
const maxGetBatch = 256 << 10

// getAll makes the single-copy reads that one poll matched. Consecutive
// reads from one peer go in one call of its module's ReadAll
// (btl.VectorReader), and their FINs leave together.
func (e *Engine) getAll(gets []get) {
	for len(gets) > 0 {
		g := gets[0]
		vr, ok := e.module(g.from).(btl.VectorReader)
		n, size := 1, g.r.accepted
		for ok && n < len(gets) && n < stackReads && gets[n].from == g.from && size+gets[n].r.accepted <= maxGetBatch {
			size += gets[n].r.accepted
			n++
		}
		if n == 1 {
			e.getData(g.r, g.from, g.h)
		} else {
			e.getBatch(vr, gets[:n])
		}
		gets = gets[n:]
	}
}

// stackReads is the most reads one batch gathers.
const stackReads = 32

func (e *Engine) getBatch(vr btl.VectorReader, gets []get) {
	var tokens [stackReads]uint64
	var dsts [stackReads][]byte
	for i, g := range gets {
		tokens[i], dsts[i] = g.h.token, g.r.buf[:g.r.accepted]
	}
	from := gets[0].from
	if err := vr.ReadAll(from, tokens[:len(gets)], dsts[:len(gets)]); err != nil {
		e.log.Debug("vectored single copy failed; reading one by one", "from", from, "error", err)
		for _, g := range gets {
			e.getData(g.r, g.from, g.h)
		}
		return
	}
	m := e.module(from)
	for i, g := range gets {
		e.gotData(m, g.r, from, g.h, i < len(gets)-1)
	}
}

// later runs a send that a delivery decided on. A transport may deliver
// from its reader goroutine, which must never block on a write, or from a
// waiter's poll: then the waiter runs it right after the poll, sparing a
// goroutine that, with one P, would run only when the waiter yields.
//
// A poller leaves progress without a lock: it counts itself out, then
// looks at queued. Here queued is set before pollers is read. Whichever
// order the two pairs run in, either this call sees no poller and takes f
// back, or the leaving poller sees queued and runs f.
func (e *Engine) later(f func()) {
	if !forPollers(e, &e.outbox, f) {
		e.background(f)
	}
}

// forPollers appends x to q, one of the pollers' queues (later); false
// means that no poller will run it and x was taken back.
func forPollers[T any](e *Engine, q *[]T, x T) bool {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	e.queued.Store(true)
	*q = append(*q, x)
	if e.pollers.Load() > 0 {
		return true
	}
	*q = (*q)[:len(*q)-1]
	return false
}

// get is a single-copy read that a delivery matched to a receive.
type get struct {
	r    *Request
	from int
	h    header
}

// laterGet is later for a single-copy read: the poller that runs it reads
// it with the others of its peer that the same poll matched (getAll).
func (e *Engine) laterGet(g get) {
	if !forPollers(e, &e.gets, g) {
		e.background(func() { e.getData(g.r, g.from, g.h) })
	}
}

// background runs a transfer off the caller's goroutine: a transport's
// reader delivering to us must never block on a write.
func (e *Engine) background(f func()) {
	e.transfers.Add(1)
	e.inFlight.Add(1)
	if e.dozers.Load() != 0 {
		e.dozer.Wake() // the transfer needs a processor that a doze may hold
	}
	go func() {
		defer e.transfers.Done()
		defer e.inFlight.Add(-1)
		f()
	}()
}

func (e *Engine) failRecv(id uint64, from int, err error) {
	e.mu.Lock()
	r := e.recvs[id]
	delete(e.recvs, id)
	e.mu.Unlock()
	if r != nil {
		e.complete(r, Status{Source: from, Err: err})
	}
}

// Iprobe looks for a waiting message that a receive with these arguments
// would match, without receiving it.
func (e *Engine) Iprobe(cid uint32, src, tag int) (Status, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	probe := Request{peer: src, tag: tag}
	for _, u := range e.queue(cid).unexpected.all() {
		if probe.matches(u.from, int(u.h.tag)) {
			return Status{Source: u.from, Tag: int(u.h.tag), Bytes: u.size(), Total: u.size()}, true, nil
		}
	}
	if src != AnySource {
		if err := e.dead[src]; err != nil {
			return Status{Source: src}, false, err
		}
	}
	return Status{}, false, nil
}

// Probe waits for a message that a receive with these arguments would match.
func (e *Engine) Probe(cid uint32, src, tag int) (Status, error) {
	w := waiter{e: e, probe: &PendingOp{Kind: OpProbe, Context: cid, Peer: src, Tag: tag}}
	for {
		st, ok, err := e.Iprobe(cid, src, tag)
		if ok || err != nil {
			w.end()
			return st, err
		}
		if w.sleepy() {
			e.sleep(w.ready)
			w.reset()
			continue
		}
		w.step()
	}
}

// sleep sleeps until something completes or arrives, unless ready.
func (e *Engine) sleep(ready func() bool) {
	e.sleepers.Add(1)
	defer e.sleepers.Add(-1)
	sig := e.signal()
	if !ready() { // re-checked after registering: a notify since then closes sig
		e.idle()
		<-sig
		e.busy()
	}
}

// doze sleeps w's thread in the transports until a peer writes to this
// rank, something completes or arrives (notify), or dozeLimit passes.
// After announcing itself, w looks at what it waits on once more: a
// notify before the announcement did not wake it.
func (e *Engine) doze(w *waiter) {
	e.dozers.Add(1)
	seen := e.notes.Load()
	if !w.ready() {
		e.dozer.Doze(dozeLimit, func() bool { return e.notes.Load() != seen })
	}
	e.dozers.Add(-1)
}

// idle tells the transports that this waiter stops polling, so that
// modules that deliver only when polled wake on their own (btl.Idler, which
// btl.Routes passes on); busy that it polls again.
func (e *Engine) idle() {
	if i, ok := e.routes.(btl.Idler); ok {
		i.Idle()
	}
}

func (e *Engine) busy() {
	if i, ok := e.routes.(btl.Idler); ok {
		i.Busy()
	}
}

// Cancel cancels a posted receive that has not matched yet. It returns
// false when the receive already matched: it then completes normally.
//
// For a send it returns false at once and asks the receiver to drop the
// message: a rendezvous send that no receive has matched then completes
// with Cancelled set; one that was matched, or an eager send (it has left
// already), completes normally. Wait tells which.
func (e *Engine) Cancel(r *Request) (bool, error) {
	if r.kind == kindSend {
		return false, e.cancelSend(r)
	}
	e.mu.Lock()
	q := e.queue(r.context)
	i := slices.Index(q.posted.all(), r)
	if i < 0 {
		e.mu.Unlock()
		return false, nil
	}
	q.posted.remove(i)
	e.mu.Unlock()
	e.complete(r, Status{Source: r.peer, Tag: r.tag, Cancelled: true})
	return true, nil
}

func (e *Engine) cancelSend(r *Request) error {
	e.mu.Lock()
	if r.Done() || r.id == 0 || e.sends[r.id] != r || r.cancelling {
		e.mu.Unlock()
		return nil
	}
	r.cancelling = true
	e.mu.Unlock()
	h := header{typ: typeCancel, context: r.context, source: int32(e.me), tag: int32(r.tag), sreq: r.id}
	if err := e.send(e.module(r.peer), r.peer, h, nil); err != nil {
		return fmt.Errorf("cancel of a send: %w", err)
	}
	return nil
}

func (e *Engine) complete(r *Request, st Status) {
	r.finish(st)
	e.notify()
}

// notify wakes the waiters of WaitAny, WaitSome and Probe that sleep, and
// every waiter that dozes.
func (e *Engine) notify() {
	if e.dozers.Load() != 0 {
		e.notes.Add(1)
		e.dozer.Wake()
	}
	if e.sleepers.Load() == 0 {
		return
	}
	e.sigMu.Lock()
	close(e.sig)
	e.sig = make(chan struct{})
	e.sigMu.Unlock()
}

func (e *Engine) signal() chan struct{} {
	e.sigMu.Lock()
	defer e.sigMu.Unlock()
	return e.sig
}

// Wait blocks until r completes and returns its status, driving the
// transports' progress meanwhile.
func (e *Engine) Wait(r *Request) Status { return *e.WaitRef(r) }

// WaitRef is Wait returning r's status where it lies, valid until r is
// released or started again: a caller that translates the status copies
// it once instead of at every return (WaitAll over hundreds of requests).
func (e *Engine) WaitRef(r *Request) *Status {
	if r.takeHeld() {
		e.Flush(r.peer) // waiting on a send means wanting it gone
	}
	if r.Done() {
		return r.settledRef() // WaitAll's requests mostly are: no waiter to set up
	}
	w := waiter{e: e, one: r}
	for !r.Done() {
		if w.sleepy() {
			if c := r.wakeChan(); !r.Done() {
				e.idle()
				<-c
				e.busy()
			}
			w.reset()
			continue
		}
		w.step()
	}
	w.end()
	return r.settledRef()
}

// Progress polls the transports once; Test-style calls use it so that a
// rank testing in a loop makes progress.
func (e *Engine) Progress() int { return e.progress() }

func (e *Engine) progress() int {
	if !e.started.Load() {
		return 0
	}
	e.pollers.Add(1)
	n := e.routes.Progress()
	e.pollers.Add(-1)
	if !e.queued.Load() {
		return n
	}
	e.outMu.Lock()
	todo, gets := e.outbox, e.gets
	e.outbox, e.spare = e.spare[:0], nil
	e.gets, e.spareGets = e.spareGets[:0], nil
	e.queued.Store(false)
	e.outMu.Unlock()
	e.getAll(gets)
	for i, f := range todo {
		f()
		todo[i] = nil
	}
	clear(gets)
	if len(todo)+len(gets) > 0 {
		e.outMu.Lock()
		e.spare, e.spareGets = todo[:0], gets[:0] // reused: no allocation per poll
		e.outMu.Unlock()
	}
	return n + len(todo) + len(gets)
}

// WaitAny blocks until one of reqs (nil entries are skipped) completes and
// returns its index, or -1 if every entry is nil.
func (e *Engine) WaitAny(reqs []*Request) int {
	w := waiter{e: e, reqs: reqs}
	for {
		i, active := TestAny(reqs)
		if i >= 0 || !active {
			w.end()
			return i
		}
		if w.sleepy() {
			e.sleep(w.ready)
			w.reset()
			continue
		}
		w.step()
	}
}

// TestAny returns the index of a completed request in reqs, or -1; active
// is false when every entry is nil.
func TestAny(reqs []*Request) (i int, active bool) {
	for i, r := range reqs {
		if r == nil {
			continue
		}
		active = true
		if r.Done() {
			return i, true
		}
	}
	return -1, active
}
