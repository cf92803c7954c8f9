package sm

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/internal/lowlevel"
)

// Send copies the fragment into the peer's ring. When the ring is full it
// waits, draining this rank's own rings meanwhile: two ranks that fill
// each other's rings must not wait for each other. Post, PostSmall and a
// held SendFrom return btl.ErrFull instead: a non-blocking send must not
// wait for a peer that does not poll.
func (m *Module) Send(ctx context.Context, rank int, hdr, payload []byte) error {
	return m.write(ctx, rank, hdr, payload, nil, false)
}

// TrySend is Send if the fragment can go at once (btl.TrySender): false,
// having sent nothing, if another goroutine or the caller itself holds
// the peer's ring, or it has no room. A delivery answers by it: Send
// would wait for room that only its own poll frees, or for the ring's
// lock that a Send up its stack holds (waitRoom polls).
func (m *Module) TrySend(rank int, hdr, payload []byte) bool {
	if btl.CheckHeader(hdr) != nil || len(payload) > m.cfg.fragmentSize {
		return false
	}
	p, err := m.peerFor(rank)
	if err != nil || !p.sending.CompareAndSwap(false, true) {
		return false
	}
	ok := !m.closed.Load() && p.out.putKind(kindFrag, hdr, payload, nil, false)
	if ok {
		m.publish(p)
	}
	lowlevel.UnlockFlag(&p.sending)
	return ok
}

// SendFrom is Send, or Post when hold is set, of the n bytes of src from
// off, which src packs straight into the peer's ring (btl.Gatherer): a
// non-contiguous payload is copied once on its way, not packed into a
// buffer first.
func (m *Module) SendFrom(ctx context.Context, rank int, hdr []byte, src btl.Source, off, n int, hold bool) error {
	if src == nil {
		return fmt.Errorf("send to world rank %d: no source for the payload", rank)
	}
	if off < 0 || n < 0 {
		return fmt.Errorf("send to world rank %d: a payload of %d bytes at offset %d of its source (neither may be negative)", rank, n, off)
	}
	return m.write(ctx, rank, hdr, nil, &source{src, off, n}, hold)
}

// SendSmall is Send with the header by value (btl.SmallSender).
func (m *Module) SendSmall(rank int, hdr btl.SmallHeader, payload []byte) error {
	return m.writeSmall(rank, hdr, payload, false)
}

// PostSmall is Post with the header by value (btl.SmallPoster).
func (m *Module) PostSmall(rank int, hdr btl.SmallHeader, payload []byte) error {
	return m.writeSmall(rank, hdr, payload, true)
}

// writeSmall is write with a small header, laid out on the stack: write
// keeps no reference to it.
func (m *Module) writeSmall(rank int, hdr btl.SmallHeader, payload []byte, hold bool) error {
	var b [btl.SmallHeaderSize]byte
	hdr.Put(b[:])
	return m.write(context.Background(), rank, b[:], payload, nil, hold)
}

// Post is Send that may leave the fragment unpublished, to be published
// with the ones after it (btl.Poster): a window of non-blocking sends then
// costs one wait for the line the receiver polls, not one per message. It
// is published by the module's next Progress, a Send or Flush to the
// peer, a full batch, or the flusher soon after.
func (m *Module) Post(ctx context.Context, rank int, hdr, payload []byte) error {
	return m.write(ctx, rank, hdr, payload, nil, true)
}

// postBatch is how many records Post leaves unpublished at most.
const postBatch = 32

// write is Send, or Post when hold is set, of payload, or of what src
// packs if set.
func (m *Module) write(ctx context.Context, rank int, hdr, payload []byte, src *source, hold bool) error {
	if err := btl.CheckHeader(hdr); err != nil {
		return fmt.Errorf("send to world rank %d: %w", rank, err)
	}
	n := len(payload)
	if src != nil {
		n = src.n
	}
	if n > m.cfg.fragmentSize {
		return fmt.Errorf("send to world rank %d: payload of %d bytes exceeds the fragment size %d", rank, n, m.cfg.fragmentSize)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("send to world rank %d: %w", rank, err)
	}
	p, err := m.peerFor(rank)
	if err != nil {
		return err
	}
	if !m.lock(p) {
		return fmt.Errorf("send to world rank %d: the module is finalized", rank)
	}
	posted := hold
	if hold && atomic.LoadUint32(&p.posting) == 0 {
		// The first Post since the last Flush goes at once, as Send does:
		// a single Isend and its Wait (a ping-pong, a halo exchange) gain
		// nothing from holding it, and a held record costs its line
		// twice, once written while the receiver polls it and again when
		// Flush stamps it (8-byte Isend-Wait ping-pong 0.81 us one way,
		// Send 0.37). A window's later Posts are held.
		lowlevel.StoreRelease32(&p.posting, 1)
		hold = false
	}
	if hold {
		// Before the record: the locked instructions of hold would wait
		// for the record's lines, which the receiver holds.
		m.hold(p)
	}
	if !p.out.putKind(kindFrag, hdr, payload, src, hold) {
		if posted {
			if !m.roomSoon(p, hdr, payload, src, hold) {
				err = m.full(p)
			}
		} else {
			err = m.waitRoom(ctx, p, hdr, payload, src, hold)
		}
	}
	if !hold || err != nil || p.out.nstaged >= postBatch {
		m.publish(p)
	}
	lowlevel.UnlockFlag(&p.sending)
	return err
}

// hold marks p as holding staged records, and arms the flusher unless it
// runs already. The caller holds p's ring.
func (m *Module) hold(p *peer) {
	if p.held.Load() {
		return
	}
	p.held.Store(true)
	m.holding.Add(1)
	if !m.armed.Load() && m.armed.CompareAndSwap(false, true) {
		m.flusher.Reset(flushDelay)
	}
}

// lock takes p's ring for writing; false once the module is finalized.
func (m *Module) lock(p *peer) bool {
	for !p.sending.CompareAndSwap(false, true) {
		if m.closed.Load() { // Finalize holds the lock for good
			return false
		}
		lowlevel.Gosched()
	}
	if m.closed.Load() {
		p.sending.Store(false)
		return false
	}
	return true
}

// publish makes the records staged in p's ring visible and wakes the peer
// if it sleeps. The caller holds p's ring.
func (m *Module) publish(p *peer) {
	if p.held.Load() { // even with nothing staged: a full ring may have published them
		p.held.Store(false)
		m.holding.Add(-1)
	}
	if p.out.nstaged == 0 {
		return
	}
	p.out.publish()
	p.block.rouse()
}

// Flush publishes what Post left unpublished for rank (btl.Poster).
func (m *Module) Flush(rank int) {
	if rank < 0 || rank >= len(m.peers) {
		return
	}
	p := m.peers[rank]
	if p == nil {
		return
	}
	if atomic.LoadUint32(&p.posting) != 0 {
		lowlevel.StoreRelease32(&p.posting, 0)
	}
	if p.held.Load() && m.lock(p) {
		m.publish(p)
		lowlevel.UnlockFlag(&p.sending)
	}
}

// flushAll publishes what Post left unpublished for every peer. A peer
// whose ring another goroutine is writing is left to that writer or to
// the next call.
func (m *Module) flushAll() {
	for _, p := range m.peers {
		if p != nil && p.held.Load() && p.sending.CompareAndSwap(false, true) {
			if !m.closed.Load() {
				m.publish(p)
			}
			lowlevel.UnlockFlag(&p.sending)
		}
	}
}

// flushDelay bounds how long a record Post left unpublished waits for a
// poll, a send or a wait of its rank before the flusher publishes it. The
// timer is armed once and runs out while Posts go on, so it costs a
// wake-up per period, not per message: short against a computation that
// leaves MPI alone, long against that wake-up.
const flushDelay = 200 * time.Microsecond

// flush is the flusher's work: it publishes what Post held, and looks
// again later at a ring that a writer held meanwhile.
func (m *Module) flush() {
	m.armed.Store(false)
	if m.closed.Load() {
		return
	}
	m.flushAll()
	if m.holding.Load() > 0 && m.armed.CompareAndSwap(false, true) {
		m.flusher.Reset(flushDelay)
	}
}

// roomSoon retries a posted fragment while p frees room in its ring, and
// reports whether it went: a peer that polls makes room within
// microseconds, and writing then keeps the ring moving, where stalling
// the send would cost it a second pass (a window of 16 KiB Isends went at
// two thirds of the speed). It gives up once btl_sm_poll_spins tries find
// p's head where it was, at once on a host whose ranks outnumber its CPUs.
func (m *Module) roomSoon(p *peer, hdr, payload []byte, src *source, hold bool) bool {
	if m.oversubscribed {
		return false
	}
	head, still := p.out.head.Load(), 0
	for range roomSpins * m.cfg.pollSpins {
		if p.out.putKind(kindFrag, hdr, payload, src, hold) {
			return true
		}
		if h := p.out.head.Load(); h != head {
			head, still = h, 0
		} else if still++; still >= m.cfg.pollSpins {
			return false
		}
	}
	return false
}

// roomSpins bounds roomSoon's tries, in btl_sm_poll_spins: a send that
// finds room bit by bit still returns.
const roomSpins = 16

// full is what a Post that found p's ring full returns: btl.ErrFull, or
// p's failure once a liveness interval of such Posts found p gone. The
// caller holds p's ring.
func (m *Module) full(p *peer) error {
	p.block.rouse() // its ring is full of what it sleeps on
	if err := m.watch(p, &p.fullSince); err != nil {
		return err
	}
	return btl.ErrFull
}

// waitRoom retries a fragment until the peer's ring has room, the peer
// dies or ctx ends. A Source is packed only once there is room: put
// checks for room before it copies.
func (m *Module) waitRoom(ctx context.Context, p *peer, hdr, payload []byte, src *source, hold bool) error {
	p.block.rouse() // its ring is full of what it sleeps on
	var since time.Time
	for spins := 1; !p.out.putKind(kindFrag, hdr, payload, src, hold); spins++ {
		m.Progress()
		switch {
		case m.oversubscribed || spins > m.cfg.pollSpins:
			lowlevel.Yield()
		case spins%64 == 0:
			lowlevel.Gosched()
		}
		if spins%256 != 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("send to world rank %d: waiting for room: %w", p.rank, err)
		}
		if err := m.watch(p, &since); err != nil {
			return err
		}
	}
	return nil
}

// watch checks p once a liveness interval while the caller waits on it;
// since is when the wait began or p was last checked, zero at first.
func (m *Module) watch(p *peer, since *time.Time) error {
	now := time.Now()
	switch {
	case since.IsZero():
		*since = now
	case now.Sub(*since) >= m.cfg.liveness:
		*since = now
		return m.checkPeer(p)
	}
	return nil
}

// checkPeer reports a peer whose process is gone without finalizing.
func (m *Module) checkPeer(p *peer) error {
	if p.failed.Load() {
		return fmt.Errorf("world rank %d: %w", p.rank, btl.ErrPeerFailed)
	}
	if p.block.state.Load() == stateFinalized || alive(p.procID()) {
		return nil
	}
	err := fmt.Errorf("world rank %d (pid %d) is gone: %w", p.rank, p.procID(), btl.ErrPeerFailed)
	if p.failed.CompareAndSwap(false, true) {
		m.recv.PeerFailed(p.rank, err)
	}
	return err
}
