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
// programming error, and Uint64At panics with an error naming the offset
// and the address. b must stay mapped while the word is used.
func Uint64At(b []byte, off int) *atomic.Uint64 {
	w := (*[8]byte)(b[off:])
	if uintptr(unsafe.Pointer(w))&7 != 0 {
		panic(&viewError{offset: off, size: 8, addr: uintptr(unsafe.Pointer(w))})
	}
	return (*atomic.Uint64)(unsafe.Pointer(w))
}

// Uint32At is Uint64At for a 4-byte word, 4-byte aligned: what a futex
// waits on (FutexWait).
func Uint32At(b []byte, off int) *atomic.Uint32 {
	w := (*[4]byte)(b[off:])
	if uintptr(unsafe.Pointer(w))&3 != 0 {
		panic(&viewError{offset: off, size: 4, addr: uintptr(unsafe.Pointer(w))})
	}
	return (*atomic.Uint32)(unsafe.Pointer(w))
}

// Word64At is Uint64At for a word that is written and read with plain
// accesses, ordered by an atomic word written after it and read before it.
func Word64At(b []byte, off int) *uint64 {
	w := (*[8]byte)(b[off:])
	if uintptr(unsafe.Pointer(w))&7 != 0 {
		panic(&viewError{offset: off, size: 8, addr: uintptr(unsafe.Pointer(w))})
	}
	return (*uint64)(unsafe.Pointer(w))
}

// viewError is the panic of a view of a misaligned word. The views panic
// rather than return it: the offsets come from a layout, not from input,
// and the views are on hot paths, where a panic value built in line keeps
// them cheap enough to inline into their callers (a call to a function
// that formats the message would not).
type viewError struct {
	offset, size int
	addr         uintptr // not a multiple of size
}

func (e *viewError) Error() string {
	return fmt.Sprintf("lowlevel: the %d-byte word at offset %d is at address %#x, not a multiple of %d",
		e.size, e.offset, e.addr, e.size)
}
