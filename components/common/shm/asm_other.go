//go:build !amd64

package shm

import "unsafe"

// Where there is no prefetch instruction to call, the prefetches do
// nothing, and the string copy and non-temporal stores are Go's copy.

func prefetchLines(*byte, int)  {}
func prefetchwLines(*byte, int) {}

func copyString(dst, src *byte, n int) {
	copy(unsafe.Slice(dst, n), unsafe.Slice(src, n))
}

func copyNT(dst, src *byte, n int) {
	copy(unsafe.Slice(dst, n), unsafe.Slice(src, n))
}
