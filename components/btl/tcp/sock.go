package tcp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// An authenticated connection's socket leaves Go's netpoller. The runtime
// watches its sockets edge-triggered whether or not a goroutine waits on
// them, and a rank's idle thread that blocks in the netpoller (there is
// one whenever the rank has more Go processors than busy goroutines) was
// woken by every segment that arrived, though the rank polls its sockets
// itself: a thread wake-up per message, on a CPU that may be another
// rank's. Between two hosts that took the 8-byte latency from 12 us to
// 17-21. Instead the module's wakers watch the sockets, one shot at a
// time, only for the goroutines that wait: two epoll sets (readable,
// writable), each in Go's netpoller itself, so that it turns readable only
// when an armed socket fires, and a goroutine that waits on it parks
// rather than holding the rank's Go processor in epoll_wait.

// sock is a socket out of the netpoller. It serves as the connection's
// syscall.RawConn: Control and Read/Write's callbacks run with the
// descriptor held open; Read and Write wait through the module's wakers.
type sock struct {
	fd int
	id int32
	ws *wakers
	// Whether the socket is in each waker's set: only the reader goroutine
	// arms for reading, and only a writer holding the write lock for writing.
	inRead, inWrite bool

	life     sync.RWMutex // read-held while fd is in use; release takes it
	closed   bool         // under life: fd is closed
	done     chan struct{}
	readable chan struct{} // the wakers' signals (capacity 1)
	writable chan struct{}
	once     sync.Once
}

// errSockClosed is what a closed sock's calls return: the same error a
// closed net.Conn's do, so that callers need not tell them apart.
var errSockClosed = net.ErrClosed

func (s *sock) Control(f func(fd uintptr)) error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closed {
		return errSockClosed
	}
	f(uintptr(s.fd))
	return nil
}

// Read calls f until it returns true, waiting for the socket to turn
// readable between calls.
func (s *sock) Read(f func(fd uintptr) bool) error {
	return s.await(f, s.ws.read, &s.inRead, s.readable)
}

// Write calls f until it returns true, waiting for room in the socket
// between calls.
func (s *sock) Write(f func(fd uintptr) bool) error {
	return s.await(f, s.ws.write, &s.inWrite, s.writable)
}

func (s *sock) await(f func(fd uintptr) bool, w *waker, armed *bool, signal chan struct{}) error {
	for {
		s.life.RLock()
		if s.closed {
			s.life.RUnlock()
			return errSockClosed
		}
		if f(uintptr(s.fd)) {
			s.life.RUnlock()
			return nil
		}
		// Armed after f found nothing: a socket already ready fires at once.
		err := w.arm(s, armed)
		s.life.RUnlock()
		if err != nil {
			return err
		}
		select {
		case <-signal:
		case <-s.done:
			return errSockClosed
		}
	}
}

// writeWithin writes b whole within timeout, waiting in poll(2): for the
// goodbye at finalize only.
func (s *sock) writeWithin(b []byte, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	s.life.RLock()
	defer s.life.RUnlock()
	for len(b) > 0 {
		if s.closed {
			return errSockClosed
		}
		n, err := unix.SendmsgN(s.fd, b, nil, nil, unix.MSG_NOSIGNAL|unix.MSG_DONTWAIT)
		b = b[max(n, 0):]
		switch {
		case err == nil, err == unix.EINTR:
			continue
		case err != unix.EAGAIN:
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return errors.New("timed out waiting for room in the socket")
		}
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLOUT}}
		if _, err := unix.Poll(fds, int(left.Milliseconds())+1); err != nil && err != unix.EINTR {
			return fmt.Errorf("waiting for room in the socket: %w", err)
		}
	}
	return nil
}

// close shuts the socket down and ends its waits, and closes its
// descriptor once no call uses it: at once if none does, else from a
// goroutine of its own, since a caller may itself be inside a callback.
func (s *sock) close() {
	s.once.Do(func() {
		unix.Shutdown(s.fd, unix.SHUT_RDWR)
		close(s.done)
		if s.life.TryLock() {
			s.release()
			return
		}
		go func() {
			s.life.Lock()
			s.release()
		}()
	})
}

// release closes the descriptor, which takes it out of the wakers' sets;
// the caller holds life locked.
func (s *sock) release() {
	s.closed = true
	s.ws.forget(s)
	unix.Close(s.fd)
	s.life.Unlock()
}

// wakers are a module's two wakers, for readable and writable sockets.
type wakers struct {
	nextID      atomic.Int32
	read, write *waker
}

func newWakers() (*wakers, error) {
	r, err := newWaker(unix.EPOLLIN|unix.EPOLLRDHUP, func(s *sock) chan struct{} { return s.readable })
	if err != nil {
		return nil, err
	}
	w, err := newWaker(unix.EPOLLOUT, func(s *sock) chan struct{} { return s.writable })
	if err != nil {
		r.stop()
		return nil, err
	}
	return &wakers{read: r, write: w}, nil
}

// attach makes fd, a socket no one else uses, a sock of ws's.
func (ws *wakers) attach(fd int) *sock {
	s := &sock{fd: fd, id: ws.nextID.Add(1), ws: ws, done: make(chan struct{}),
		readable: make(chan struct{}, 1), writable: make(chan struct{}, 1)}
	ws.read.add(s)
	ws.write.add(s)
	return s
}

func (ws *wakers) forget(s *sock) {
	ws.read.forget(s)
	ws.write.forget(s)
}

func (ws *wakers) stop() {
	ws.read.stop()
	ws.write.stop()
}

// waker signals the socks whose sockets are ready for one kind of
// events: one epoll set, one shot per wait, read by one goroutine that
// parks in Go's netpoller until the set itself turns readable.
type waker struct {
	events  uint32
	signal  func(*sock) chan struct{}
	ep      *os.File
	rc      syscall.RawConn
	mu      sync.Mutex
	socks   map[int32]*sock
	stopped chan struct{}
}

func newWaker(events uint32, signal func(*sock) chan struct{}) (*waker, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("epoll set: %w", err)
	}
	ep := os.NewFile(uintptr(epfd), "epoll")
	// A file the netpoller does not take has no deadlines.
	if err := ep.SetReadDeadline(time.Time{}); err != nil {
		ep.Close()
		return nil, fmt.Errorf("epoll set in the netpoller: %w", err)
	}
	rc, err := ep.SyscallConn()
	if err != nil {
		ep.Close()
		return nil, err
	}
	w := &waker{events: events, signal: signal, ep: ep, rc: rc, socks: map[int32]*sock{}, stopped: make(chan struct{})}
	go w.run()
	return w, nil
}

func (w *waker) add(s *sock) {
	w.mu.Lock()
	w.socks[s.id] = s
	w.mu.Unlock()
}

// arm asks for one signal when s's socket is ready; the caller holds
// s.life read-locked, and armed is s's flag for w.
func (w *waker) arm(s *sock, armed *bool) error {
	var err error
	cerr := w.rc.Control(func(epfd uintptr) {
		ev := unix.EpollEvent{Events: w.events | unix.EPOLLONESHOT, Fd: s.id}
		op := unix.EPOLL_CTL_MOD
		if !*armed {
			op = unix.EPOLL_CTL_ADD
		}
		err = unix.EpollCtl(int(epfd), op, s.fd, &ev)
	})
	if cerr != nil {
		return fmt.Errorf("waiting for the socket: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("waiting for the socket: epoll_ctl: %w", err)
	}
	*armed = true
	return nil
}

func (w *waker) forget(s *sock) {
	w.mu.Lock()
	delete(w.socks, s.id)
	w.mu.Unlock()
}

// run signals the socks that fire until the set is closed.
func (w *waker) run() {
	defer close(w.stopped)
	var evs [64]unix.EpollEvent
	w.rc.Read(func(epfd uintptr) bool {
		for {
			n, err := unix.EpollWait(int(epfd), evs[:], 0)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return true
			}
			w.mu.Lock()
			for _, ev := range evs[:n] {
				if s := w.socks[ev.Fd]; s != nil {
					select {
					case w.signal(s) <- struct{}{}:
					default: // signalled already
					}
				}
			}
			w.mu.Unlock()
			if n < len(evs) {
				return false // drained: the set's next event is a new edge
			}
		}
	})
}

// stop closes the set, which ends the waker's goroutine.
func (w *waker) stop() {
	w.ep.Close()
	<-w.stopped
}
