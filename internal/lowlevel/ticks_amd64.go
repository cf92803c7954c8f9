//go:build !purego

package lowlevel

// Ticks reads the processor's time-stamp counter (RDTSC, ticks_amd64.s):
// 11 ns here against 26 for a clock_gettime through the vDSO on a virtual
// machine, which matters to a tool that reads it twice per call. The
// counter is invariant (a constant rate, whatever the core's frequency) on
// every x86-64 processor of the last decade; its rate is measured against
// the wall clock by whoever converts it. RDTSC does not wait for earlier
// instructions: a reading may be a few dozen cycles early, which a
// measurement of a call does not notice. Cores keep their counters in
// step, but a goroutine that moves to a core whose counter runs behind may
// read a smaller value than it did before.
func Ticks() int64
