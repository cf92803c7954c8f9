package sm

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations on a word in the shared segment. The segment is a
// shared file mapping, so the process-shared (not private) forms are used.
const (
	futexWait = 0
	futexWake = 1
)

// sleepOn blocks while *w == val, at most d. Spurious returns are fine:
// the caller checks its condition again.
func sleepOn(w *atomic.Uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWait, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// wakeAll wakes whatever sleeps on w.
func wakeAll(w *atomic.Uint32) {
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWake, 1<<30, 0, 0, 0)
}

// alive reports whether process pid still exists.
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// readFrom copies len(dst) bytes at address addr in process pid into dst
// with cross-memory attach (process_vm_readv), in as many calls as the
// kernel needs. It is a raw system call: the runtime is not told, so a
// long copy does not hand this rank's processor to another thread and
// take it back after (the waiting goroutine is the rank's only work).
func readFrom(pid int, addr uintptr, dst []byte) error {
	for len(dst) > 0 {
		local := unix.Iovec{Base: &dst[0]}
		local.SetLen(len(dst))
		remote := unix.RemoteIovec{Base: addr, Len: len(dst)}
		r, _, errno := unix.RawSyscall6(unix.SYS_PROCESS_VM_READV, uintptr(pid),
			uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		n := int(r)
		if errno != 0 {
			return fmt.Errorf("process_vm_readv from pid %d: %w", pid, errno)
		}
		if n <= 0 {
			return fmt.Errorf("process_vm_readv from pid %d read nothing", pid)
		}
		dst = dst[n:]
		addr += uintptr(n)
	}
	return nil
}
