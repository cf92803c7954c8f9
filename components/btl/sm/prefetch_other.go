//go:build !amd64

package sm

// Where there is no prefetch instruction to call, the prefetches do
// nothing.

func prefetchLines(*byte, int)  {}
func prefetchwLines(*byte, int) {}
