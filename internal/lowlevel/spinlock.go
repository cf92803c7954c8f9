package lowlevel

import (
	"sync/atomic"
)

// SpinLock guards a few instructions' worth of work that goroutines seldom
// contend for. Lock is one compare-and-swap and Unlock a release store:
// half the locked instructions of a sync.Mutex, whose Unlock is an atomic
// add. A goroutine that finds it taken yields to the Go scheduler until it
// is free, and after spinsBeforeYield tries to the kernel too, so it must
// never be held across a blocking call. The zero value is unlocked.
type SpinLock struct{ held uint32 }

// spinsBeforeYield is how many times a waiter yields to the Go scheduler
// alone, some microseconds, before it yields its thread as well: a holder
// whose thread the kernel took off its CPU is not back before the kernel
// runs it again, and a waiter that keeps its CPU may be what keeps it out.
const spinsBeforeYield = 64

// Lock takes l, yielding while another goroutine holds it.
func (l *SpinLock) Lock() {
	if !atomic.CompareAndSwapUint32(&l.held, 0, 1) {
		l.wait()
	}
}

// wait takes l from another holder. It looks before it swaps, so that
// waiters do not take the line from the holder in turn. It goes on
// yielding to the Go scheduler after it begins to yield to the kernel: a
// holder waiting for this waiter's P gets it only so.
func (l *SpinLock) wait() {
	for i := 0; ; i++ {
		Gosched()
		if i >= spinsBeforeYield {
			Yield()
		}
		if atomic.LoadUint32(&l.held) == 0 && atomic.CompareAndSwapUint32(&l.held, 0, 1) {
			return
		}
	}
}

// Unlock releases l: what its holder wrote is seen by the next holder.
func (l *SpinLock) Unlock() { storeRelease32(&l.held, 0) }
