package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
)

// Module is the tcp transport of one process: it listens on the chosen
// addresses and keeps at most one connection per peer, opened on first use.
type Module struct {
	cfg    config
	rank   int
	size   int
	host   string
	modex  btl.Modex
	recv   btl.Receiver
	placer btl.VectorPlacer // recv, if it places payloads in pieces; else nil
	log    hclog.Logger
	auth   authority
	local  []localAddr
	peers  []peer
	pool   *bufPool
	dialer net.Dialer

	slots   *slots    // the handshakes in progress on accepted connections
	refused *refusals // logs the connections the handshakes refused

	ctx    context.Context // cancelled by Finalize: stops dials
	cancel context.CancelFunc

	mu             sync.Mutex // guards what follows; taken after a peer's mu, never before
	finalizing     atomic.Bool
	listeners      []net.Listener
	conns          map[*conn]struct{}      // every open socket but those of handshakes in slots
	readers        atomic.Pointer[readers] // authenticated connections, copied on write
	ready          readySet                // which of them have bytes, past pollAllMax
	wakers         *wakers                 // wake their waiters; nil without epoll: they stay in the netpoller
	polls          atomic.Uint64           // Progress calls: the reader goroutines watch it
	kick           chan struct{}           // wakes the flusher: a connection holds frames back
	heldMu         sync.Mutex              // guards heldConns
	heldConns      []*conn                 // connections that held frames since the flusher last looked
	oversubscribed bool                    // InitEnv.Oversubscribed: spinning writers yield the CPU
	flushDelay     time.Duration           // flushDelay; tests lengthen it
	pollGrace      time.Duration           // pollGrace; tests lengthen it to leave reading to Progress
	wg             sync.WaitGroup
	finOnce        sync.Once
}

// The module's properties, from the btl_tcp_* parameters.

func (m *Module) Name() string     { return "tcp" }
func (m *Module) Exclusivity() int { return m.cfg.exclusivity }
func (m *Module) Bandwidth() int   { return m.cfg.bandwidth }
func (m *Module) EagerLimit() int  { return m.cfg.eagerLimit }
func (m *Module) MaxSendSize() int { return m.cfg.maxSend }

// MaxSendSizeTo is MaxSendSize for the connection to peer, at most
// pacedFragment once it is connected with an algorithm that paces
// (btl.PeerFragmenter).
func (m *Module) MaxSendSizeTo(peer int) int {
	if peer >= 0 && peer < m.size {
		if c := m.peers[peer].conn.Load(); c != nil && c.paced {
			return min(m.cfg.maxSend, pacedFragment)
		}
	}
	return m.cfg.maxSend
}

// AddProcs reads every peer's endpoint. A peer on this host is reached
// through loopback first; a peer on another host never through loopback.
func (m *Module) AddProcs(ctx context.Context, procs []btl.Proc) ([]bool, error) {
	reach := make([]bool, len(procs))
	for i, pr := range procs {
		if pr.Rank < 0 || pr.Rank >= m.size {
			return nil, fmt.Errorf("world rank %d out of range 0-%d", pr.Rank, m.size-1)
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		b, err := m.modex.Get(ctx, pr.Rank, modexKey)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("read world rank %d's addresses: %w", pr.Rank, err)
			}
			m.log.Debug("peer published no tcp endpoint", "peer", pr.Rank, "error", err)
			continue
		}
		ep, err := decodeEndpoint(b)
		if err != nil {
			m.log.Warn("ignoring a malformed tcp endpoint", "peer", pr.Rank, "error", err)
			continue
		}
		addrs := m.route(ep)
		if len(addrs) == 0 {
			m.log.Debug("no usable address for peer", "peer", pr.Rank, "host", ep.host)
			continue
		}
		p := &m.peers[pr.Rank]
		p.mu.Lock()
		p.addrs = addrs
		p.mu.Unlock()
		reach[i] = true
	}
	return reach, nil
}

// route orders a peer's addresses for dialing: on this host loopback ones
// first; on another host no loopback, and networks this host is on first.
func (m *Module) route(ep endpoint) []netip.AddrPort {
	sameHost := ep.host == m.host
	type cand struct {
		ap   netip.AddrPort
		rank int // lower is better
	}
	var cs []cand
	for i, p := range ep.addrs {
		a := p.Addr()
		r := 2
		switch {
		case a.IsLoopback() && !sameHost:
			continue
		case a.IsLoopback():
			r = 0
		case m.onLink(a):
			r = 1
		}
		cs = append(cs, cand{netip.AddrPortFrom(a, ep.ports[i]), r})
	}
	slices.SortStableFunc(cs, func(x, y cand) int { return x.rank - y.rank })
	out := make([]netip.AddrPort, len(cs))
	for i, c := range cs {
		out[i] = c.ap
	}
	return out
}

func (m *Module) onLink(a netip.Addr) bool {
	for _, l := range m.local {
		if !l.loopback && l.prefix.Masked().Contains(a) {
			return true
		}
	}
	return false
}

// DelProcs forgets procs: a connection to one ends with a goodbye, so the
// peer sees a finalize rather than a failure, and its addresses are
// dropped: sending to it is an error until AddProcs adds it again.
func (m *Module) DelProcs(_ context.Context, procs []btl.Proc) error {
	for _, pr := range procs {
		if pr.Rank < 0 || pr.Rank >= m.size {
			return fmt.Errorf("world rank %d out of range 0-%d", pr.Rank, m.size-1)
		}
		p := &m.peers[pr.Rank]
		p.mu.Lock()
		c := p.active
		if p.state == peerConnected {
			p.setLocked(peerIdle, nil, nil)
		}
		p.addrs = nil
		p.mu.Unlock()
		if c != nil {
			c.deleted.Store(true) // its end is no failure
			c.bye(min(m.cfg.handshakeTimeout, time.Second))
			c.close()
		}
	}
	return nil
}

// Send writes one frame to peer, connecting first if needed. A ctx that is
// already done fails it before anything is sent, connected or not.
func (m *Module) Send(ctx context.Context, peer int, hdr, payload []byte) error {
	return m.send(ctx, peer, hdr, payload, false)
}

// Post is Send for a sender that does not wait: a small frame is copied
// and held back, to go out with the next frames to the same peer in one
// system call (btl.Poster).
func (m *Module) Post(ctx context.Context, peer int, hdr, payload []byte) error {
	return m.send(ctx, peer, hdr, payload, true)
}

// Flush writes what Post held back for peer (btl.Poster).
func (m *Module) Flush(peer int) {
	if peer < 0 || peer >= m.size {
		return
	}
	if c := m.peers[peer].conn.Load(); c != nil {
		c.flush(true)
	}
}

func (m *Module) send(ctx context.Context, peer int, hdr, payload []byte, post bool) error {
	if len(payload) > maxPayload {
		return fmt.Errorf("send to world rank %d: payload of %d bytes exceeds the %d-byte cap", peer, len(payload), maxPayload)
	}
	c, err := m.connTo(ctx, peer, hdr)
	if err != nil {
		return err
	}
	if err := c.send(hdr, payload, post); err != nil {
		return m.sendFailed(c.peer, err)
	}
	return nil
}

// SendVector is Send of a payload that is the concatenation of parts, at
// most MaxSendSize bytes in all, written from where the parts lie with
// vectored writes (btl.VectorSender). Like Send it goes after the frames
// that Post held back for peer, and is not held itself.
func (m *Module) SendVector(ctx context.Context, peer int, hdr []byte, parts [][]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > m.cfg.maxSend {
		return fmt.Errorf("send to world rank %d: payload of %d bytes in %d parts exceeds the largest fragment, MaxSendSize, of %d bytes",
			peer, n, len(parts), m.cfg.maxSend)
	}
	c, err := m.connTo(ctx, peer, hdr)
	if err != nil {
		return err
	}
	if err := c.sendVector(hdr, parts, n); err != nil {
		return m.sendFailed(c.peer, err)
	}
	return nil
}

// connTo checks the arguments common to every send and returns the
// connection to peer, connecting first if needed.
func (m *Module) connTo(ctx context.Context, peer int, hdr []byte) (*conn, error) {
	if peer < 0 || peer >= m.size {
		return nil, fmt.Errorf("send to world rank %d: out of range 0-%d", peer, m.size-1)
	}
	if err := btl.CheckHeader(hdr); err != nil {
		return nil, fmt.Errorf("send to world rank %d: %w", peer, err)
	}
	// Checked before the fast path: a connected peer or a dial that wins
	// the race with the wait must not make a cancelled Send succeed.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("send to world rank %d: %w", peer, context.Cause(ctx))
	}
	p := &m.peers[peer]
	if c := p.conn.Load(); c != nil {
		return c, nil
	}
	return m.connect(ctx, p)
}

// sendFailed fails p after a write to it failed with err, and returns the
// error that p's sends now report.
func (m *Module) sendFailed(p *peer, err error) error {
	m.failPeer(p, fmt.Errorf("send to world rank %d: %w: %w", p.rank, btl.ErrPeerFailed, err))
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// connEnded handles the end of a connection's reader.
func (m *Module) connEnded(c *conn, err error) {
	p := c.peer
	switch {
	case m.finalizing.Load(), c.deleted.Load():
	case errors.Is(err, errBye):
		m.log.Debug("peer finalized", "peer", p.rank)
		p.mu.Lock()
		if p.state != peerFailed && p.state != peerClosed {
			p.setLocked(peerClosed, nil, fmt.Errorf("world rank %d: %w: it has finalized", p.rank, btl.ErrPeerFailed))
		}
		p.mu.Unlock()
	default:
		if errors.Is(err, errCorruptFrame) {
			m.log.Error("corrupt frame; closing the connection", "peer", p.rank, "error", err)
		}
		m.failPeer(p, fmt.Errorf("connection to world rank %d: %w: %w", p.rank, btl.ErrPeerFailed, err))
	}
}

// failPeer marks p failed and reports it once, unless finalizing.
func (m *Module) failPeer(p *peer, err error) {
	p.mu.Lock()
	if p.state == peerFailed || p.state == peerClosed {
		p.mu.Unlock()
		return
	}
	c := p.active
	p.setLocked(peerFailed, nil, err)
	p.mu.Unlock()
	if c != nil {
		c.close()
	}
	if m.finalizing.Load() {
		return
	}
	m.log.Warn("peer failed", "peer", p.rank, "error", err)
	m.recv.PeerFailed(p.rank, err)
}

// spawn runs f in a tracked goroutine unless the module is finalizing.
func (m *Module) spawn(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finalizing.Load() {
		return false
	}
	m.wg.Go(f)
	return true
}

// track records an open socket so Finalize can close it.
func (m *Module) track(c *conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finalizing.Load() {
		c.nc.Close()
		return false
	}
	m.conns[c] = struct{}{}
	return true
}

func (m *Module) untrack(c *conn) {
	m.mu.Lock()
	delete(m.conns, c)
	m.mu.Unlock()
}

// setOptions sets c's socket options, before c carries a frame.
func (m *Module) setOptions(c *conn) {
	nc := c.nc
	nc.SetNoDelay(true)
	if algo := m.cfg.congestionFor(nc.LocalAddr(), nc.RemoteAddr()); algo != "" {
		if err := setCongestion(nc, algo); err != nil {
			// Open checked a chosen algorithm; auto's reno may only be missing.
			m.log.Warn("cannot set the congestion control; the connection keeps the system's",
				"algorithm", algo, "remote", nc.RemoteAddr(), "error", err)
		}
	}
	if algo, err := congestionOf(c.rc); err == nil {
		c.paced = paces(algo)
	}
	if m.cfg.sndbuf > 0 {
		nc.SetWriteBuffer(m.cfg.sndbuf)
	}
	if m.cfg.rcvbuf > 0 {
		nc.SetReadBuffer(m.cfg.rcvbuf)
	}
}

// Finalize says goodbye to every connected peer, closes every socket and
// waits for the module's goroutines, so it must not be called from a
// Receiver method.
func (m *Module) Finalize() error {
	m.shutdown(true)
	return nil
}

// shutdown closes the module; graceful sends goodbyes first. Without them
// peers see this rank fail, as if its process died.
func (m *Module) shutdown(graceful bool) {
	m.finOnce.Do(func() {
		m.mu.Lock()
		m.finalizing.Store(true)
		listeners := m.listeners
		m.mu.Unlock()
		m.cancel()
		for _, l := range listeners {
			l.Close()
		}
		m.slots.close()
		m.refused.close()
		for i := range m.peers {
			p := &m.peers[i]
			p.mu.Lock()
			c := p.active
			p.setLocked(peerClosed, nil, m.finalizedErr(p.rank))
			p.mu.Unlock()
			if c != nil && graceful {
				c.bye(min(m.cfg.handshakeTimeout, time.Second))
			}
		}
		m.mu.Lock()
		conns := make([]*conn, 0, len(m.conns))
		for c := range m.conns {
			conns = append(conns, c)
		}
		m.mu.Unlock()
		for _, c := range conns {
			c.close()
		}
		m.wg.Wait()
		m.ready.close()
		if m.wakers != nil {
			m.wakers.stop()
		}
	})
}

var (
	_ btl.Module       = (*Module)(nil)
	_ btl.Poster       = (*Module)(nil)
	_ btl.VectorSender = (*Module)(nil)
)

// Progress reads every connection that has bytes waiting, without
// blocking, and returns how many frames it delivered.
func (m *Module) Progress() int {
	m.polls.Add(1)
	rs := m.readers.Load()
	if rs == nil {
		return 0
	}
	if len(rs.list) > pollAllMax && m.ready.fd >= 0 {
		return m.pollReady(rs)
	}
	n := 0
	for _, c := range rs.list {
		n += c.flush(false) + c.poll()
	}
	return n
}

// flushDelay is how long a held-back frame waits for a poll, a send or a
// wait of its rank to write it before the flusher does: long enough for
// a loop of non-blocking sends to fill the stage, short against any
// computation that leaves MPI alone.
const flushDelay = 100 * time.Microsecond

// noteHeld tells the flusher that c holds frames back.
func (m *Module) noteHeld(c *conn) {
	m.heldMu.Lock()
	m.heldConns = append(m.heldConns, c)
	m.heldMu.Unlock()
	select {
	case m.kick <- struct{}{}:
	default: // already told
	}
}

// flusher writes the frames held back that nothing else wrote within
// flushDelay of being told, until the module finalizes.
func (m *Module) flusher() {
	t := time.NewTimer(time.Hour)
	t.Stop() // armed on each kick
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.kick:
		}
		t.Reset(m.flushDelay)
		select {
		case <-m.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		// The connections themselves, not the readers: a new one holds
		// frames before its reader goroutine has registered it.
		m.heldMu.Lock()
		cs := m.heldConns
		m.heldConns = nil
		m.heldMu.Unlock()
		for _, c := range cs {
			c.flush(true)
		}
	}
}

// pollGrace is how long the reader goroutines wait after the last poll
// before they read again themselves.
const pollGrace = time.Millisecond

// maxNap bounds a reader's nap while its rank keeps polling: each nap that
// finds the rank still polling doubles the next, up to this, so that a
// rank that polls for long is not interrupted every pollGrace by an idle
// thread that wakes to look (on a host whose CPUs all poll, each look
// takes one of them from a rank).
const maxNap = 8 * time.Millisecond

// napWhilePolled returns once nobody has polled for a nap (pollGrace at
// first, twice as long after each nap that saw polls, up to maxNap), the
// module finalizes, or closed is: a poller that found the connection's
// end closed it, and only its reader reports that end.
func (m *Module) napWhilePolled(closed <-chan struct{}) {
	nap := m.pollGrace
	t := time.NewTimer(nap)
	defer t.Stop()
	for {
		seen := m.polls.Load()
		select {
		case <-m.ctx.Done():
			return
		case <-closed:
			return
		case <-t.C:
		}
		if m.polls.Load() == seen {
			return
		}
		nap = min(2*nap, max(maxNap, m.pollGrace))
		t.Reset(nap)
	}
}

func (m *Module) startReading(c *conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ready.nextID++
	c.id = m.ready.nextID
	rs := &readers{byID: map[int32]*conn{c.id: c}}
	if old := m.readers.Load(); old != nil {
		rs.list = append(rs.list, old.list...)
		for _, x := range old.list {
			rs.byID[x.id] = x
		}
	}
	rs.list = append(rs.list, c)
	// Registered before it is published: a poll that sees c must be told when it turns readable.
	m.ready.watch(c)
	m.readers.Store(rs)
}

func (m *Module) stopReading(c *conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.readers.Load()
	if old == nil {
		return
	}
	m.ready.unwatch(c)
	rs := &readers{list: slices.DeleteFunc(slices.Clone(old.list), func(x *conn) bool { return x == c }), byID: map[int32]*conn{}}
	for _, x := range rs.list {
		rs.byID[x.id] = x
	}
	m.readers.Store(rs)
}
