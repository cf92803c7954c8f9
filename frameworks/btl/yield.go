package btl

import "golang.org/x/sys/unix"

// Yield gives the CPU to another process, for loops that wait while this
// host's ranks outnumber its CPUs (InitEnv.Oversubscribed): runtime.Gosched
// only yields to this process's goroutines. It is a raw system call: the
// Go runtime, told of a system call, hands the rank's P to another thread
// when the call lasts (as a yield does while other ranks run), and getting
// it back costs a thread wake-up.
func Yield() { _, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
