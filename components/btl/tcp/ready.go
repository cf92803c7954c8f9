package tcp

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A poll that asks every connection costs a recvfrom each (about 480 ns
// here), nearly all answered EAGAIN when a rank has many peers. Past
// pollAllMax connections Progress instead asks a module-wide epoll set,
// level-triggered, which connections have bytes (about 240 ns whatever
// their number), and reads only those. The connection that delivered last
// (the hot one) is still read directly first: with one busy peer among
// many a message costs one call, as with a single connection.

// pollAllMax is the most connections Progress reads directly each poll:
// one or two peers cost less that way than an epoll_wait plus the read.
const pollAllMax = 2

// readyBatch is how many ready connections one poll takes from epoll; the
// rest wait for the next poll (epoll hands them out in turn).
const readyBatch = 16

// readers is the set of authenticated connections, copied on write.
type readers struct {
	list []*conn
	byID map[int32]*conn // by the id their epoll entry carries
}

// readySet is a module's epoll instance; fd is -1 when the kernel gave
// none, and Progress then reads every connection.
type readySet struct {
	fd     int
	nextID int32
	hot    atomic.Pointer[conn] // the connection that delivered last
}

func newReadySet() readySet {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		fd = -1
	}
	return readySet{fd: fd}
}

// watch adds c's socket to the set; a socket closed since is not added.
func (s *readySet) watch(c *conn) {
	if s.fd < 0 {
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: c.id}
	c.rc.Control(func(fd uintptr) { unix.EpollCtl(s.fd, unix.EPOLL_CTL_ADD, int(fd), &ev) })
}

// unwatch removes c's socket; closing it removes it too.
func (s *readySet) unwatch(c *conn) {
	if s.fd < 0 {
		return
	}
	c.rc.Control(func(fd uintptr) { unix.EpollCtl(s.fd, unix.EPOLL_CTL_DEL, int(fd), nil) })
	s.hot.CompareAndSwap(c, nil)
}

func (s *readySet) close() {
	if s.fd >= 0 {
		unix.Close(s.fd)
	}
}

// readyNow fills evs with the connections that have bytes, without
// waiting, as a raw system call: it cannot block.
func readyNow(epfd int, evs []unix.EpollEvent) int {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
	if errno != 0 {
		return 0 // EINTR: the next poll asks again
	}
	return int(n)
}

// pollReady is Progress for many connections: the hot one directly, then
// those epoll reports readable.
func (m *Module) pollReady(rs *readers) int {
	n := 0
	for _, c := range rs.list {
		n += c.flush(false) // an atomic load unless frames are held
	}
	hot := m.ready.hot.Load()
	if hot != nil {
		// A busy hot peer costs one call per message, but every few polls
		// the others are asked too, or a peer that never pauses starves them.
		d := hot.poll()
		n += d
		if d > 0 && m.polls.Load()%4 != 0 {
			return n
		}
	}
	var evs [readyBatch]unix.EpollEvent
	k := readyNow(m.ready.fd, evs[:])
	for _, ev := range evs[:k] {
		c := rs.byID[ev.Fd]
		if c == nil || c == hot {
			continue // gone, or just read: its socket is all but certainly empty
		}
		if d := c.poll(); d > 0 {
			n += d
			m.ready.hot.Store(c)
		}
	}
	return n
}
