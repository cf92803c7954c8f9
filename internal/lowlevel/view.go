package lowlevel

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Uint64At is the 8 bytes of b at off as an atomic word, for memory that
// other processes map too (a shared segment): Go has no atomic operation
// on bytes, and sync/atomic's Uint64 is the bare word. The word must lie
// in b (else the runtime's conversion panic) and be 8-byte aligned in
// memory: an atomic access that straddles cache lines is a bus lock on
// amd64 and a fault on arm64, so a layout that puts one there is a
// programming error, and Uint64At panics with an error naming the offset.
// b must stay mapped while the word is used.
func Uint64At(b []byte, off int) *atomic.Uint64 {
	w := (*[8]byte)(b[off:])
	if uintptr(unsafe.Pointer(w))&7 != 0 {
		panic(misaligned64(off))
	}
	return (*atomic.Uint64)(unsafe.Pointer(w))
}

// Uint32At is Uint64At for a 4-byte word, 4-byte aligned: what a futex
// waits on (FutexWait).
func Uint32At(b []byte, off int) *atomic.Uint32 {
	w := (*[4]byte)(b[off:])
	if uintptr(unsafe.Pointer(w))&3 != 0 {
		panic(misaligned32(off))
	}
	return (*atomic.Uint32)(unsafe.Pointer(w))
}

// Word64At is Uint64At for a word that is written and read with plain
// accesses, ordered by an atomic word written after it and read before it.
func Word64At(b []byte, off int) *uint64 {
	w := (*[8]byte)(b[off:])
	if uintptr(unsafe.Pointer(w))&7 != 0 {
		panic(misaligned64(off))
	}
	return (*uint64)(unsafe.Pointer(w))
}

// misaligned64 and misaligned32 are the panics of a view of a misaligned
// word, holding its offset. The views panic rather than return an error:
// the offsets come from a layout, not from input, and the views are on hot
// paths, where a panic value of one word, built in line, keeps them cheap
// enough (19 of the inliner's budget of 80) that the accessors over them
// inline too.
type (
	misaligned64 int
	misaligned32 int
)

func (off misaligned64) Error() string { return misalignedMessage(int(off), 8) }

func (off misaligned32) Error() string { return misalignedMessage(int(off), 4) }

func misalignedMessage(off, size int) string {
	return fmt.Sprintf("lowlevel: the %d-byte word at offset %d is misaligned: "+
		"its address (the bytes' start plus the offset) is not a multiple of %d", size, off, size)
}
