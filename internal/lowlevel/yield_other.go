//go:build !linux

package lowlevel

import "runtime"

// Yield gives the CPU to other goroutines only: without sched_yield's raw
// system call, a yield to the kernel would cost the thread its P.
func Yield() { runtime.Gosched() }
