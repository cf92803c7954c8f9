package prof

// Ticks reads the processor's time-stamp counter: about a quarter of the
// cost of a clock_gettime through the vDSO on a virtual machine, which
// matters to a tool that reads it twice per call. The counter is invariant
// on every x86-64 processor of the last decade; a Clock converts it.
func Ticks() int64
