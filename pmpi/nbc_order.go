package pmpi

import (
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/internal/lowlevel"
	"github.com/gompi/gompi/internal/pml"
)

// In-order calls. A non-blocking collective whose provider is not
// Concurrent (coll.Table.InOrder: sm's segment, han's sub-communicators)
// runs that module's blocking function on the communicator's own
// collective context, in start order: MPI has every member start a
// communicator's collectives in the same order, so every member runs them
// in the same order, which is what such a module needs of the blocking
// calls. Whoever needs a call done runs the calls started before it
// first: its goroutine, its Wait, or a blocking collective, which runs
// every call queued before it. A small call waited on at once then costs
// what the blocking call costs, through the segment, rather than tuned's
// messages on a context of its own.

// orderQueue is a communicator's in-order calls started and not begun.
type orderQueue struct {
	// runner is held by whoever runs queued calls, one at a time.
	runner sync.Mutex
	mu     sync.Mutex
	calls  []*nbcJob // in start order from head; guarded by mu
	head   int
	// left counts the calls started and not finished: a blocking
	// collective that finds it 0 has nothing to run first.
	left atomic.Int32
	// active is set while the runner's holder runs calls.
	active atomic.Bool
}

// push queues j, fully set up, behind the calls started before it.
func (q *orderQueue) push(j *nbcJob) {
	q.left.Add(1)
	q.mu.Lock()
	q.calls = append(q.calls, j)
	q.mu.Unlock()
}

// pop takes the oldest queued call, or nil. An emptied queue starts
// again at the front of its array, so that a call allocates nothing.
func (q *orderQueue) pop() *nbcJob {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.calls) {
		return nil
	}
	j := q.calls[q.head]
	q.calls[q.head] = nil
	if q.head++; q.head == len(q.calls) {
		q.calls, q.head = q.calls[:0], 0
	}
	return j
}

// finishReady runs j here if it is the oldest queued call, nobody runs
// calls, and its provider finds it ready (coll.Module.Ready): the call then
// finishes at once, and j's deferred start finds it claimed. It reports
// whether j ran. The runner's lock keeps the module's state to this
// goroutine while it asks.
func (q *orderQueue) finishReady(l *library, j *nbcJob) bool {
	if j.claimed.Load() || !q.runner.TryLock() {
		return false
	}
	defer q.runner.Unlock()
	q.mu.Lock()
	head := q.head < len(q.calls) && q.calls[q.head] == j
	q.mu.Unlock()
	if !head || !j.k.t.Ready(j.o.kind) {
		return false
	}
	q.active.Store(true)
	q.runNext(l)
	q.active.Store(false)
	return true
}

// through runs the queued calls up to and including j, unless j has run
// or is running: a goroutine that parked on the runner's lock while its
// Wait ran the call made a 2-rank Iallreduce of 32 KiB 1.6 times as long.
// A goroutine of a call (block true) waits for the runner's lock. A Wait
// does not: a runner that is running calls may be in a later one than j,
// which the program might let finish only after this Wait returns; the
// Wait then returns, j's request completes when j has run, and j's
// goroutine runs it if that runner stops short of it. A lock held by a
// goroutine that has not yet begun to run calls (one handed the lock as
// it was let go) is let go soon, and the Wait yields until then: giving
// up there would leave every later call to a goroutine of its own.
func (q *orderQueue) through(l *library, j *nbcJob, block bool) {
	if j.claimed.Load() {
		return
	}
	if block {
		q.runner.Lock()
	} else {
		for !q.runner.TryLock() {
			if j.claimed.Load() || q.active.Load() {
				return
			}
			lowlevel.Gosched()
		}
	}
	q.active.Store(true)
	for !j.claimed.Load() && q.runNext(l) {
	}
	q.active.Store(false)
	q.runner.Unlock()
}

// drain runs every queued call: a blocking collective comes after them.
func (q *orderQueue) drain(l *library) {
	q.runner.Lock()
	q.active.Store(true)
	for q.runNext(l) {
	}
	q.active.Store(false)
	q.runner.Unlock()
}

// runNext runs the oldest queued call, holding its job while it runs
// (the goroutine and the Wait that hold it may both have let go once it
// is claimed), and reports whether there was one. The caller holds runner.
func (q *orderQueue) runNext(l *library) bool {
	j := q.pop()
	if j == nil {
		return false
	}
	j.holders.Add(1)
	j.claimed.Store(true)
	err := j.exec()
	p := j.p
	q.left.Add(-1)
	j.letGo()
	l.engine.CompleteGeneral(p, pml.Status{Err: err})
	return true
}

// inOrder runs, before a blocking collective on c, the non-blocking ones
// started on c before it that run in order.
func (c *Comm) inOrder() {
	if c.nbc.order.left.Load() != 0 {
		c.nbc.order.drain(c.lib)
	}
}
