package tcp

// Connections. A pair of ranks shares one connection, dialed on the first
// Send by either side. When ranks P and Q dial each other at once, the
// connection dialed by the lower rank wins: an acceptor that is itself
// dialing the peer answers Yield if its rank is the lower one, and accepts
// otherwise (a higher-rank acceptor thus takes the lower rank's dial, and
// the lower rank turns the higher one's away). The yielding dialer closes
// its socket and waits for the winner's connection; if none arrives within
// the handshake timeout (the winner's dial failed), it dials again, up to
// maxYields times.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// maxYields bounds the rounds of dialing and yielding to a peer whose own
// connection never comes.
const maxYields = 3

type peerState int

const (
	peerIdle      peerState = iota
	peerDialing             // a dial goroutine runs; ready closes when it ends
	peerConnected           // active carries the pair's frames
	peerClosed              // said goodbye, or this module is finalized
	peerFailed
)

// peer is this module's view of one rank.
type peer struct {
	rank int
	// conn mirrors active while connected: Send's lock-free fast path.
	conn atomic.Pointer[conn]

	mu     sync.Mutex
	state  peerState
	addrs  []netip.AddrPort // where to dial, best first; nil until AddProcs
	active *conn
	ready  chan struct{} // peerDialing: closed when the state changes
	err    error         // peerClosed, peerFailed: what Send returns
}

// setLocked moves p to a final or connected state and wakes anyone waiting.
func (p *peer) setLocked(s peerState, c *conn, err error) {
	p.state, p.active, p.err = s, c, err
	p.conn.Store(c)
	if p.ready != nil {
		close(p.ready)
		p.ready = nil
	}
}

// connect returns p's connection, starting a dial if there is none; ctx
// bounds the wait, the dial itself is bounded by the handshake timeout.
func (m *Module) connect(ctx context.Context, p *peer) (*conn, error) {
	for {
		p.mu.Lock()
		switch p.state {
		case peerConnected:
			c := p.active
			p.mu.Unlock()
			return c, nil
		case peerClosed, peerFailed:
			err := p.err
			p.mu.Unlock()
			return nil, err
		case peerIdle:
			if p.addrs == nil {
				p.mu.Unlock()
				return nil, fmt.Errorf("send to world rank %d: %w: not added or no usable address", p.rank, btl.ErrUnreachable)
			}
			ready := make(chan struct{})
			p.state, p.ready = peerDialing, ready
			if !m.spawn(func() { m.dial(p, ready) }) {
				p.setLocked(peerClosed, nil, m.finalizedErr(p.rank))
				p.mu.Unlock()
				return nil, m.finalizedErr(p.rank)
			}
		}
		ready := p.ready
		p.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to world rank %d: %w", p.rank, context.Cause(ctx))
		}
	}
}

func (m *Module) finalizedErr(rank int) error {
	return fmt.Errorf("world rank %d: the module is finalized", rank)
}

// dial connects to p until it is connected, yielding to p's own dial when
// the tie-break says so. It runs in its own goroutine; ready is the channel
// of this dial.
func (m *Module) dial(p *peer, ready chan struct{}) {
	var err error
	for range maxYields {
		var c *conn
		var v verdictCode
		if c, v, err = m.dialAny(p); err != nil {
			break
		}
		if v == verdictAccept {
			m.establish(p, c)
			return
		}
		c.close()
		if v == verdictRefuse {
			err = fmt.Errorf("world rank %d refused the connection: it is finalizing or takes this rank for failed", p.rank)
			break
		}
		// Yield: the peer's connection wins; it may already be here.
		m.log.Debug("yielding to the peer's connection", "peer", p.rank)
		t := time.NewTimer(m.cfg.handshakeTimeout)
		select {
		case <-ready:
			t.Stop()
			return
		case <-m.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		err = fmt.Errorf("world rank %d yielded %d times but its own connection never came", p.rank, maxYields)
	}
	select {
	case <-ready:
		return // the peer's connection arrived meanwhile: this dial does not matter
	default:
	}
	m.failPeer(p, fmt.Errorf("connect to world rank %d: %w: %w", p.rank, btl.ErrPeerFailed, err))
}

// dialAny tries p's addresses in order and returns the first authenticated
// connection with its verdict.
func (m *Module) dialAny(p *peer) (*conn, verdictCode, error) {
	p.mu.Lock()
	addrs := p.addrs
	p.mu.Unlock()
	var errs []error
	for _, a := range addrs {
		c, v, err := m.dialAddr(p, a)
		if err == nil {
			return c, v, nil
		}
		m.log.Debug("connect failed", "peer", p.rank, "address", a, "error", err)
		errs = append(errs, fmt.Errorf("%s: %w", a, err))
		if m.ctx.Err() != nil {
			break
		}
	}
	return nil, 0, errors.Join(errs...)
}

// dialAddr connects to p at a within the handshake timeout. A listener
// that hangs up before its challenge is dialed again: under a flood of
// strangers a rank evicts the connections that have not shown a hello yet
// (see slots), and a real peer's may be one of them.
func (m *Module) dialAddr(p *peer, a netip.AddrPort) (*conn, verdictCode, error) {
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.handshakeTimeout)
	defer cancel()
	for pause := time.Millisecond; ; pause = min(2*pause, maxRedialPause) {
		c, v, err := m.dialOnce(ctx, p, a)
		if !errors.Is(err, errNoChallenge) {
			return c, v, err
		}
		m.log.Debug("the listener hung up before its challenge; dialing again", "peer", p.rank, "address", a, "error", err)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, 0, err
		case <-t.C:
		}
	}
}

// maxRedialPause bounds the pause between dials of a listener that hangs up.
const maxRedialPause = 100 * time.Millisecond

func (m *Module) dialOnce(ctx context.Context, p *peer, a netip.AddrPort) (*conn, verdictCode, error) {
	nc, err := m.dialer.DialContext(ctx, "tcp", a.String())
	if err != nil {
		return nil, 0, err
	}
	c := newConn(m, nc.(*net.TCPConn))
	c.peer = p
	if !m.track(c) {
		return nil, 0, errors.New("module finalized")
	}
	deadline, _ := ctx.Deadline()
	c.nc.SetDeadline(deadline)
	v, err := m.auth.dial(c.nc, c.nc, p.rank)
	if err != nil {
		c.close()
		if errors.Is(err, errHandshake) {
			m.log.Warn("refusing a listener that failed authentication", "peer", p.rank, "address", a, "error", err)
		}
		return nil, 0, err
	}
	c.nc.SetDeadline(time.Time{})
	m.setOptions(c)
	if err := c.detach(); err != nil {
		c.close()
		return nil, 0, err
	}
	return c, v, nil
}

// establish makes c, dialed and accepted, p's connection and starts its reader.
func (m *Module) establish(p *peer, c *conn) {
	p.mu.Lock()
	if p.state != peerDialing {
		// Finalized, failed, or connected meanwhile by a misbehaving peer.
		p.mu.Unlock()
		m.log.Debug("dropping a connection no longer needed", "peer", p.rank)
		c.close()
		return
	}
	p.setLocked(peerConnected, c, nil)
	p.mu.Unlock()
	m.log.Debug("connected", "peer", p.rank, "local", c.nc.LocalAddr(), "remote", c.nc.RemoteAddr())
	if !m.spawn(c.readLoop) {
		c.close()
	}
}

// admit decides on an authenticated connection from p and, when it
// accepts, makes c p's connection.
func (m *Module) admit(p *peer, c *conn) verdictCode {
	if p.rank == m.rank {
		return verdictAccept // this end of a connection to oneself only reads
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case m.finalizing.Load() || p.state == peerFailed || p.state == peerClosed:
		return verdictRefuse
	case p.state == peerConnected:
		return verdictYield // the peer's verdict on our dial is still in flight
	case p.state == peerDialing && m.rank < p.rank:
		return verdictYield // our dial wins
	}
	p.setLocked(peerConnected, c, nil)
	return verdictAccept
}
