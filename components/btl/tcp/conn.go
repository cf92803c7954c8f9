package tcp

import (
	"errors"
	"fmt"
	"math/bits"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

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
	id   int32 // in the module's readers and its epoll set
	nc   *net.TCPConn

	closeOnce sync.Once
	closed    chan struct{}        // closed when close begins
	sock      atomic.Pointer[sock] // the socket once out of the netpoller (detach)
	deleted   atomic.Bool          // DelProcs ended it: not a failure

	// The write side: wmu keeps frames whole; the scratch avoids allocating per send.
	wmu         sync.Mutex
	wfh         [frameHeaderSize]byte
	out         outbound
	writeFn     func(fd uintptr)      // one non-blocking write
	writeWaitFn func(fd uintptr) bool // writes until done, waiting for room
	werr        error                 // sticky: a failed write leaves the stream unusable

	// Frames that non-blocking sends held back (post), whole, to be written
	// before the next frame or by the next poll; held is their length, for
	// pollers that look without the lock.
	stage []byte
	held  atomic.Int32
	// paced: the socket's congestion control paces the sender (bbr), and
	// rendezvous fragments over it are at most pacedFragment. Set before
	// the connection carries a frame.
	paced bool

	// The read side: whoever holds rmu (the reader goroutine or a poller)
	// drives in; rend is why the connection ended, once it has.
	rmu     sync.Mutex
	rc      syscall.RawConn
	in      inbound
	rend    error
	fd      int                             // valid only inside rc.Read
	readFD  func([]byte) (int, error)       // these three are built once:
	readvFD func([]unix.Iovec) (int, error) // a closure per call would
	pollFn  func(fd uintptr)                // allocate
	polled  int
	pollErr error
}

func newConn(m *Module, nc *net.TCPConn) *conn {
	c := &conn{m: m, nc: nc, closed: make(chan struct{})}
	// A TCPConn's SyscallConn fails only once it is closed; then so do its uses.
	c.rc, _ = nc.SyscallConn()
	c.writeFn = func(fd uintptr) {
		if c.out.err == unix.EAGAIN && !writable(int(fd)) {
			return // still full
		}
		c.out.writeOnce(int(fd))
	}
	c.writeWaitFn = func(fd uintptr) bool {
		for {
			c.out.writeOnce(int(fd))
			switch {
			case c.out.done():
				return true
			case c.out.err == unix.EAGAIN:
				return false // wait for room
			case c.out.err != nil && c.out.err != unix.EINTR:
				return true // failed: write reports it
			}
		}
	}
	c.readFD = func(p []byte) (int, error) { return recvNow(c.fd, p) }
	c.readvFD = func(iov []unix.Iovec) (int, error) { return recvvNow(c.fd, iov) }
	c.pollFn = func(fd uintptr) {
		c.fd = int(fd)
		c.polled, c.pollErr = c.pump(c.readFD, c.readvFD, false)
	}
	return c
}

// stageCap bounds the frames held back on one connection.
const stageCap = 64 << 10

// copyBelow is the largest frame send copies into the stage to write as
// one buffer: the kernel takes one buffer (sendto) for less than it takes
// several iovecs, and copying this much costs less than the difference.
const copyBelow = 512

// send writes one frame after the frames held back: a small one copied
// behind them and written as one buffer, a larger one in a vectored
// write. With post it may hold the frame back too.
func (c *conn) send(hdr, payload []byte, post bool) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	frameHeader{HeaderLen: len(hdr), PayloadLen: len(payload)}.Put(c.wfh[:])
	if post && c.hold(hdr, payload) {
		return nil
	}
	if n := frameHeaderSize + len(hdr) + len(payload); n <= copyBelow && len(c.stage)+n <= stageCap {
		c.stageFrame(hdr, payload)
		c.out.set(c.stage)
	} else {
		c.out.set(c.stage, c.wfh[:], hdr, payload)
	}
	return c.written(c.write())
}

// sendVector writes one frame whose payload, n bytes, is the
// concatenation of parts, after the frames held back: a frame of pieces
// is never held, as a Send is not.
func (c *conn) sendVector(hdr []byte, parts [][]byte, n int) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	frameHeader{HeaderLen: len(hdr), PayloadLen: n}.Put(c.wfh[:])
	c.out.setVector(parts, c.stage, c.wfh[:], hdr)
	return c.written(c.write())
}

// hold copies the frame whose header is in wfh into the stage, if it is
// small and fits. The first frame held wakes the module's flusher, which
// writes the stage soon unless a poll, a send or a wait does first.
func (c *conn) hold(hdr, payload []byte) bool {
	limit := c.m.cfg.coalesceLimit
	n := frameHeaderSize + len(hdr) + len(payload)
	if limit == 0 || len(payload) > limit || len(c.stage)+n > stageCap {
		return false
	}
	first := len(c.stage) == 0
	c.stageFrame(hdr, payload)
	c.held.Store(int32(len(c.stage)))
	if first {
		c.m.noteHeld(c)
	}
	return true
}

// stageFrame appends the frame whose header is in wfh to the stage.
func (c *conn) stageFrame(hdr, payload []byte) {
	if c.stage == nil {
		c.stage = make([]byte, 0, 4<<10) // grows to stageCap only where windows are that large
	}
	c.stage = append(append(append(c.stage, c.wfh[:]...), hdr...), payload...)
}

// written ends a write of out, which included the stage: both are
// emptied, and an error is kept, since the stream is now unusable.
func (c *conn) written(err error) error {
	c.out.clear() // do not keep the caller's buffers alive
	c.stage = c.stage[:0]
	c.held.Store(0)
	if err != nil {
		c.werr = err
	}
	return err
}

// flush writes the frames held back, if any. A poller passes wait false
// and skips a connection another goroutine is writing to: that write
// takes the held frames with it. It returns how many flushes it made (0
// or 1); a failed write fails the peer.
func (c *conn) flush(wait bool) int {
	if c.held.Load() == 0 {
		return 0
	}
	if wait {
		c.wmu.Lock()
	} else if !c.wmu.TryLock() {
		return 0
	}
	if len(c.stage) == 0 || c.werr != nil {
		c.wmu.Unlock()
		return 0
	}
	c.out.set(c.stage)
	err := c.written(c.write())
	c.wmu.Unlock()
	if err != nil {
		c.m.failPeer(c.peer, fmt.Errorf("send to world rank %d: %w: %w", c.peer.rank, btl.ErrPeerFailed, err))
	}
	return 1
}

// bye tells the peer this side is finalizing, so it does not take the EOF
// that follows for a failure. A peer that does not read gets no goodbye.
func (c *conn) bye(timeout time.Duration) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	s := c.sock.Load()
	if c.werr != nil || s == nil {
		return
	}
	frameHeader{Bye: true}.Put(c.wfh[:])
	err := s.writeWithin(append(c.stage, c.wfh[:]...), timeout) // held-back frames first
	c.stage = c.stage[:0]
	c.held.Store(0)
	if err != nil {
		c.werr = err
	}
}

func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.nc.Close()
		if s := c.sock.Load(); s != nil {
			s.close()
		}
		c.m.untrack(c)
	})
}

// detach takes c's socket, authenticated and with its options set, out of
// Go's netpoller (see sock), before anything else can use c: a duplicate
// descriptor the runtime does not know replaces nc's, which is closed.
// Without wakers (no epoll) c stays in the netpoller.
func (c *conn) detach() error {
	w := c.m.wakers
	if w == nil {
		return nil
	}
	fd := -1
	var derr error
	if err := c.rc.Control(func(nfd uintptr) { fd, derr = unix.FcntlInt(nfd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return err
	}
	if derr != nil {
		return fmt.Errorf("duplicating the socket's descriptor: %w", derr)
	}
	c.nc.Close()
	s := w.attach(fd)
	c.rc = s
	c.sock.Store(s)
	select {
	case <-c.closed: // closed meanwhile, before it saw s
		s.close()
		return net.ErrClosed
	default:
		return nil
	}
}

// readLoop reads the connection until it ends, then reports why. It reads
// only while nobody polls: a waiting rank polls every connection itself
// (Module.Progress), which is faster than being woken, and this goroutine
// naps meanwhile so that it is not woken per message.
// When polling stops it resumes, so messages still progress while the
// rank computes.
func (c *conn) readLoop() {
	err := c.read()
	c.m.stopReading(c)
	c.close()
	c.m.connEnded(c, err)
}

func (c *conn) read() error {
	rc := c.rc
	if rc == nil {
		return net.ErrClosed
	}
	c.rmu.Lock()
	// Allocated only now: the handshake read exact message sizes straight
	// from the socket, so no frame byte is buffered anywhere else.
	c.in.buf = make([]byte, readBufSize)
	c.rmu.Unlock()
	c.m.startReading(c)
	for first := true; ; first = false {
		if !first {
			c.m.napWhilePolled(c.closed)
		}
		seen := c.m.polls.Load()
		var perr error
		rerr := rc.Read(func(fd uintptr) bool {
			if c.m.polls.Load() != seen {
				return true // a rank polls: leave the socket to it
			}
			if !c.rmu.TryLock() {
				// A poller has the socket. Waiting for the next readiness
				// here could wait for ever: the poller may stop short of the
				// bytes that woke this reader, and no new edge comes for
				// them. Nap and look again instead.
				return true
			}
			if c.m.polls.Load() != seen {
				// A rank began polling while we took the lock: whoever
				// takes it after that rank's poll must leave the bytes to it.
				c.rmu.Unlock()
				return true
			}
			if c.rend == nil {
				c.fd = int(fd)
				if _, err := c.pump(c.readFD, c.readvFD, true); !isWouldBlock(err) {
					c.rend = err
				}
			}
			perr = c.rend
			c.rmu.Unlock()
			return perr != nil
		})
		if perr != nil {
			return perr
		}
		if rerr != nil {
			c.rmu.Lock()
			end := c.rend // a poller may have seen the end and closed the socket
			c.rmu.Unlock()
			if end != nil {
				return end
			}
			return rerr
		}
	}
}

// poll reads what the socket has, for Module.Progress. A connection that
// ended is closed, which ends its reader goroutine with the reason.
func (c *conn) poll() int {
	if !c.rmu.TryLock() {
		return 0 // its reader goroutine or another poller is at it
	}
	if c.rend != nil {
		c.rmu.Unlock()
		return 0
	}
	c.polled, c.pollErr = 0, nil
	// Control, not Read: the reader goroutine may be parked in Read holding
	// the descriptor's read lock until data arrives; rmu already makes us
	// the only reader, and Control keeps the descriptor open meanwhile.
	if err := c.rc.Control(c.pollFn); err != nil {
		c.pollErr = err
	}
	n, err := c.polled, c.pollErr
	ended := err != nil && !isWouldBlock(err)
	if ended {
		c.rend = err
	}
	c.rmu.Unlock()
	if ended {
		c.close()
	}
	return n
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
