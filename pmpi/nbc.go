package pmpi

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/lowlevel"
	"github.com/gompi/gompi/internal/pml"
)

// A non-blocking collective runs the algorithm the communicator's coll
// table chose, in a goroutine of its own, on a context of its own, and
// completes an engine request (a general one, as BufferIflush's): it
// waits, tests and mixes with point-to-point requests as they do, and it
// progresses while the program computes without calling MPI. Only
// modules that say they may run calls side by side (coll.Module.Concurrent)
// serve them so: their functions are pure point-to-point on the Comm they
// are given. The others' calls run in start order (nbc_order.go).
// Persistent calls are in nbc_persistent.go.

// collStart says how a collective call whose arguments are checked goes
// on when it is not the blocking call.
type collStart struct {
	persistent bool
	// prepare, set for a persistent call only, checks the call's
	// arguments again; one on a datatype that packs keeps it, to pack its
	// buffers at each start.
	prepare func(s *collStart) error
	// restart is the persistent call that prepare runs for: the checked
	// call replaces its operation, which keeps its context.
	restart *nbcJob
	req     *Request // the request the call made
}

// collName is a collective's name in messages, by how it was called:
// "allreduce", "iallreduce", "allreduce init". Made once per collective:
// building the name at every start, or looking it up by the blocking
// name, cost a small call's start a tenth of its time.
type collName struct{ blocking, nonblocking, persistent string }

func newCollName(op string) collName { return collName{op, "i" + op, op + " init"} }

var (
	nameAllgather          = newCollName("allgather")
	nameAllgatherv         = newCollName("allgatherv")
	nameAllreduce          = newCollName("allreduce")
	nameAlltoall           = newCollName("alltoall")
	nameAlltoallv          = newCollName("alltoallv")
	nameAlltoallw          = newCollName("alltoallw")
	nameBarrier            = newCollName("barrier")
	nameBcast              = newCollName("bcast")
	nameExscan             = newCollName("exscan")
	nameGather             = newCollName("gather")
	nameGatherv            = newCollName("gatherv")
	nameNeighborAllgather  = newCollName("neighbor allgather")
	nameNeighborAllgatherv = newCollName("neighbor allgatherv")
	nameNeighborAlltoall   = newCollName("neighbor alltoall")
	nameNeighborAlltoallv  = newCollName("neighbor alltoallv")
	nameNeighborAlltoallw  = newCollName("neighbor alltoallw")
	nameReduce             = newCollName("reduce")
	nameReduceScatter      = newCollName("reduce scatter")
	nameReduceScatterBlock = newCollName("reduce scatter block")
	nameScan               = newCollName("scan")
	nameScatter            = newCollName("scatter")
	nameScatterv           = newCollName("scatterv")
)

// callName names the call as s started it.
func (s *collStart) callName(n *collName) string {
	switch {
	case s == nil:
		return n.blocking
	case s.persistent:
		return n.persistent
	}
	return n.nonblocking
}

// nonblocking starts a collective that prepare checks, and returns its
// request. Only a persistent call keeps prepare in its collStart: kept
// there, the closure of the call's arguments would be allocated at every
// start (96 bytes on an Iallreduce).
func nonblocking(prepare func(s *collStart) error) (*Request, error) {
	var s collStart
	if err := prepare(&s); err != nil {
		return nil, err
	}
	return s.req, nil
}

// persistentColl makes the inactive persistent request of a collective
// that prepare checks.
func persistentColl(prepare func(s *collStart) error) (*Request, error) {
	s := collStart{persistent: true, prepare: prepare}
	if err := prepare(&s); err != nil {
		return nil, err
	}
	return s.req, nil
}

// Contexts. Each communicator counts the non-blocking collectives (and
// CommIdups, which take a slot as they do), and apart the persistent
// ones, started on it; every rank starts them in the
// same order (MPI requires it), so all agree on each one's slot without a
// message. Slot s of the communicator of context c runs on context
// 1<<31 | c<<nbcSlotBits | s: above every context a communicator takes,
// and unique across communicators.
const (
	nbcSlotBits = 15
	// nbcOutstanding bounds the non-blocking collectives a communicator
	// has outstanding: their slots come round again after it, and a start
	// whose slot is still busy waits until the call that held it
	// completes here.
	nbcOutstanding = 1024
	// nbcPersistent is the number of slots of persistent collectives,
	// which hold theirs from Init to Free.
	nbcPersistent = 1<<nbcSlotBits - nbcOutstanding
	// nbcContexts bounds the context ids of communicators that run them.
	nbcContexts = 1 << (31 - nbcSlotBits)
	// nbcSpare bounds the jobs a communicator keeps for its next calls.
	nbcSpare = 64
)

// collPeer is the peer of a non-blocking collective's request: none. Not
// ProcNull, whose requests complete with the null status: a collective's
// completes with the empty one, with or without an engine request.
const collPeer = -4

func nbcContext(comm *Comm, slot int) uint32 {
	return 1<<31 | comm.context<<nbcSlotBits | uint32(slot)
}

// jobComm is what the job of a non-blocking or persistent call on comm
// hands its coll module: the communicator's own context for a call that
// runs in order (slot < 0), else its slot's, marked as a request's
// (coll.NonBlocking).
func jobComm(comm *Comm, slot int) collComm {
	if slot < 0 {
		return *comm.reqCC
	}
	return collComm{c: comm, ctx: nbcContext(comm, slot), nb: true}
}

// nbcState is a communicator's count of its non-blocking and persistent
// collectives, and the slots in use.
type nbcState struct {
	mu       sync.Mutex
	released sync.Cond // a slot of a non-blocking call came free
	started  uint64    // non-blocking calls started
	busy     [nbcOutstanding / 64]uint64
	inits    uint64       // persistent calls made
	live     map[int]bool // the slots of persistent calls not freed
	// order holds the calls that run in start order (nbc_order.go).
	order orderQueue
	// spare are the jobs of non-blocking calls done with, for the next
	// calls: a job is 400 bytes of pointers, and allocating and collecting
	// one per call made a small call on one rank 1.4 times as long. The
	// last one kept waits in last, taken and given back without mu.
	spare []*nbcJob
	last  atomic.Pointer[nbcJob]
}

// take waits until the next non-blocking call's slot is free, and takes
// it, with a job for the call. The call that holds the slot may wait for
// the engine's next poll to begin (RunDeferred): a wait here begins it.
func (s *nbcState) take(e *pml.Engine) (int, *nbcJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released.L == nil {
		s.released.L = &s.mu
	}
	slot := int(s.started % nbcOutstanding)
	s.started++
	for s.busy[slot/64]&(1<<(slot%64)) != 0 {
		if e != nil {
			s.mu.Unlock()
			e.RunDeferred()
			s.mu.Lock()
			if s.busy[slot/64]&(1<<(slot%64)) == 0 {
				break
			}
		}
		s.released.Wait()
	}
	s.busy[slot/64] |= 1 << (slot % 64)
	return slot, s.spareLocked()
}

// job takes a spare job, or a new one, for a call that runs in order and
// needs no slot.
func (s *nbcState) job() *nbcJob {
	if j := s.last.Swap(nil); j != nil {
		return j
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.popLocked()
}

// spareLocked takes the last job kept, a spare one, or a new one; s.mu
// is held.
func (s *nbcState) spareLocked() *nbcJob {
	if j := s.last.Swap(nil); j != nil {
		return j
	}
	return s.popLocked()
}

// popLocked takes a job from spare, or makes one; s.mu is held.
func (s *nbcState) popLocked() *nbcJob {
	n := len(s.spare)
	if n == 0 {
		return &nbcJob{}
	}
	j := s.spare[n-1]
	s.spare = s.spare[:n-1]
	return j
}

// takeSlot is take for a call that needs no job (CommIdup's): the job
// goes back to the spares.
func (s *nbcState) takeSlot(e *pml.Engine) int {
	slot, j := s.take(e)
	s.keep(j)
	return slot
}

// keep takes back the job of a non-blocking call that nothing holds now.
func (s *nbcState) keep(j *nbcJob) {
	j.k, j.o, j.from, j.m, j.cc, j.p, j.run, j.via, j.begun = collCall{}, collOp{}, nil, nil, collComm{}, nil, nil, nil, false // no buffer kept alive
	if s.last.CompareAndSwap(nil, j) {
		return
	}
	s.mu.Lock()
	if len(s.spare) < nbcSpare {
		s.spare = append(s.spare, j)
	}
	s.mu.Unlock()
}

func (s *nbcState) release(slot int) {
	s.mu.Lock()
	s.busy[slot/64] &^= 1 << (slot % 64)
	if s.released.L != nil {
		s.released.Broadcast()
	}
	s.mu.Unlock()
}

// takePersistent takes the next persistent call's slot, or fails if the
// call that held it nbcPersistent calls ago is not freed.
func (s *nbcState) takePersistent() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot := nbcOutstanding + int(s.inits%nbcPersistent)
	if s.live[slot] {
		return 0, false
	}
	if s.live == nil {
		s.live = map[int]bool{}
	}
	s.inits++
	s.live[slot] = true
	return slot, true
}

func (s *nbcState) releasePersistent(slot int) {
	s.mu.Lock()
	delete(s.live, slot)
	s.mu.Unlock()
}

// nbcJob is one non-blocking call, or a persistent call for its life.
type nbcJob struct {
	k    collCall
	o    collOp
	from []byte // an in-place call's data, copied into o.send at each start
	m    *coll.Module
	cc   collComm // on the call's own context
	// run, set for a call on an intercommunicator, runs it in place of o
	// (intercoll.go).
	run func() error
	// slot is the call's slot, or -1 for a call that runs in order on
	// the communicator's own context.
	slot int
	p    *pml.Request // the engine request of the start under way
	// claimed: a non-blocking call's goroutine, or a Wait, runs it; for
	// a persistent call, its start under way.
	claimed atomic.Bool
	// A non-blocking call's job is held by its goroutine and by its
	// request until the request's Wait claims it; the last to let go
	// gives it back to the communicator (keep). waited is the request's
	// claim.
	holders atomic.Int32
	waited  atomic.Bool
	// A persistent call's goroutine takes from wake each start to run:
	// the call itself, or the job of one of its starts that runs in
	// order; nil ends it (Free). prepare, if set, checks and packs the
	// arguments again at each start (a datatype that packs). cur is the
	// job of the start under way of a persistent call that runs in order.
	wake    chan *nbcJob
	prepare func(s *collStart) error
	cur     *nbcJob
	// via, set on the job of a persistent call's start, is that call's
	// wake: its goroutine runs the start, so that none is made for it.
	via chan *nbcJob
	// deferral is the job itself, for the engine to hold (pml.Engine.Defer).
	deferral pml.Deferred
	// begun: the provider's Start function did the call's first part
	// (offerStart); testing is set during a Test of its request, which
	// keeps the call deferred (RunDeferred).
	begun   bool
	testing atomic.Bool
}

// collFailed is a collective's failure as its request's status carries it:
// the error is complete, with its class, and only the handler is left.
type collFailed struct{ err error }

func (f *collFailed) Error() string { return f.err.Error() }
func (f *collFailed) Unwrap() error { return f.err }

// launch starts the checked call o as s says.
func (k *collCall) launch(s *collStart, o *collOp) error {
	if j := s.restart; j != nil {
		j.k, j.o, j.from = *k, *o, k.from
		return nil
	}
	if k.t.InOrder(o.kind) {
		if s.persistent {
			return k.goPersistent(s, &nbcJob{k: *k, o: *o, from: k.from, m: &k.t.Module, slot: -1})
		}
		r := k.request()
		done, begun := k.startNow(s, o, r)
		if done {
			return nil
		}
		j := k.comm.nbc.job()
		j.k, j.o, j.from, j.m, j.slot, j.begun = *k, *o, k.from, &k.t.Module, -1, begun
		j.cc = jobComm(k.comm, -1)
		s.req = k.goRun(j, r)
		return nil
	}
	m := k.t.Concurrent()
	if !o.provided(m) {
		return k.comm.handle(errorf(ClassIntern, coll.ErrNoProvider,
			"%s on %v: no coll component that can run calls side by side (basic, self, tuned) provides %s (check the coll parameter)",
			k.op, k.comm, coll.Collectives[o.kind]))
	}
	if k.comm.context >= nbcContexts {
		return k.fail(ClassComm, "its context id %d is not below %d, the most non-blocking collectives can tell apart (too many communicators alive)",
			k.comm.context, nbcContexts)
	}
	if s.persistent {
		return k.goPersistent(s, &nbcJob{k: *k, o: *o, from: k.from, m: m})
	}
	if k.comm.Size() == 1 && k.convs == nil {
		// A rank alone waits for nobody: the call runs now, as a blocking
		// one would, and its request is complete. A goroutine's hand-off
		// cost an MPI_Ibarrier and MPI_Test from C 10 us.
		r := k.request()
		if err := o.call(m, k.comm.reqCC); err != nil {
			r.failAtStart(k.concurrentFailed(o.kind, err))
		}
		s.req = r
		return nil
	}
	slot, j := k.comm.nbc.take(k.comm.lib.engine)
	j.k, j.o, j.from, j.m, j.slot = *k, *o, k.from, m, slot
	j.cc = jobComm(k.comm, slot)
	s.req = k.goRun(j, k.request())
	return nil
}

// startNow offers the in-order call o, started with none before it
// outstanding here, to its provider's Start function (coll.Module.Start),
// and reports whether that completed it: s.req is then its request,
// complete. A call it started is queued as any other; its provider's
// blocking function finishes it. Calls on a datatype that packs are not
// offered: their unpacking belongs to the call's end.
//
// A request complete without error has no engine request, as a posted
// eager send's: where the ranks share CPUs, each call finds the engine's
// lines cold, and starting and completing one took a 4-rank Ibcast's
// root 80 ns, a non-root 110.
//
// r, the call's request, is taken before the start: the start's stores go
// to lines that other ranks read, and a locked instruction after them (the
// request cache's), or a load of a struct just stored, waits until those
// lines come back, a crossing between CPUs (4-rank Ibcasts of 1 B-1 KiB
// take 0.78-0.98 of the time they took with the request taken after).
func (k *collCall) startNow(s *collStart, o *collOp, r *Request) (done, begun bool) {
	done, begun, err := k.offerStart(o)
	if !done {
		return false, begun
	}
	if err != nil {
		r.failAtStart(err)
	}
	s.req = r
	return true, false
}

// failAtStart completes r, a collective's request that its start
// completed, with the call's failure: only a failure takes an engine
// request, which carries the status.
func (r *Request) failAtStart(err error) {
	r.pml = r.lib.engine.StartGeneral(&r.pmlStore)
	r.lib.engine.CompleteGeneral(r.pml, pml.Status{Err: err})
}

// offerStart offers the in-order call o to its provider's Start function
// when nothing started before it is outstanding, and reports whether that
// completed it, with the error its request completes with: an error in
// registers, not a status in memory (see startNow), or began it (the
// provider's coll.ErrStarted: the rest waits only for the other ranks').
func (k *collCall) offerStart(o *collOp) (done, begun bool, err error) {
	start := k.t.Start()
	if k.convs != nil || k.comm.nbc.order.left.Load() != 0 || !o.provided(start) {
		return false, false, nil
	}
	err = o.call(start, k.comm.reqCC)
	if err == coll.ErrStarted || err == coll.ErrNotStarted {
		return false, err == coll.ErrStarted, nil
	}
	if err != nil {
		return true, false, k.inOrderFailed(o.kind, err)
	}
	return true, false, nil
}

// inOrderFailed is the failure of k, an in-order call of collective kind
// that its provider failed with err, as its request's status carries it.
func (k *collCall) inOrderFailed(kind int, err error) error {
	err = served(k.t, coll.Collectives[kind], err)
	return &collFailed{errorf(classOf(err), err, "%s on %v", k.op, k.comm)}
}

// request takes the request of a non-blocking call from the cache.
func (k *collCall) request() *Request {
	return k.comm.lib.newRequest(k.comm, Byte, k.op, collPeer, AnyTag, false)
}

// goRun makes r the request of the non-blocking call j and starts the
// goroutine that runs it, unless a Wait runs it first.
func (k *collCall) goRun(j *nbcJob, r *Request) *Request {
	l := k.comm.lib
	r.pml = l.engine.StartGeneral(&r.pmlStore)
	if r.ext == nil {
		r.ext = &requestExt{}
	}
	r.kind, r.ext.coll = reqColl, j
	l.dispatch(j, r.pml)
	return r
}

// dispatch starts non-blocking call j, whose end completes p: queued
// behind the calls before it if it runs in order, and given a goroutine
// now or at the engine's next poll. Its goroutine and a Wait hold it.
func (l *library) dispatch(j *nbcJob, p *pml.Request) {
	j.p = p
	j.claimed.Store(false)
	j.waited.Store(false)
	j.holders.Store(2)
	if j.slot < 0 {
		j.k.comm.nbc.order.push(j)
	}
	if j.deferrable() {
		if j.deferral == nil {
			j.deferral = j
		}
		l.engine.Defer(&j.deferral)
	} else {
		l.goNBC(j)
	}
}

// goNBC runs non-blocking call j in a goroutine, counted among the
// engine's work aside while it is ready or runs, so that waiters and
// Tests yield to it: its persistent call's, or one of its own.
func (l *library) goNBC(j *nbcJob) {
	l.engine.AsideStarted()
	if j.via != nil {
		select {
		case j.via <- j:
			return
		default: // the goroutine has a start waiting already: never block a poll on it
		}
	}
	go func() {
		j.runOnce(l, true)
		l.engine.AsideEnded()
	}()
}

// poll is a Test-style call's progress: the transports polled once, and
// with collectives running in goroutines (which, with one P, run only
// when this goroutine lets them), a yield, so that a rank that tests in a
// loop drives them as it would by waiting.
func (l *library) poll() {
	l.engine.Progress()
	if l.engine.Aside() {
		lowlevel.Gosched()
	}
}

// nbcGoAtOnce is the size (send and receive buffers) from which a
// non-blocking call's goroutine starts at once even with one P: the
// start's cost is small beside the call's, and the goroutine may run at a
// preemption of a long computation. From 64 KiB, a 2-rank Ialltoall of 16
// KiB blocks and an Iallreduce of 32 KiB took about twice as long.
const nbcGoAtOnce = 1 << 20

// deferrable reports whether j's goroutine may wait for the rank's next
// poll (RunDeferred): with one P it could not run before the rank yields,
// in a poll or a wait, and the Wait that follows a start mostly runs the
// call itself first, which then needs no goroutine at all. A call on an
// intercommunicator, whose size the job does not hold, starts at once.
func (j *nbcJob) deferrable() bool {
	return j.run == nil && j.o.bytes() < nbcGoAtOnce && runtime.GOMAXPROCS(0) == 1
}

// RunDeferred starts the goroutine of a non-blocking call deferred to the
// engine's next poll, unless a Wait has run the call already. During a
// Test of a call that its provider began at its start (nbcJob.begun),
// which only waits for the others' parts, the call stays deferred: the
// Test runs it once it is ready (orderQueue.finishReady), and a goroutine
// would only hand the processor back and forth.
func (j *nbcJob) RunDeferred() {
	if j.claimed.Load() {
		j.letGo()
		return
	}
	l := j.k.comm.lib
	if j.testing.Load() && l.engine.DeferAgain(&j.deferral) {
		return
	}
	l.goNBC(j)
}

// running reports whether a goroutine or a Wait runs the call: for a state
// report, which counts the deferred calls that have not begun.
func (j *nbcJob) running() bool { return j.claimed.Load() }

// claim is a Wait's claim on a non-blocking call: it runs the call here
// if its goroutine has not begun it. With one P, the waiter often comes
// first, and then runs the call as a blocking call would, sparing the
// hand-off to the goroutine. The request touches the job no more after it.
func (j *nbcJob) claim(l *library) {
	if j.waited.Swap(true) {
		return // a second Wait of the same start, erroneous: the first let go
	}
	j.runOnce(l, false)
	l.engine.RunDeferred() // this call's deferred start among them
}

// runOnce runs a non-blocking call, frees its slot and completes its
// request, unless another goroutine claimed it first, then lets go of the
// job. A call that runs in order runs after those started before it; a
// Wait (block false) leaves it to the goroutine that runs calls already,
// as that one may be running a later call, which the program might only
// let finish after this Wait returns.
func (j *nbcJob) runOnce(l *library, block bool) {
	if j.slot < 0 {
		j.k.comm.nbc.order.through(l, j, block)
		j.letGo()
		return
	}
	if j.claimed.CompareAndSwap(false, true) {
		st := pml.Status{Err: j.exec()}
		j.k.comm.nbc.release(j.slot)
		p := j.p
		j.letGo()
		l.engine.CompleteGeneral(p, st)
		return
	}
	j.letGo()
}

// letGo drops a holder's hold on a non-blocking call's job, and gives the
// job back to its communicator if it was the last.
func (j *nbcJob) letGo() {
	if j.holders.Add(-1) == 0 {
		j.k.comm.nbc.keep(j)
	}
}

// exec runs the call and returns its failure, named as done names a
// blocking call's, or nil.
func (j *nbcJob) exec() error {
	var err error
	if j.run != nil {
		err = j.run()
	} else {
		err = j.o.call(j.m, &j.cc)
	}
	if j.k.convs != nil {
		j.k.unpackAll(err == nil)
	}
	if err == nil {
		return nil
	}
	k := &j.k
	switch {
	case j.run != nil:
	case j.slot < 0:
		return k.inOrderFailed(j.o.kind, err)
	default:
		return k.concurrentFailed(j.o.kind, err)
	}
	return &collFailed{errorf(classOf(err), err, "%s on %v", k.op, k.comm)}
}

// concurrentFailed is inOrderFailed for a call that its concurrent
// provider (coll.Module.Concurrent) failed.
func (k *collCall) concurrentFailed(kind int, err error) error {
	err = fmt.Errorf("coll %s: %w", k.t.ConcurrentProvider(coll.Collectives[kind]), err)
	return &collFailed{errorf(classOf(err), err, "%s on %v", k.op, k.comm)}
}
