package sm

import (
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/frameworks/btl"
)

// The ring's release stores (btl.StoreRelease64 says why): a window of 64
// small sends spent half its time in the XCHG of Go's atomic store
// (BenchmarkWindow: 119-160 ns a message, 39-87 with plain stores).

// storeRelease stores v into w with release ordering.
func storeRelease(w *atomic.Uint64, v uint64) {
	btl.StoreRelease64((*uint64)(unsafe.Pointer(w)), v)
}

// unlock clears a flag taken with CompareAndSwap(false, true), with
// release ordering: what the holder wrote is seen by the next holder.
func unlock(f *atomic.Bool) {
	btl.StoreRelease32((*uint32)(unsafe.Pointer(f)), 0)
}
