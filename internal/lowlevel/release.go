package lowlevel

import (
	"sync/atomic"
	"unsafe"
)

// StoreRelease64 stores v into *p with release ordering: the writes before
// it are seen by any goroutine or process that loads v with sync/atomic.
// It does not keep a later load from passing it: a flag that two sides set
// and then check (a sleeper and its waker) still needs a swap.
func StoreRelease64(p *uint64, v uint64) { storeRelease64(p, v) }

// StoreRelease32 is StoreRelease64 for 32 bits.
func StoreRelease32(p *uint32, v uint32) { storeRelease32(p, v) }

// StoreReleaseUint64 is StoreRelease64 into a sync/atomic word, such as a
// view of shared memory (Uint64At).
func StoreReleaseUint64(w *atomic.Uint64, v uint64) {
	storeRelease64((*uint64)(unsafe.Pointer(w)), v)
}

// UnlockFlag clears a flag taken with CompareAndSwap(false, true), with
// release ordering: what the holder wrote is seen by the next holder.
func UnlockFlag(f *atomic.Bool) {
	storeRelease32((*uint32)(unsafe.Pointer(f)), 0)
}

// The casts above read sync/atomic's types as the word they hold: Uint64 is
// {noCopy, align64, v uint64} and Bool {noCopy, v uint32} with false as 0,
// the markers of size zero. These fail to compile if a type grows.
var (
	_ [8 - unsafe.Sizeof(atomic.Uint64{})]byte
	_ [unsafe.Sizeof(atomic.Uint64{}) - 8]byte
	_ [4 - unsafe.Sizeof(atomic.Bool{})]byte
	_ [unsafe.Sizeof(atomic.Bool{}) - 4]byte
	_ [4 - unsafe.Sizeof(atomic.Uint32{})]byte
	_ [unsafe.Sizeof(atomic.Uint32{}) - 4]byte
)
