package lowlevel

import (
	"sync/atomic"
)

// SpinLock guards a few instructions' worth of work that goroutines seldom
// contend for. Lock is one compare-and-swap and Unlock a release store:
// half the locked instructions of a sync.Mutex, whose Unlock is an atomic
// add. A goroutine that finds it taken yields to the Go scheduler until it
// is free, so it must never be held across a blocking call. The zero value
// is unlocked.
type SpinLock struct{ held uint32 }

// Lock takes l, yielding while another goroutine holds it.
func (l *SpinLock) Lock() {
	for !atomic.CompareAndSwapUint32(&l.held, 0, 1) {
		Gosched()
	}
}

// Unlock releases l: what its holder wrote is seen by the next holder.
func (l *SpinLock) Unlock() { storeRelease32(&l.held, 0) }
