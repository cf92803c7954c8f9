package tcp

import (
	"errors"
	"io"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/frameworks/btl"
)

// inbound reassembles frames from non-blocking reads. Whoever holds the
// connection's read lock drives it: a waiting rank polling through
// Progress, or the connection's reader goroutine when nobody polls.
type inbound struct {
	buf  []byte // small frames arrive here, several per read
	r, w int    // buffered bytes are buf[r:w]

	fh      frameHeader
	haveFH  bool
	haveHdr bool
	hdr     [btl.MaxHeaderSize]byte

	// The payload being read: into the receive buffer (placed), a pooled
	// buffer, or a buffer that grows as bytes arrive (too large to pool).
	payload []byte
	got     int
	placed  bool
	pooled  *[]byte
	growing bool

	// Or into the slices of the receiver's memory that PlaceVector gave
	// (vectored): parts keeps them, scatter their iovecs still to fill.
	vectored bool
	parts    [][]byte
	scatter  iovWindow
}

// directRead is the size above which a payload is read straight into its
// destination rather than through buf.
const directRead = 16 << 10

// errWouldBlock ends a pump that has read everything the socket had.
var errWouldBlock = errors.New("would block")

// pump reads what read gives without blocking and delivers every complete
// frame; readv reads straight into a payload placed in pieces. It returns
// how many it delivered and, when the connection ended or broke, why;
// errWouldBlock when the socket has nothing more (unix.EAGAIN).
// With drain false it also stops after a read that left room in the
// buffer: the socket was then all but certainly empty, and a poller, who
// polls again soon, need not pay a system call to hear EAGAIN. The reader
// goroutine drains before it waits.
func (c *conn) pump(read func([]byte) (int, error), readv func([]unix.Iovec) (int, error), drain bool) (int, error) {
	in := &c.in
	delivered := 0
	short := false
	for {
		n, err := c.parse()
		delivered += n
		if err != nil {
			return delivered, err
		}
		if short && !drain {
			return delivered, errWouldBlock
		}
		var dst []byte
		var k int
		direct := in.direct()
		if direct && in.vectored {
			k, err = readv(in.scatter.pending())
		} else {
			dst = in.readTarget()
			k, err = read(dst)
		}
		switch {
		case err == unix.EAGAIN:
			return delivered, errWouldBlock
		case err == unix.EINTR:
			continue
		case err != nil:
			return delivered, err
		case k == 0:
			if in.haveFH || in.r < in.w {
				return delivered, io.ErrUnexpectedEOF
			}
			return delivered, io.EOF
		}
		switch {
		case !direct:
			in.w += k
			short = k < len(dst)
		case in.vectored:
			in.scatter.advance(k)
			in.got += k
		default:
			in.got += k
		}
	}
}

// direct reports whether the next read goes straight into the payload.
func (in *inbound) direct() bool {
	return in.haveHdr && !in.growing && in.r == in.w && in.fh.PayloadLen-in.got >= directRead
}

// readTarget is where the next read lands: the payload's missing bytes, or
// the free end of buf (compacted first).
func (in *inbound) readTarget() []byte {
	if in.direct() {
		return in.payload[in.got:]
	}
	if in.r == in.w {
		in.r, in.w = 0, 0
	} else if in.r > 0 && len(in.buf)-in.w < frameHeaderSize+btl.MaxHeaderSize {
		in.w = copy(in.buf, in.buf[in.r:in.w])
		in.r = 0
	}
	return in.buf[in.w:]
}

// parse consumes buffered bytes, delivering every frame they complete.
func (c *conn) parse() (int, error) {
	in := &c.in
	delivered := 0
	for {
		if !in.haveFH {
			if in.w-in.r < frameHeaderSize {
				return delivered, nil
			}
			fh, err := decodeFrameHeader(in.buf[in.r : in.r+frameHeaderSize])
			if err != nil {
				return delivered, err
			}
			if fh.Bye {
				return delivered, errBye
			}
			in.r += frameHeaderSize
			in.fh, in.haveFH = fh, true
		}
		if !in.haveHdr {
			n := in.fh.HeaderLen
			if in.w-in.r < n {
				return delivered, nil
			}
			copy(in.hdr[:n], in.buf[in.r:in.r+n])
			in.r += n
			in.haveHdr = true
			c.choosePayload()
		}
		// Take what buf holds of the payload.
		if k := min(in.fh.PayloadLen-in.got, in.w-in.r); k > 0 {
			switch {
			case in.vectored:
				in.scatter.copyIn(in.buf[in.r : in.r+k])
			case in.growing:
				in.payload = append(in.payload, in.buf[in.r:in.r+k]...)
			default:
				copy(in.payload[in.got:], in.buf[in.r:in.r+k])
			}
			in.got += k
			in.r += k
		}
		if in.got < in.fh.PayloadLen {
			return delivered, nil
		}
		c.deliver()
		delivered++
	}
}

// choosePayload picks the destination of the frame whose headers are read.
func (c *conn) choosePayload() {
	in := &c.in
	size := in.fh.PayloadLen
	in.got, in.placed, in.pooled, in.growing = 0, false, nil, false
	switch {
	case size == 0:
		in.payload = nil
	case c.m.placer != nil && c.placeableVector(size):
	case c.placeable(size):
	case in.w-in.r >= size:
		// Already buffered whole: deliver it from there, sparing a copy.
		in.payload = in.buf[in.r : in.r+size]
		in.r += size
		in.got = size
	case c.m.pool.fits(size):
		in.pooled = c.m.pool.get(size)
		in.payload = (*in.pooled)[:size]
	default:
		// A length alone must never cost a large allocation: grow as bytes arrive.
		in.growing = true
		in.payload = make([]byte, 0, c.m.pool.limit())
	}
}

// placeable asks the receiver for the payload's final place.
func (c *conn) placeable(size int) bool {
	in := &c.in
	dst := c.m.recv.Place(c.peer.rank, in.hdr[:in.fh.HeaderLen], size)
	if dst == nil || len(dst) != size {
		return false
	}
	in.payload, in.placed = dst, true
	return true
}

// placeableVector asks the receiver for the slices the payload belongs
// in (btl.VectorPlacer). Slices whose lengths do not add up to size are
// the receiver's mistake: the payload is then read as if it gave none.
func (c *conn) placeableVector(size int) bool {
	in := &c.in
	parts := c.m.placer.PlaceVector(c.peer.rank, in.hdr[:in.fh.HeaderLen], size, in.parts[:0])
	if len(parts) == 0 {
		return false
	}
	in.parts = parts // its array serves the next frame
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n != size {
		c.m.log.Debug("PlaceVector gave slices that do not hold the payload; reading it as if unplaced",
			"peer", c.peer.rank, "size", size, "slices", len(parts), "bytes", n)
		clear(parts)
		return false
	}
	in.scatter.start(parts)
	in.vectored, in.payload = true, nil
	return true
}

// deliver hands the complete frame to the receiver and resets for the next.
func (c *conn) deliver() {
	in := &c.in
	if in.vectored {
		c.m.placer.DeliverVector(c.peer.rank, in.hdr[:in.fh.HeaderLen], in.fh.PayloadLen)
		in.vectored = false
		clear(in.parts) // the receiver's memory is not ours to keep alive
		in.scatter.reset()
		in.haveFH, in.haveHdr = false, false
		return
	}
	c.m.recv.Deliver(c.peer.rank, in.hdr[:in.fh.HeaderLen], in.payload, in.placed)
	if in.pooled != nil {
		c.m.pool.put(in.pooled)
	}
	in.payload, in.pooled = nil, nil
	in.haveFH, in.haveHdr = false, false
}

// isWouldBlock reports whether err only says the socket is empty.
func isWouldBlock(err error) bool {
	// The direct comparison first: an empty poll, the common case, then
	// costs no errors.Is.
	return err == errWouldBlock || errors.Is(err, errWouldBlock) || errors.Is(err, syscall.EAGAIN)
}
