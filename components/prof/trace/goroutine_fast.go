//go:build amd64 || arm64

package trace

// getg returns the address of the calling goroutine's runtime descriptor,
// read from where the runtime keeps it (getg_*.s). It only serves as a key:
// it is never dereferenced.
func getg() uintptr

// goroutineKey identifies the calling goroutine among the live ones in a
// nanosecond. A goroutine that starts after another ended may reuse its
// descriptor, and so its track: their calls never overlap.
func goroutineKey() uintptr { return getg() }
