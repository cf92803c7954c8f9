package pmpi

import "sync/atomic"

// ForeignCaller is how a binding of gompi for another language (the C
// library) names its callers' call sites in state reports, which Go's
// stacks cannot: they end where C called in.
type ForeignCaller struct {
	// PC returns, on the thread of a call that waits, the return address
	// in its caller; 0 where unknown (a profiling tool between them).
	PC func() uintptr
	// Site names the place of a PC from PC: "file.c:12", or a function
	// and offset when the program has no line tables.
	Site func(pc uintptr) string
}

// foreignCaller is the binding's, set once before Init.
var foreignCaller atomic.Pointer[ForeignCaller]

// SetForeignCaller registers the binding's ForeignCaller: the C library
// does, as it loads, before any call.
func SetForeignCaller(fc ForeignCaller) { foreignCaller.Store(&fc) }

// foreignSite names where a foreign caller called.
func foreignSite(pc uintptr) string {
	if fc := foreignCaller.Load(); fc != nil && pc != 0 {
		if s := fc.Site(pc); s != "" {
			return s
		}
	}
	return "a C caller"
}
