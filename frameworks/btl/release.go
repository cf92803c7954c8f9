package btl

import (
	"runtime"
	"sync/atomic"
)

// StoreRelease64 stores v into *p with release ordering, for the
// lock-free paths of transports and of the library above them. Go's
// atomic stores are sequentially consistent: on amd64 an XCHG, which waits
// until every earlier store of the processor has reached the cache. When
// those are a record just written into lines that another processor read
// last, the wait is a cache-line transfer per message (a window of 64
// small sends over sm spent half its time there). Where a protocol needs
// only release ordering (the writes before the store are seen before it:
// the end of a lock, a record's stamp, a consumer's head), a plain store
// gives it on amd64, whose stores reach other processors in program order;
// elsewhere, and under the race detector (which must see the ordering),
// the atomic store stands in. Readers load with sync/atomic. A release
// store does not keep a later load from passing it: a flag that two sides
// set and then check (a sleeper and its waker) still needs a swap.
func StoreRelease64(p *uint64, v uint64) { storeRelease64(p, v) }

// StoreRelease32 is StoreRelease64 for 32 bits.
func StoreRelease32(p *uint32, v uint32) { storeRelease32(p, v) }

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
		runtime.Gosched()
	}
}

// Unlock releases l: what its holder wrote is seen by the next holder.
func (l *SpinLock) Unlock() { StoreRelease32(&l.held, 0) }
