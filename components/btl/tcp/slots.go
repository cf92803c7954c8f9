package tcp

import (
	"container/list"
	"net"
	"sync"

	"golang.org/x/sys/unix"
)

// Handshake slots. Every accepted connection holds a slot, and with it a
// handshake goroutine, until it is authenticated or dropped; at most limit
// slots exist, so a flood of strangers costs a bounded number of goroutines
// and sockets however many connections it opens.
//
// When every slot is taken, the accept loop does not close the newcomer:
// it may be a real peer, which has no way to tell a refusal from a failure
// (its dial would report this rank failed). Nor does it stop accepting
// while strangers sit silent in the slots: a real peer queued behind
// thousands of them would wait for their handshake deadlines, one batch of
// slots at a time, far past its own. Instead it evicts the oldest
// connection that has not shown a hello (the one most likely to be an idle
// stranger) and takes its slot. A real dialer sends its hello as soon as
// it connects, so a connection whose hello is waiting in the socket is
// spared, and a real peer cut before its hello arrived dials again (see
// dialAddr). Connections that have shown a hello are never evicted: when
// only they hold slots, the accept loop waits for one to finish, which for
// real peers takes a round trip. A stranger that knows the protocol can
// send a hello and stall until the handshake deadline; slots it holds so
// delay real peers, but still cost no more than the limit.
type slots struct {
	mu       sync.Mutex
	freed    sync.Cond // signalled when a slot frees or the slots close
	limit    int
	silent   list.List // of *slot not yet shown a hello, oldest first
	shown    list.List // of *slot that showed one
	used     int       // slots held, those being evicted included
	evicting int       // evicted slots whose goroutine has not yet released them
	peak     int       // the most slots ever held at once
	closed   bool
}

// slot is one handshake in progress.
type slot struct {
	nc      *net.TCPConn
	elem    *list.Element // in silent or shown; nil once evicted or released
	shown   bool          // a hello came: elem is in shown
	evicted bool
}

func newSlots(limit int) *slots {
	s := &slots{limit: limit}
	s.freed.L = &s.mu
	return s
}

// acquire takes a slot for nc, evicting a silent connection if every slot
// is taken and waiting if none can be evicted. It returns nil once the
// slots are closed.
func (s *slots) acquire(nc *net.TCPConn) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.closed && s.used >= s.limit {
		if s.used-s.evicting >= s.limit {
			s.evictOldest()
		}
		s.freed.Wait()
	}
	if s.closed {
		return nil
	}
	sl := &slot{nc: nc}
	sl.elem = s.silent.PushBack(sl)
	s.used++
	s.peak = max(s.peak, s.used)
	return sl
}

// evictOldest closes the oldest silent connection that has no hello
// waiting; one whose hello is waiting is proven instead. The evicted
// slot frees when its goroutine, woken by the close, releases it, so
// goroutines never outnumber slots.
func (s *slots) evictOldest() {
	for e := s.silent.Front(); e != nil; e = s.silent.Front() {
		sl := s.silent.Remove(e).(*slot)
		if helloWaiting(sl.nc) {
			sl.elem, sl.shown = s.shown.PushBack(sl), true // its goroutine reads the hello in a moment
			continue
		}
		sl.elem = nil
		sl.evicted = true
		s.evicting++
		sl.nc.Close()
		return
	}
}

// prove marks sl as having shown a hello, which spares it from eviction.
// It reports false if sl was evicted first.
func (s *slots) prove(sl *slot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl.evicted {
		return false
	}
	if !sl.shown {
		s.silent.Remove(sl.elem)
		sl.elem, sl.shown = s.shown.PushBack(sl), true
	}
	return true
}

// release frees sl's slot and reports whether it was evicted.
func (s *slots) release(sl *slot) (evicted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case sl.elem == nil: // evicted
	case sl.shown:
		s.shown.Remove(sl.elem)
	default:
		s.silent.Remove(sl.elem)
	}
	sl.elem = nil
	if sl.evicted {
		s.evicting--
	}
	s.used--
	s.freed.Signal()
	return sl.evicted
}

// close wakes the accept loops for good and closes the connections still
// shaking hands, which ends their goroutines.
func (s *slots) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, l := range []*list.List{&s.silent, &s.shown} {
		for e := l.Front(); e != nil; e = e.Next() {
			e.Value.(*slot).nc.Close()
		}
	}
	s.freed.Broadcast()
}

// stats returns the slots held now and the most ever held at once.
func (s *slots) stats() (used, peak int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used, s.peak
}

// helloWaiting reports whether the bytes waiting on nc, read without
// taking them, start a hello.
func helloWaiting(nc *net.TCPConn) bool {
	rc, err := nc.SyscallConn()
	if err != nil {
		return false
	}
	var buf [handshakePrefix]byte
	n := 0
	rc.Control(func(fd uintptr) {
		n, _, _ = unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	})
	return n == len(buf) && checkHelloPrefix(buf[:]) == nil
}
