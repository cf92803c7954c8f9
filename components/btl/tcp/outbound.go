package tcp

import (
	"runtime"
	"time"
	"unsafe"

	"github.com/gompi/gompi/internal/lowlevel"

	"golang.org/x/sys/unix"
)

// outbound is a frame being written: up to four pieces (held-back
// frames, frame header, upper-layer header, payload) as iovecs, advanced
// as the socket takes bytes. It lives in the connection so that a send
// allocates nothing.
type outbound struct {
	iov   [4]unix.Iovec
	n     int // iovecs left, from first
	first int
	err   error
}

// writeSpin is how long a writer whose socket is full polls and yields to
// the Go scheduler before it waits in poll(2): a peer that reads all along
// drains the socket sooner than a thread is woken.
const writeSpin = 2 * time.Millisecond

func (o *outbound) set(pieces ...[]byte) {
	o.n, o.first, o.err = 0, 0, nil
	for _, p := range pieces {
		if len(p) == 0 {
			continue
		}
		o.iov[o.n].Base = &p[0]
		o.iov[o.n].SetLen(len(p))
		o.n++
	}
}

// clear drops the references to the caller's buffers.
func (o *outbound) clear() { o.iov = [4]unix.Iovec{} }

func (o *outbound) done() bool { return o.first == o.n }

// writeOnce makes one non-blocking write and advances past what it took.
func (o *outbound) writeOnce(fd int) {
	k, err := sendNow(fd, o.iov[o.first:o.n])
	if err != nil {
		o.err = err
		return
	}
	o.err = nil
	for left := int(k); left > 0 && o.first < o.n; {
		v := &o.iov[o.first]
		if uint64(left) < v.Len {
			v.Base = (*byte)(unsafe.Add(unsafe.Pointer(v.Base), left))
			v.SetLen(int(v.Len) - left)
			return
		}
		left -= int(v.Len)
		o.first++
	}
}

// write writes the outbound frame fully: non-blocking writes, polling the
// module's reads and yielding to the Go scheduler while the socket is
// full, then waiting in poll(2) if that lasts.
func (c *conn) write() error {
	o := &c.out
	var start time.Time
	for spins := 0; ; spins++ {
		if err := c.rc.Control(c.writeFn); err != nil {
			return err
		}
		switch {
		case o.done():
			return nil
		case o.err != unix.EAGAIN && o.err != unix.EINTR && o.err != nil:
			return o.err
		}
		if spins%64 == 63 {
			if start.IsZero() {
				start = time.Now()
			} else if time.Since(start) > writeSpin {
				break
			}
		}
		// Read while waiting for room: when both ends of a busy pair write,
		// each socket drains only if its reader reads.
		c.m.Progress()
		runtime.Gosched()
		if c.m.oversubscribed {
			lowlevel.Yield() // the peer may be waiting for this CPU to drain the socket
		}
	}
	// The peer is not reading: wait for room where waiting costs nothing.
	if err := c.rc.Write(c.writeWaitFn); err != nil {
		return err
	}
	if !o.done() {
		return o.err
	}
	return nil
}
