package sm

import (
	"sync/atomic"
	"unsafe"
)

// Release stores. Go's atomic stores are sequentially consistent: on
// amd64 an XCHG, which waits until every earlier store of the processor
// has reached the cache. A sender's earlier stores are the record it just
// wrote into lines that the receiver read last, so that wait is a
// cache-line transfer per message; a window of 64 small sends spent half
// its time there (BenchmarkWindow: 119-160 ns a message, 39-87 with the
// stores below). Where the protocol needs only release ordering (the
// writes before the store are seen before it: the end of a lock, a
// record's stamp, the consumer's head) a plain store gives it on amd64,
// whose stores reach other processors in program order; elsewhere, and
// under the race detector (which must see the ordering), the atomic store
// stands in.

// storeRelease stores v into w with release ordering.
func storeRelease(w *atomic.Uint64, v uint64) {
	storeRelease64((*uint64)(unsafe.Pointer(w)), v)
}

// unlock clears a flag taken with CompareAndSwap(false, true), with
// release ordering: what the holder wrote is seen by the next holder.
func unlock(f *atomic.Bool) {
	storeRelease32((*uint32)(unsafe.Pointer(f)), 0)
}
