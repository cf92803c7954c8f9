package tcp

import (
	"time"

	"github.com/gompi/gompi/internal/lowlevel"

	"golang.org/x/sys/unix"
)

// outbound is a frame being written: its pieces (held-back frames, frame
// header, upper-layer header, then the payload in one slice or several)
// as iovecs, advanced as the socket takes bytes. It lives in the
// connection so that a send allocates nothing: a frame with one payload
// uses the four iovecs of fixed, a payload in pieces the window's own.
type outbound struct {
	iovWindow
	fixed [4]unix.Iovec
	err   error
}

// writeSpin is how long a writer whose socket is full polls and yields to
// the Go scheduler before it waits in poll(2): a peer that reads all along
// drains the socket sooner than a thread is woken.
const writeSpin = 2 * time.Millisecond

func (o *outbound) set(pieces ...[]byte) {
	n := 0
	for _, p := range pieces {
		if len(p) == 0 {
			continue
		}
		o.fixed[n] = iovec(p)
		n++
	}
	o.iov, o.first, o.err = o.fixed[:n], 0, nil
}

// setVector is set for a payload in parts, after the pieces of prefix.
func (o *outbound) setVector(parts [][]byte, prefix ...[]byte) {
	o.start(parts, prefix...)
	o.err = nil
}

// clear drops the references to the caller's buffers.
func (o *outbound) clear() {
	o.fixed = [4]unix.Iovec{}
	if o.dirty > 0 {
		o.reset()
	}
}

// writeOnce makes one non-blocking write and advances past what it took.
func (o *outbound) writeOnce(fd int) {
	k, err := sendNow(fd, o.pending())
	if err != nil {
		o.err = err
		return
	}
	o.err = nil
	o.advance(k)
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
		lowlevel.Gosched()
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
