package lowlevel

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations, in their process-shared forms (no FUTEX_PRIVATE_FLAG):
// the words live in shared file mappings that other processes wait on.
const (
	futexWait = 0 // FUTEX_WAIT
	futexWake = 1 // FUTEX_WAKE
)

// FutexWait blocks while *w == val, for at most d, which must not be
// negative. It returns nil when woken (which may be spurious), unix.EAGAIN
// at once when *w != val, unix.ETIMEDOUT after d and unix.EINTR when a
// signal came. Callers check their condition again whatever it returns.
// The runtime is told of the call, so it runs this process's other
// goroutines meanwhile on another thread.
func FutexWait(w *atomic.Uint32, val uint32, d time.Duration) error {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWait, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	return errnoErr(errno)
}

// FutexWaitRaw is FutexWait as a raw system call: the runtime is not told,
// so the thread keeps its P while it sleeps, and the goroutine runs again
// at once when woken, without waiting for a P. For a rank whose only work
// is the wait, woken by another process: with GOMAXPROCS 1 no goroutine of
// its own process runs until the wait ends. The runtime counts the
// goroutine as running, so a stop-the-world interrupts the wait with a
// signal (EINTR) and waits until it has returned: keep d short.
func FutexWaitRaw(w *atomic.Uint32, val uint32, d time.Duration) error {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	_, _, errno := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWait, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	return errnoErr(errno)
}

// FutexWake wakes every thread, of any process, asleep on w, and returns
// how many it woke. It cannot fail: the kernel refuses only a misaligned or
// unmapped word, which a *atomic.Uint32 is not.
func FutexWake(w *atomic.Uint32) int {
	n, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWake, 1<<30, 0, 0, 0)
	if errno != 0 {
		return 0
	}
	return int(n)
}

// errnoErr is nil for 0, else errno: a zero unix.Errno in an error is not
// a nil error.
func errnoErr(errno unix.Errno) error {
	if errno == 0 {
		return nil
	}
	return errno
}
