//go:build !amd64 && !arm64

package trace

// goroutineKey identifies the calling goroutine: by its id, which costs a
// stack trace (microseconds) on the architectures without getg_*.s.
func goroutineKey() uintptr { return uintptr(goid()) }
