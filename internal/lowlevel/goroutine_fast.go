//go:build (amd64 || arm64) && !purego

package lowlevel

// getg returns the address of the calling goroutine's runtime descriptor
// (the runtime's g), read where the runtime keeps it for assembly
// (getg_*.s). It only serves as a key: it is never dereferenced.
func getg() uintptr

// GoroutineKey identifies the calling goroutine among the live ones, in
// nanoseconds where GoroutineID takes microseconds: the address of its
// runtime descriptor. The runtime never moves a descriptor, but a
// goroutine that starts after another ended may reuse it, and so its key:
// their lives never overlap.
func GoroutineKey() uintptr { return getg() }
