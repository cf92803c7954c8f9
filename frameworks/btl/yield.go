package btl

import "golang.org/x/sys/unix"

// Yield gives the CPU to another process, for loops that wait while this
// host's ranks outnumber its CPUs (InitEnv.Oversubscribed): runtime.Gosched
// only yields to this process's goroutines.
func Yield() { _, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
