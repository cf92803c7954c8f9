package tcp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The data path's system calls. A system call costs hundreds of
// nanoseconds on a virtual machine, and a polling rank makes one per
// poll, so these trim what they can: recvfrom, recvmsg and sendmsg skip
// the VFS layer that read, readv and writev pass through, and every call
// is made raw, without telling the Go scheduler. entersyscall and
// exitsyscall cost more than 10% of an empty poll, and a large transfer
// through them let the scheduler hand the rank's only P to another thread
// while the kernel copied, to be taken back at the end: streaming
// 128 KiB-4 MiB messages went 1.1-1.45 times faster raw (gompi-bench bw;
// docs/performance.md, tcp). Raw calls are safe because the socket never
// blocks (it is non-blocking and the flags say so again), and short
// because no call moves more than maxCall bytes, the largest fragment by
// default, or takes more than iovMax iovecs: a garbage collection that
// must stop this thread waits for one copy of 4 MiB at most, under a
// millisecond here.

// maxCall is the most bytes one system call reads or writes.
const maxCall = 4 << 20

// recvNow reads what the socket holds into p, at most maxCall bytes,
// without blocking.
func recvNow(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	p = p[:min(len(p), maxCall)]
	// A direct call, not a function value: only it keeps the pointer
	// passed as uintptr valid.
	n, _, errno := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		unix.MSG_DONTWAIT, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// sendNow writes iov to the socket without blocking, at most maxCall
// bytes and iovMax iovecs of it. MSG_NOSIGNAL: a peer that went away is
// an error, not a signal. One iovec goes by sendto, which costs the
// kernel less than sendmsg.
func sendNow(fd int, iov []unix.Iovec) (int, error) {
	const flags = unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL
	if len(iov) != 1 {
		return msgNow(unix.SYS_SENDMSG, fd, iov, flags)
	}
	n, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(iov[0].Base)),
		uintptr(min(iov[0].Len, maxCall)), flags, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// recvvNow reads what the socket holds into iov (readv), at most maxCall
// bytes and iovMax iovecs of it, without blocking.
func recvvNow(fd int, iov []unix.Iovec) (int, error) {
	return msgNow(unix.SYS_RECVMSG, fd, iov, unix.MSG_DONTWAIT)
}

// msgNow makes the sendmsg or recvmsg call trap over iov, capped in place
// for the call.
func msgNow(trap uintptr, fd int, iov []unix.Iovec, flags int) (int, error) {
	if len(iov) == 0 {
		return 0, nil
	}
	n, full := capIovecs(iov, maxCall)
	msg := unix.Msghdr{Iov: &iov[0]}
	msg.SetIovlen(n)
	k, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&msg)), uintptr(flags))
	if full != 0 {
		iov[n-1].Len = full
	}
	if errno != 0 {
		return 0, errno
	}
	return int(k), nil
}

// capIovecs cuts iov, in place, to its first iovMax iovecs and limit
// bytes. It returns how many iovecs to pass and, when it shortened the
// last of them, that one's length to restore after the call (else 0).
func capIovecs(iov []unix.Iovec, limit uint64) (n int, full uint64) {
	n = min(len(iov), iovMax)
	for i := range n {
		if v := &iov[i]; v.Len >= limit {
			if v.Len > limit {
				full, v.Len = v.Len, limit
			}
			return i + 1, full
		}
		limit -= iov[i].Len
	}
	return n, 0
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
