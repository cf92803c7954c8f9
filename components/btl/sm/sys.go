package sm

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

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
	if len(dst) == 0 {
		return nil
	}
	return readMany(pid, []uintptr{addr}, [][]byte{dst})
}

// maxVector bounds the buffers of one process_vm_readv call (the kernel
// takes up to 1024).
const maxVector = 64

// maxCopyCall bounds the bytes of one raw process_vm_readv or _writev
// call. The runtime cannot run the rank's other goroutines, its timers or
// a garbage collection's stop while one runs (GOMAXPROCS is 1 in a job):
// a copy of a gigabyte held them for seconds. Between calls the goroutine
// yields. Messages up to this size take one call, as before.
const maxCopyCall = 4 << 20

// copyCallDone yields the processor between the calls of a long copy.
func copyCallDone(more bool) {
	if more {
		runtime.Gosched()
	}
}

// readMany copies, for each i, len(dsts[i]) bytes at address addrs[i] in
// process pid into dsts[i], none of them empty, in as few calls as the
// kernel allows: a call costs about 2 us before it copies a byte. The
// kernel may stop early, but only between whole pages of a buffer.
func readMany(pid int, addrs []uintptr, dsts [][]byte) error {
	var local [maxVector]unix.Iovec
	var remote [maxVector]unix.RemoteIovec
	i, off := 0, 0 // the next byte to read is dsts[i][off]
	for i < len(dsts) {
		n, total := 0, 0
		for j := i; j < len(dsts) && n < maxVector && total < maxCopyCall; j++ {
			d, a := dsts[j], addrs[j]
			if j == i {
				d, a = d[off:], a+uintptr(off)
			}
			d = d[:min(len(d), maxCopyCall-total)]
			total += len(d)
			local[n].Base = &d[0]
			local[n].SetLen(len(d))
			remote[n] = unix.RemoteIovec{Base: a, Len: len(d)}
			n++
		}
		r, _, errno := unix.RawSyscall6(unix.SYS_PROCESS_VM_READV, uintptr(pid),
			uintptr(unsafe.Pointer(&local[0])), uintptr(n), uintptr(unsafe.Pointer(&remote[0])), uintptr(n), 0)
		if errno != 0 {
			return fmt.Errorf("process_vm_readv from pid %d: %w", pid, errno)
		}
		if int(r) <= 0 {
			return fmt.Errorf("process_vm_readv from pid %d read nothing", pid)
		}
		i, off = advance(dsts, i, off, int(r))
		copyCallDone(i < len(dsts))
	}
	return nil
}

// advance moves the position dsts[i][off] on by n bytes copied, to the
// next byte to copy.
func advance(dsts [][]byte, i, off, n int) (int, int) {
	for n > 0 {
		if left := len(dsts[i]) - off; n >= left {
			n -= left
			i, off = i+1, 0
		} else {
			off += n
			n = 0
		}
	}
	return i, off
}
