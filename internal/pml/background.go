package pml

// later runs a send that a delivery decided on. A transport may deliver
// from its reader goroutine, which must never block on a write, or from a
// waiter's poll: then the waiter runs it right after the poll, sparing a
// goroutine that, with one P, would run only when the waiter yields.
//
// A poller looks at queued after each poll while it counts among the
// pollers, and once more after it counts itself out (a Test-style call
// after its one poll, a waiter when it sleeps or ends), without a lock.
// Here queued is set before pollers is read. Whichever order the two
// pairs run in, either this call sees no poller and takes f back, or a
// poller sees queued and runs f.
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
		e.changed()
		return true
	}
	*q = (*q)[:len(*q)-1]
	return false
}

// background runs a transfer off the caller's goroutine: a transport's
// reader delivering to us must never block on a write.
func (e *Engine) background(f func()) {
	e.transfers.Add(1)
	e.AsideStarted()
	go func() {
		defer e.transfers.Done()
		defer e.AsideEnded()
		f()
	}()
}

// AsideStarted counts a goroutine that drives MPI work beside the caller's:
// a background transfer, or a non-blocking call of the library above
// running in a goroutine of its own. With one P it runs only when a
// waiter yields, so waiters yield to it at every poll, and none dozes,
// holding the processor, until AsideEnded.
func (e *Engine) AsideStarted() {
	e.inFlight.Add(1)
	e.changed()
	if e.dozers.Load() != 0 {
		e.dozer.Wake() // the work needs a processor that a doze may hold
	}
}

// AsideEnded ends what AsideStarted counted.
func (e *Engine) AsideEnded() { e.inFlight.Add(-1) }

// Aside reports whether a goroutine counted by AsideStarted runs.
func (e *Engine) Aside() bool { return e.inFlight.Load() > 0 }
