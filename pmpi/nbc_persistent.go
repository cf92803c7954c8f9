package pmpi

import "github.com/gompi/gompi/internal/pml"

// Persistent collectives. A call keeps its checked arguments, operation
// and goroutine from Init to Free. One that a Concurrent module serves
// keeps a slot (a context of its own) too, and each Start wakes its
// goroutine to run it. One whose provider runs calls in order (sm's
// segment, han) starts each time as a non-blocking call does: offered to
// the provider's Start function, else queued behind the calls started
// before it and run by its Wait, a blocking collective or the call's own
// goroutine. On 2 ranks over sm an 8-byte AllreduceInit's Start and Wait
// took 1.6-2.0 us on tuned's messages in a slot, 0.5-0.6 us in order.

// goPersistent makes persistent call j's inactive request and starts the
// goroutine that serves its starts, with a slot for j unless it runs in
// order (j.slot < 0).
func (k *collCall) goPersistent(s *collStart, j *nbcJob) error {
	if j.slot < 0 {
		j.cc = jobComm(k.comm, -1)
	} else {
		slot, ok := k.comm.nbc.takePersistent()
		if !ok {
			return k.fail(ClassOther, "the persistent collective made %d before this one on it is alive: a communicator holds at most %d at once (free them with RequestFree)",
				nbcPersistent, nbcPersistent)
		}
		j.slot, j.cc = slot, jobComm(k.comm, slot)
	}
	if len(k.convs) > 0 {
		j.prepare = s.prepare
		j.k.unpackAll(false) // each start packs again
	}
	// One token waits at most. For a call with a slot, one left by a
	// start that a Wait claimed wakes the goroutine for the next start.
	// Free sends nil: wake is never closed, as a poll may still offer a
	// start's job that ran already (goNBC).
	j.wake = make(chan *nbcJob, 1)
	j.claimed.Store(true) // inactive: nothing to run
	l := k.comm.lib
	r := l.persistent(k.comm, Byte, k.op, ProcNull, AnyTag, false)
	r.ext.coll = j
	go j.serve(l)
	s.req = r
	return nil
}

// serve runs a persistent call's starts until Free: its own, unless a
// Wait claimed the start first, or the jobs of those that run in order.
func (j *nbcJob) serve(l *library) {
	for x := range j.wake {
		switch x {
		case nil:
			return
		case j:
			j.claimStart(l)
		default:
			x.runOnce(l, true)
		}
		l.engine.AsideEnded() // counted by start or goNBC
	}
}

// claimStart runs the persistent call's start under way and completes
// it, unless another goroutine claimed it first: its goroutine, or a
// Wait on its request, which runs it as the blocking call would. For a
// call that runs in order, it is the Wait's claim on the start's job.
func (j *nbcJob) claimStart(l *library) {
	if j.slot < 0 {
		if c := j.cur; c != nil {
			j.cur = nil
			c.claim(l)
		}
		return
	}
	if !j.claimed.CompareAndSwap(false, true) {
		return
	}
	if j.from != nil {
		copy(j.o.send, j.from)
	}
	l.engine.CompleteGeneral(j.p, pml.Status{Err: j.exec()})
}

// start starts persistent collective r, inactive.
func (j *nbcJob) start(r *Request) error {
	if j.prepare != nil {
		if err := j.prepare(&collStart{persistent: true, restart: j}); err != nil {
			return err
		}
	}
	r.pml = r.lib.engine.StartGeneral(&r.pmlStore)
	j.p = r.pml
	if j.slot < 0 {
		j.startInOrder(r.lib)
		return nil
	}
	j.claimed.Store(false)
	r.lib.engine.AsideStarted()
	j.wake <- j
	return nil
}

// startInOrder starts persistent call j, which runs in order, as a
// non-blocking call with the job of this start, which j's goroutine runs
// if it must.
func (j *nbcJob) startInOrder(l *library) {
	if j.from != nil {
		copy(j.o.send, j.from)
	}
	k := &j.k
	if done, _, err := k.offerStart(&j.o); done {
		l.engine.CompleteGeneral(j.p, pml.Status{Err: err})
		return
	}
	c := k.comm.nbc.job()
	c.k, c.o, c.m, c.slot, c.cc, c.via = j.k, j.o, j.m, -1, j.cc, j.wake
	j.cur = c
	l.dispatch(c, j.p)
}

// free ends a persistent call's goroutine and gives its slot back.
func (j *nbcJob) free() {
	j.wake <- nil
	if j.slot >= 0 {
		j.k.comm.nbc.releasePersistent(j.slot)
	}
}
