//go:build !(amd64 || arm64) || purego

package lowlevel

// GoroutineKey identifies the calling goroutine among the live ones: here
// by its id, which costs a stack trace (microseconds), on the
// architectures without getg_*.s.
func GoroutineKey() uintptr { return uintptr(GoroutineID()) }
