package tcp

import (
	"errors"
	"io"
	"net"
	"time"
)

// acceptLoop gives each incoming connection a handshake slot and a
// goroutine of its own, so a silent stranger cannot hold up real peers;
// the slots bound what a flood of strangers costs (see slots).
func (m *Module) acceptLoop(l net.Listener) {
	for {
		nc, err := l.Accept()
		if err != nil {
			if m.finalizing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			m.refused.note(refusedAccept, nil, err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors: do not spin
			continue
		}
		tc := nc.(*net.TCPConn)
		sl := m.slots.acquire(tc)
		if sl == nil {
			tc.Close()
			return // finalizing
		}
		if !m.spawn(func() { m.serve(sl) }) {
			tc.Close()
			m.slots.release(sl)
			return
		}
	}
}

// serve authenticates an incoming connection, decides on it and, if
// accepted, reads from it. Until the dialer's hello shows that it speaks
// the protocol, the connection costs only its socket and this goroutine's
// small stack.
func (m *Module) serve(sl *slot) {
	nc := sl.nc
	remote := nc.RemoteAddr()
	nc.SetDeadline(time.Now().Add(m.cfg.handshakeTimeout))
	s, err := m.handshake(sl)
	if evicted := m.slots.release(sl); err != nil {
		why := classifyRefusal(err)
		if evicted {
			why = refusedLimit
		}
		// Noted before the close: once the stranger sees the hang-up, the
		// rank may finalize at once, and then the refusal would go unlogged.
		m.log.Debug("refused a connection", "remote", remote, "reason", refusalKeys[why], "error", err)
		m.refused.note(why, remote, err)
		nc.Close()
		return
	}
	c := newConn(m, nc)
	if !m.track(c) {
		return
	}
	p := &m.peers[s.dialer]
	c.peer = p
	m.setOptions(c) // before c can carry a frame, as on the dialer's side
	// Hold the write lock across the verdict: once c is p's connection,
	// Sends may use it, and their frames must follow the verdict.
	c.wmu.Lock()
	v := m.admit(p, c)
	err = m.auth.verdict(c.nc, &s, v)
	c.nc.SetDeadline(time.Time{})
	if v == verdictAccept && err == nil {
		if err = c.detach(); err != nil {
			c.close() // its reader, started below, reports the end
		}
	}
	c.wmu.Unlock()
	if v != verdictAccept {
		m.log.Debug("declined a duplicate connection", "peer", p.rank, "verdict", v)
		c.close()
		return
	}
	if err != nil {
		m.log.Debug("accepting failed", "peer", p.rank, "error", err)
	}
	m.log.Debug("accepted", "peer", p.rank, "remote", remote)
	c.readLoop()
}

// handshake runs the acceptor's side up to the verdict on sl's connection:
// the hello's prefix first, into a small buffer, then the rest.
func (m *Module) handshake(sl *slot) (session, error) {
	var prefix [handshakePrefix]byte
	if _, err := io.ReadFull(sl.nc, prefix[:]); err != nil {
		return session{}, err
	}
	if err := checkHelloPrefix(prefix[:]); err != nil {
		return session{}, err
	}
	if !m.slots.prove(sl) {
		return session{}, errors.New("evicted")
	}
	return m.auth.accept(prefix[:], sl.nc, sl.nc)
}
