package stats

// ticks reads the processor's time-stamp counter: about a quarter of the
// cost of a clock_gettime through the vDSO on a virtual machine, which
// matters at two reads per call. The counter is invariant on every x86-64
// processor of the last decade; report time converts ticks to seconds
// with the rate measured against the wall clock over the whole run.
func ticks() int64

// callers fills pcs with the return addresses of the frames above its
// caller's, by following the frame-pointer chain, as the runtime's
// execution tracer does: a few nanoseconds where runtime.Callers takes
// hundreds. The addresses are what runtime.CallersFrames expects.
//
//go:noescape
func callers(pcs []uintptr) int
