package lowlevel

import "golang.org/x/sys/unix"

// Yield gives the CPU to another process, for loops that wait while the
// host's ranks outnumber its CPUs: runtime.Gosched only yields to this
// process's goroutines. It is a raw system call: told of a system call,
// the Go runtime hands the calling thread's P to another thread when the
// call lasts (as a yield does while other processes run), and getting it
// back costs a thread wake-up.
func Yield() { schedYield() }

// schedYield is Yield with the call's error, for the tests: sched_yield
// always succeeds.
func schedYield() unix.Errno {
	_, _, errno := unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
	return errno
}
