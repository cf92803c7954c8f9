package tcp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// iovMax is the most iovecs one sendmsg or recvmsg takes (IOV_MAX).
const iovMax = 1024

// iovWindow is a list of slices as iovecs for vectored system calls. A
// payload in pieces may have more of them than a call takes, so the
// window holds at most iovMax iovecs at a time: a call moves bytes from
// iov[first:], advance steps past them, and the slices not yet in the
// window (rest) refill it. The window keeps its array between uses: a
// vectored send or read allocates nothing once it has grown.
//
// The window is never empty while slices remain: done is then one
// comparison, as on the path of single payloads, which points iov at
// iovecs of their own.
type iovWindow struct {
	iov   []unix.Iovec // iov[first:] are still to move
	first int
	rest  [][]byte     // the slices after the window
	arr   []unix.Iovec // the window's own array, kept between uses
	dirty int          // how many of arr's entries may point at slices
}

// iovec describes p, which must not be empty.
func iovec(p []byte) unix.Iovec {
	v := unix.Iovec{Base: &p[0]}
	v.SetLen(len(p))
	return v
}

// start makes the window the iovecs of prefix then parts; empty slices
// are left out.
func (w *iovWindow) start(parts [][]byte, prefix ...[]byte) {
	if w.arr == nil {
		w.arr = make([]unix.Iovec, 0, min(len(prefix)+len(parts), iovMax))
	}
	w.iov, w.first, w.rest = w.arr[:0], 0, parts
	for _, p := range prefix {
		if len(p) > 0 {
			w.iov = append(w.iov, iovec(p))
		}
	}
	w.refill()
}

// refill moves the iovecs still to move to the front of the window and
// appends the next slices, up to iovMax in all.
func (w *iovWindow) refill() {
	k := copy(w.arr[:cap(w.arr)], w.iov[w.first:])
	w.iov, w.first = w.arr[:k], 0
	for len(w.iov) < iovMax && len(w.rest) > 0 {
		if p := w.rest[0]; len(p) > 0 {
			w.iov = append(w.iov, iovec(p))
		}
		w.rest = w.rest[1:]
	}
	w.arr = w.iov[:0] // append may have grown it
	w.dirty = max(w.dirty, len(w.iov))
}

func (w *iovWindow) done() bool { return w.first == len(w.iov) }

// pending returns the iovecs of the next call, refilled once they are
// down to half a batch, so that a call rarely gets few.
func (w *iovWindow) pending() []unix.Iovec {
	if len(w.rest) > 0 && len(w.iov)-w.first < iovMax/2 {
		w.refill()
	}
	return w.iov[w.first:]
}

// advance steps past the first k bytes still to move, within an iovec
// where a call stopped in one.
func (w *iovWindow) advance(k int) {
	for left := k; left > 0 && w.first < len(w.iov); {
		v := &w.iov[w.first]
		if uint64(left) < v.Len {
			v.Base = (*byte)(unsafe.Add(unsafe.Pointer(v.Base), left))
			v.SetLen(int(v.Len) - left)
			return
		}
		left -= int(v.Len)
		w.first++
	}
	if w.first == len(w.iov) && len(w.rest) > 0 {
		w.refill()
	}
}

// copyIn copies src into the slices still to fill, as a read into them
// would, and returns how many bytes it copied.
func (w *iovWindow) copyIn(src []byte) int {
	n := 0
	for n < len(src) && !w.done() {
		v := w.iov[w.first]
		k := copy(unsafe.Slice(v.Base, v.Len), src[n:])
		n += k
		w.advance(k)
	}
	return n
}

// reset drops the references to the slices, keeping the array.
func (w *iovWindow) reset() {
	clear(w.arr[:w.dirty])
	w.dirty = 0
	w.iov, w.first, w.rest = nil, 0, nil
}
