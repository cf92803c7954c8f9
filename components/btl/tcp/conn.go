package tcp

import (
	"bufio"
	"errors"
	"io"
	"math/bits"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// readBufSize buffers small frames so a header, upper-layer header and short
// payload cost one read; longer payloads bypass it.
const readBufSize = 32 << 10

// errBye marks a connection its peer closed after saying goodbye.
var errBye = errors.New("peer said goodbye")

// conn is one authenticated connection to a peer.
type conn struct {
	m    *Module
	peer *peer // set once authenticated
	nc   *net.TCPConn
	br   *bufio.Reader // the handshake reads through it too, so no byte is lost

	closeOnce sync.Once

	// The write side: wmu keeps frames whole; the scratch avoids allocating per send.
	wmu  sync.Mutex
	wfh  [FrameHeaderSize]byte
	iov  [3][]byte
	bufs net.Buffers
	werr error // sticky: a failed write leaves the stream unusable

	// The reader goroutine's own scratch.
	rfh  [FrameHeaderSize]byte
	rhdr [btl.MaxHeaderSize]byte
}

func newConn(m *Module, nc *net.TCPConn) *conn {
	return &conn{m: m, nc: nc, br: bufio.NewReaderSize(nc, readBufSize)}
}

// send writes one frame with a single writev.
func (c *conn) send(hdr, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	FrameHeader{HeaderLen: len(hdr), PayloadLen: len(payload)}.Put(c.wfh[:])
	c.iov = [3][]byte{c.wfh[:], hdr, payload}
	n := 3
	if len(payload) == 0 {
		n = 2
	}
	c.bufs = c.iov[:n]
	_, err := c.bufs.WriteTo(c.nc)
	c.iov = [3][]byte{} // do not keep the caller's buffers alive
	c.bufs = nil
	if err != nil {
		c.werr = err
	}
	return err
}

// bye tells the peer this side is finalizing, so it does not take the EOF
// that follows for a failure. A peer that does not read gets no goodbye.
func (c *conn) bye(timeout time.Duration) {
	c.nc.SetWriteDeadline(time.Now().Add(timeout))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return
	}
	FrameHeader{Bye: true}.Put(c.wfh[:])
	if _, err := c.nc.Write(c.wfh[:]); err != nil {
		c.werr = err
	}
}

func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.nc.Close()
		c.m.untrack(c)
	})
}

// readLoop delivers frames until the connection ends, then reports why.
func (c *conn) readLoop() {
	err := c.readFrames(c.m.recv)
	c.close()
	c.m.connEnded(c, err)
}

// readFrames reads and delivers frames. It blocks only on the socket; the
// receiver's methods do not block.
func (c *conn) readFrames(recv btl.Receiver) error {
	from := c.peer.rank
	for {
		if _, err := io.ReadFull(c.br, c.rfh[:]); err != nil {
			return err
		}
		h, err := DecodeFrameHeader(c.rfh[:])
		if err != nil {
			return err
		}
		if h.Bye {
			return errBye
		}
		hdr := c.rhdr[:h.HeaderLen]
		if _, err := io.ReadFull(c.br, hdr); err != nil {
			return noEOF(err)
		}
		if h.PayloadLen == 0 {
			recv.Deliver(from, hdr, nil, false)
			continue
		}
		if dst := recv.Place(from, hdr, h.PayloadLen); dst != nil && len(dst) == h.PayloadLen {
			if _, err := io.ReadFull(c.br, dst); err != nil {
				return noEOF(err)
			}
			recv.Deliver(from, hdr, dst, true)
			continue
		}
		if !c.m.pool.fits(h.PayloadLen) {
			payload, err := readGrowing(c.br, h.PayloadLen, c.m.pool.limit())
			if err != nil {
				return err
			}
			recv.Deliver(from, hdr, payload, false)
			continue
		}
		buf := c.m.pool.get(h.PayloadLen)
		payload := (*buf)[:h.PayloadLen]
		if _, err := io.ReadFull(c.br, payload); err != nil {
			return noEOF(err)
		}
		recv.Deliver(from, hdr, payload, false)
		c.m.pool.put(buf)
	}
}

// readGrowing reads n bytes into a buffer that doubles from start as the
// bytes arrive, so a length alone never costs a large allocation.
func readGrowing(r io.Reader, n, start int) ([]byte, error) {
	b := make([]byte, 0, min(n, start))
	for len(b) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(n, 2*cap(b))-len(b))
		}
		k, err := io.ReadFull(r, b[len(b):min(cap(b), n)]) // Grow may round cap up
		b = b[:len(b)+k]
		if err != nil {
			return nil, noEOF(err)
		}
	}
	return b, nil
}

// noEOF turns an EOF inside a frame into the error it is.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// bufPool recycles payload buffers in power-of-two classes from 4 KiB up to
// a limit; larger payloads get a buffer of their own.
type bufPool struct {
	classes []sync.Pool
}

const (
	minClassShift = 12
	maxPooled     = 64 << 20
)

func newBufPool(limit int) *bufPool {
	limit = min(max(limit, 1<<minClassShift), maxPooled)
	return &bufPool{classes: make([]sync.Pool, class(limit)+1)}
}

func (p *bufPool) limit() int { return 1 << (len(p.classes) - 1 + minClassShift) }

func (p *bufPool) fits(n int) bool { return n <= p.limit() }

func class(n int) int {
	return max(bits.Len(uint(n-1))-minClassShift, 0)
}

// get returns a buffer of at least n bytes; n must fit.
func (p *bufPool) get(n int) *[]byte {
	k := class(n)
	if b, ok := p.classes[k].Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 1<<(k+minClassShift))
	return &b
}

func (p *bufPool) put(b *[]byte) {
	k := class(cap(*b))
	if k < len(p.classes) && cap(*b) == 1<<(k+minClassShift) {
		p.classes[k].Put(b)
	}
}
