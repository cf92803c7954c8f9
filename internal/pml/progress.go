package pml

import (
	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/internal/lowlevel"
)

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

// StartGeneral fills r, a zero Request that the caller allocated, as a
// pending request that no message completes: its owner completes it
// with CompleteGeneral, and until then it is waited on, tested and woken
// for as any other (pmpi's BufferIflush).
func (e *Engine) StartGeneral(r *Request) *Request {
	return e.request(r, kindGeneral, 0, AnySource, AnyTag, nil, nil, false)
}

// CompleteGeneral completes r, which StartGeneral started, with st.
func (e *Engine) CompleteGeneral(r *Request, st Status) { e.complete(r, st) }

func (e *Engine) complete(r *Request, st Status) {
	r.finish(st)
	e.notify()
}

// notify wakes the waiters of WaitAny, WaitSome and Probe that sleep, and
// every waiter that dozes.
func (e *Engine) notify() {
	e.changed()
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
			w.unpoll()
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

// Idle is the last step of a test or probe that found nothing done: where
// the host's ranks outnumber its CPUs (Config.YieldAtOnce) it yields the
// CPU, as a waiter's poll does and as Open MPI's progress does when it
// finds nothing, since the rank the caller waits on may be the one that
// needs it. A loop of MPI_Test held it for the rest of its time slice
// otherwise: graph500's BFS, whose active messages are tested in such
// loops, took 5.5 times Open MPI's time on 4 ranks of 2 CPUs.
//
// Every other call yields, so that a loop that tests two things a round
// (graph500's barrier tests its MPI_Ibarrier and its receives) yields
// once a round: yielding at both, such a round on 4 ranks took 54 us
// against 45, and graph500's SSSP 1.1 times as long.
func (e *Engine) Idle() {
	if e.cfg.YieldAtOnce && e.idles.Add(1)%2 == 1 {
		lowlevel.Yield()
	}
}

func (e *Engine) progress() int {
	if !e.started.Load() {
		return 0
	}
	e.pollers.Add(1)
	n := e.routes.Progress()
	e.pollers.Add(-1)
	return n + e.afterPoll()
}

// afterPoll is what a poller does once it no longer counts among the
// pollers: it sends what stalled and runs what deliveries queued for the
// pollers. It counts among them again while it runs that work, so that
// what its own writes' polls deliver (a write polls while the socket is
// full) queues behind it: a writer goroutine per CTS contended for one
// socket on the rank's other threads.
func (e *Engine) afterPoll() int {
	n := 0
	if e.stalled.Load() != 0 {
		n += e.unstall()
	}
	e.runLone()
	for e.queued.Load() {
		e.pollers.Add(1)
		for e.queued.Load() {
			n += e.runQueued()
		}
		e.pollers.Add(-1) // queued is looked at once more after this, as a poller must
	}
	return n
}

// runQueued runs what deliveries queued for the pollers, and returns how
// much it ran.
func (e *Engine) runQueued() int {
	e.outMu.Lock()
	todo, gets, ctss, defs := e.outbox, e.gets, e.ctss, e.deferred
	e.outbox, e.spare = e.spare[:0], nil
	e.gets, e.spareGets = e.spareGets[:0], nil
	e.ctss, e.spareCTSs = e.spareCTSs[:0], nil
	e.deferred, e.spareDefs = e.spareDefs[:0], nil
	e.queued.Store(false)
	e.outMu.Unlock()
	e.getAll(gets)
	for _, c := range ctss {
		e.sendCTS(c.from, c.h, c.id)
	}
	for i, f := range todo {
		f()
		todo[i] = nil
	}
	runDeferred(defs)
	clear(gets)
	if len(todo)+len(gets)+len(ctss)+len(defs) > 0 {
		e.outMu.Lock()
		e.spare, e.spareGets, e.spareCTSs, e.spareDefs = todo[:0], gets[:0], ctss[:0], defs[:0] // reused: no allocation per poll
		e.outMu.Unlock()
	}
	return len(todo) + len(gets) + len(ctss)
}

func runDeferred(defs []Deferred) {
	for _, d := range defs {
		d.RunDeferred()
	}
	clear(defs)
}

// Deferred is work for the engine's next poll (Defer).
type Deferred interface{ RunDeferred() }

// Defer runs *d at the engine's next poll, in the goroutine that polls:
// any wait, test or blocking call of the rank. A non-blocking collective
// that a Wait will likely run itself starts its goroutine there rather
// than at once: with one P, a goroutine started at once would only run at
// the rank's next yield anyway, and mostly to find its call taken.
//
// The engine keeps d, not *d: the caller keeps *d set until it has run.
// One deferred work at a time is held in a word of its own, so that the
// usual case, a call deferred and taken back by its Wait's RunDeferred,
// takes no lock: with pmpi's spare job kept likewise, a 2-rank Ibcast of
// 1 B-1 KiB takes 0.90-0.93 of the time it took under the locks, an
// Ialltoall 0.80-0.91 (gompi-bench, 5-6 alternating rounds).
func (e *Engine) Defer(d *Deferred) {
	defer e.changed()
	if e.lone.CompareAndSwap(nil, d) {
		return
	}
	e.outMu.Lock()
	e.deferred = append(e.deferred, *d)
	e.queued.Store(true)
	e.outMu.Unlock()
}

// DeferAgain holds *d for the next poll in the word kept apart, if that is
// free, and reports whether it was: a deferred work may put itself back so
// from its RunDeferred, which Defer's list would run again in the same
// poll, and again.
func (e *Engine) DeferAgain(d *Deferred) bool {
	if !e.lone.CompareAndSwap(nil, d) {
		return false
	}
	e.changed()
	return true
}

// EachDeferred calls f with each work the engine holds for its next poll,
// for a report of what the rank is doing: f must not call the engine.
func (e *Engine) EachDeferred(f func(Deferred)) {
	if d := e.lone.Load(); d != nil {
		f(*d)
	}
	e.outMu.Lock()
	defer e.outMu.Unlock()
	for _, d := range e.deferred {
		f(d)
	}
}

// runLone runs the deferred work held apart, if any.
func (e *Engine) runLone() {
	if d := e.lone.Load(); d != nil && e.lone.CompareAndSwap(d, nil) {
		(*d).RunDeferred()
	}
}

// RunDeferred runs the deferred work now, without polling: a Wait that ran
// its call itself settles what Defer holds, so that a rank that never
// polls (one that only calls collectives that need no message) keeps no
// list that grows. The list is empty while nothing is queued: Defer sets
// queued with it, and only a poll that takes the list clears it.
func (e *Engine) RunDeferred() {
	e.runLone()
	if !e.queued.Load() {
		return
	}
	e.outMu.Lock()
	defs := e.deferred
	if len(defs) == 0 {
		e.outMu.Unlock()
		return
	}
	e.deferred, e.spareDefs = e.spareDefs[:0], nil
	e.outMu.Unlock()
	runDeferred(defs)
	e.outMu.Lock()
	if e.spareDefs == nil {
		e.spareDefs = defs[:0]
	}
	e.outMu.Unlock()
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
			w.unpoll()
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
