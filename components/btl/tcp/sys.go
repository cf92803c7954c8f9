package tcp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The data path's system calls. A system call costs hundreds of
// nanoseconds on a virtual machine, and a polling rank makes one per
// poll, so these trim what they can: recvfrom and sendmsg skip the VFS
// layer that read and writev pass through, and a call that cannot take
// long is made raw, without telling the Go scheduler (entersyscall and
// exitsyscall cost more than 10% of an empty poll). Both are safe because
// the socket never blocks: it is non-blocking and the flags say so again.

// rawLimit is the largest transfer made as a raw system call: copying more
// could hold the thread long enough to delay the garbage collector.
const rawLimit = 64 << 10

// recvNow reads what the socket holds into p without blocking.
func recvNow(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	// Direct calls, not a function value: only they keep the pointers
	// passed as uintptr valid.
	var n uintptr
	var errno unix.Errno
	if len(p) <= rawLimit {
		n, _, errno = unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
			unix.MSG_DONTWAIT, 0, 0)
	} else {
		n, _, errno = unix.Syscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
			unix.MSG_DONTWAIT, 0, 0)
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// sendNow writes iov to the socket without blocking; size is their total
// length. MSG_NOSIGNAL: a peer that went away is an error, not a signal.
func sendNow(fd int, iov []unix.Iovec, size int) (int, error) {
	msg := unix.Msghdr{Iov: &iov[0]}
	msg.SetIovlen(len(iov))
	var n uintptr
	var errno unix.Errno
	if size <= rawLimit {
		n, _, errno = unix.RawSyscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
	} else {
		n, _, errno = unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// writable reports whether the socket has room for a write, by asking
// poll(2): that takes no socket lock, and it says yes only once a third
// of the send buffer is free, so the write that follows moves a large
// piece rather than the few kilobytes the last acknowledgement freed.
func writable(fd int) bool {
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLOUT}
	var ts unix.Timespec
	n, _, errno := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return errno != 0 || n > 0 // on an error, let the write find it
}
