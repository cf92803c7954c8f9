package stats

// callers fills pcs with the return addresses of the frames above its
// caller's, by following the frame-pointer chain, as the runtime's
// execution tracer does: a few nanoseconds where runtime.Callers takes
// hundreds. The addresses are what runtime.CallersFrames expects.
//
//go:noescape
func callers(pcs []uintptr) int
