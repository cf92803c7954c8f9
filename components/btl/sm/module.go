package sm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/frameworks/btl"
)

// Module is the sm transport of one rank. Its methods are safe for
// concurrent use.
type Module struct {
	cfg            config
	eagerLimit     int // config.eager, read per message
	log            hclog.Logger
	rank, size     int
	host           string
	jobID          string
	localRank      int
	localSize      int
	modex          btl.Modex
	recv           btl.Receiver
	oversubscribed bool

	seg   *segment
	me    rankBlock
	probe *[1]uint64 // read by peers to test cross-memory attach

	setupMu sync.Mutex // AddProcs and DelProcs
	peers   []*peer    // by world rank; nil for ranks not on this host
	inbound atomic.Pointer[[]*consumer]

	consuming atomic.Bool  // one poller drains the rings at a time
	holding   atomic.Int32 // peers whose rings hold staged records (Post)
	flusher   *time.Timer  // publishes what Post held, should nothing else
	armed     atomic.Bool  // the flusher's timer runs: a Post need not touch it
	idle      atomic.Int32 // waiters that stopped polling (Idle minus Busy)
	kick      chan struct{}
	done      chan struct{}
	listening bool
	wg        sync.WaitGroup
	closed    atomic.Bool
	final     sync.Once
}

// peer is a local rank this module reaches.
type peer struct {
	rank, local int
	pid         int
	block       rankBlock
	out         producer
	sending     atomic.Bool // one sender writes the ring at a time
	held        atomic.Bool // Post staged records that nobody published yet
	added       atomic.Bool
	failed      atomic.Bool
	readsMe     *atomic.Uint32 // in the segment: non-zero while the peer may read this rank's memory
	// posting is set by a Post and cleared by Flush: the first Post after
	// a Flush is published at once (see write). Release stores, as a
	// Flush that finds nothing held takes no lock.
	posting uint32

	copying  atomic.Bool // this rank shares a copy with the peer (shared.go)
	copySeq  uint64      // the last shared copy's number; the holder of copying owns it
	unhelped int         // shared copies in a row the peer took no part in; the holder of copying owns it
	alone    int         // copies to make without asking the peer first; likewise
	helpless bool        // writing into the peer's memory failed: it is not helped; the draining poller owns it
}

func newModule(cfg config, env btl.InitEnv, host string, log hclog.Logger) (*Module, error) {
	if env.JobID == "" || len(env.JobID) > maxJobID {
		return nil, fmt.Errorf("btl sm: job id %q: want 1 to %d bytes", env.JobID, maxJobID)
	}
	m := &Module{
		cfg: cfg, eagerLimit: cfg.eager(), log: log, rank: env.Rank, size: env.Size, host: host, jobID: env.JobID,
		localRank: env.LocalRank, localSize: env.LocalSize, modex: env.Modex, recv: env.Receiver,
		oversubscribed: env.Oversubscribed,
		probe:          &[1]uint64{randomWord()},
		peers:          make([]*peer, env.Size),
		kick:           make(chan struct{}, 1),
		done:           make(chan struct{}),
	}
	m.flusher = time.AfterFunc(time.Hour, m.flush)
	m.flusher.Stop() // armed by the first record Post holds
	return m, nil
}

func (m *Module) probeAddr() uint64 { return uint64(uintptr(unsafe.Pointer(m.probe))) }

// Name is "sm".
func (m *Module) Name() string { return "sm" }

// Exclusivity is btl_sm_exclusivity: above tcp, below self.
func (m *Module) Exclusivity() int { return m.cfg.exclusivity }

// Bandwidth in Mbit/s, for ties in exclusivity.
func (m *Module) Bandwidth() int { return 40000 }

// EagerLimit is btl_sm_eager_limit, below the single-copy threshold
// while single copy may be used (config.eager).
func (m *Module) EagerLimit() int { return m.eagerLimit }

// MaxSendSize is btl_sm_fragment_size.
func (m *Module) MaxSendSize() int { return m.cfg.fragmentSize }

// AddProcs reaches the ranks on this host that published an sm endpoint:
// it maps the segment (the host's first rank made it), and removes the
// segment's name once every local rank has mapped it.
func (m *Module) AddProcs(ctx context.Context, procs []btl.Proc) ([]bool, error) {
	m.setupMu.Lock()
	defer m.setupMu.Unlock()
	reach := make([]bool, len(procs))
	eps := map[int]endpoint{}
	creator := -1
	for _, p := range procs {
		if p.Hostname != m.host || p.Rank < 0 || p.Rank >= m.size {
			continue
		}
		b, err := m.modex.Get(ctx, p.Rank, modexKey)
		if err != nil {
			m.log.Debug("no sm endpoint; not reached by sm", "peer", p.Rank, "error", err)
			continue
		}
		ep, err := decodeEndpoint(b)
		if err != nil {
			return nil, fmt.Errorf("btl sm: rank %d's endpoint: %w", p.Rank, err)
		}
		if ep.localRank >= m.localSize {
			return nil, fmt.Errorf("btl sm: rank %d says it is local rank %d of a host with %d", p.Rank, ep.localRank, m.localSize)
		}
		eps[p.Rank] = ep
		if ep.localRank == 0 {
			creator = p.Rank
		}
	}
	if m.seg == nil {
		if creator < 0 {
			m.log.Warn("the host's first rank published no segment; sm reaches no peer")
			return reach, nil
		}
		seg, err := openSegment(eps[creator].path, m.jobID, m.localSize)
		if err != nil {
			return nil, fmt.Errorf("btl sm: %w", err)
		}
		m.seg = seg
	}
	if m.me.wake == nil {
		m.me = m.seg.rank(m.localRank)
		m.me.pid.Store(uint32(unix.Getpid()))
		m.me.state.Store(stateAttached)
		if int(m.seg.attached().Add(1)) == m.localSize {
			// Every local rank has it mapped: nothing can leave it behind now.
			if err := m.seg.unlink(); err != nil {
				m.log.Warn("cannot remove the segment's name", "path", m.seg.path, "error", err)
			}
		}
	}
	m.me.state.Store(stateAttached)
	inbound := slices.Clone(m.consumers())
	for i, p := range procs {
		ep, ok := eps[p.Rank]
		if !ok || p.Rank == m.rank {
			continue
		}
		pr := m.peers[p.Rank]
		if pr == nil {
			pr = &peer{rank: p.Rank, local: ep.localRank, pid: ep.pid, block: m.seg.rank(ep.localRank)}
			pr.out = producer{ring: m.seg.ring(m.localRank, ep.localRank)}
			pr.readsMe = m.seg.readable(ep.localRank, m.localRank)
			m.setReadable(pr, m.tryCMA(p.Rank, ep))
			m.peers[p.Rank] = pr
			inbound = append(inbound, &consumer{ring: m.seg.ring(ep.localRank, m.localRank), from: p.Rank,
				help: func(seq uint64) { m.help(pr, seq) }})
		}
		pr.added.Store(true)
		reach[i] = true
	}
	m.inbound.Store(&inbound)
	if !m.listening {
		m.listening = true
		m.wg.Add(1)
		go m.listen()
	}
	return reach, nil
}

// tryCMA reads the peer's probe word to learn whether the kernel lets
// this process read the peer's memory.
func (m *Module) tryCMA(rank int, ep endpoint) bool {
	if m.cfg.singleCopy == "none" || m.cfg.singleCopyMin == 0 {
		return false
	}
	var got [8]byte
	err := readFrom(ep.pid, uintptr(ep.probeAddr), got[:])
	if err == nil && *(*uint64)(unsafe.Pointer(&got)) == ep.probeValue {
		return true
	}
	if err == nil {
		err = errors.New("the probe word read back wrong")
	}
	if m.cfg.singleCopy == "cma" {
		m.log.Warn("cross-memory attach refused; large messages go through the ring", "peer", rank, "error", err)
	} else {
		m.log.Debug("cross-memory attach refused; large messages go through the ring", "peer", rank, "error", err)
	}
	return false
}

// setReadable records in the segment whether this rank may read p's
// memory: p exposes its buffers to this rank only while it may.
func (m *Module) setReadable(p *peer, ok bool) {
	var v uint32
	if ok {
		v = 1
	}
	m.seg.readable(m.localRank, p.local).Store(v)
}

func (m *Module) consumers() []*consumer {
	if p := m.inbound.Load(); p != nil {
		return *p
	}
	return nil
}

// DelProcs stops sending to procs. The peers see this rank as finalized,
// not failed, when it exits.
func (m *Module) DelProcs(_ context.Context, procs []btl.Proc) error {
	m.setupMu.Lock()
	defer m.setupMu.Unlock()
	for _, p := range procs {
		if p.Rank >= 0 && p.Rank < len(m.peers) && m.peers[p.Rank] != nil {
			m.Flush(p.Rank)
			m.peers[p.Rank].added.Store(false)
		}
	}
	if m.me.state != nil {
		m.me.state.Store(stateFinalized)
	}
	return nil
}

func (m *Module) peerFor(rank int) (*peer, error) {
	if rank < 0 || rank >= len(m.peers) {
		return nil, fmt.Errorf("btl sm: rank %d out of range (job of %d)", rank, m.size)
	}
	p := m.peers[rank]
	if p == nil || !p.added.Load() {
		return nil, fmt.Errorf("btl sm: rank %d: %w: not added", rank, btl.ErrUnreachable)
	}
	if p.failed.Load() {
		return nil, fmt.Errorf("btl sm: rank %d: %w", rank, btl.ErrPeerFailed)
	}
	return p, nil
}

// Send copies the fragment into the peer's ring. When the ring is full it
// waits, draining this rank's own rings meanwhile: two ranks that fill
// each other's rings must not wait for each other.
func (m *Module) Send(ctx context.Context, rank int, hdr, payload []byte) error {
	return m.write(ctx, rank, hdr, payload, false)
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
	return m.write(context.Background(), rank, b[:], payload, hold)
}

// Post is Send that may leave the fragment unpublished, to be published
// with the ones after it (btl.Poster): a window of non-blocking sends then
// costs one wait for the line the receiver polls, not one per message. It
// is published by the module's next Progress, a Send or Flush to the
// peer, a full batch, or the flusher soon after.
func (m *Module) Post(ctx context.Context, rank int, hdr, payload []byte) error {
	return m.write(ctx, rank, hdr, payload, true)
}

// postBatch is how many records Post leaves unpublished at most.
const postBatch = 32

func (m *Module) write(ctx context.Context, rank int, hdr, payload []byte, hold bool) error {
	if err := btl.CheckHeader(hdr); err != nil {
		return fmt.Errorf("btl sm: send to rank %d: %w", rank, err)
	}
	if len(payload) > m.cfg.fragmentSize {
		return fmt.Errorf("btl sm: send to rank %d: payload of %d bytes exceeds the fragment size %d", rank, len(payload), m.cfg.fragmentSize)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("btl sm: send to rank %d: %w", rank, err)
	}
	p, err := m.peerFor(rank)
	if err != nil {
		return err
	}
	if !m.lock(p) {
		return fmt.Errorf("btl sm: send to rank %d: the module is finalized", rank)
	}
	if hold && atomic.LoadUint32(&p.posting) == 0 {
		// The first Post since the last Flush goes at once, as Send does:
		// a single Isend and its Wait (a ping-pong, a halo exchange) gain
		// nothing from holding it, and a held record costs its line
		// twice, once written while the receiver polls it and again when
		// Flush stamps it (8-byte Isend-Wait ping-pong 0.81 us one way,
		// Send 0.37). A window's later Posts are held.
		btl.StoreRelease32(&p.posting, 1)
		hold = false
	}
	if hold {
		// Before the record: the locked instructions of hold would wait
		// for the record's lines, which the receiver holds.
		m.hold(p)
	}
	if !p.out.put(hdr, payload, hold) {
		err = m.waitRoom(ctx, p, hdr, payload, hold)
	}
	if !hold || err != nil || p.out.nstaged >= postBatch {
		m.publish(p)
	}
	unlock(&p.sending)
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
		runtime.Gosched()
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
	if p.block.sleeping.Load() != 0 {
		p.block.wake.Add(1)
		wakeAll(p.block.wake)
	}
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
		btl.StoreRelease32(&p.posting, 0)
	}
	if p.held.Load() && m.lock(p) {
		m.publish(p)
		unlock(&p.sending)
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
			unlock(&p.sending)
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

// waitRoom retries a fragment until the peer's ring has room, the peer
// dies or ctx ends.
func (m *Module) waitRoom(ctx context.Context, p *peer, hdr, payload []byte, hold bool) error {
	if p.block.sleeping.Load() != 0 { // its ring is full of what it sleeps on
		p.block.wake.Add(1)
		wakeAll(p.block.wake)
	}
	var since time.Time
	for spins := 1; !p.out.put(hdr, payload, hold); spins++ {
		m.Progress()
		switch {
		case m.oversubscribed || spins > m.cfg.pollSpins:
			btl.Yield()
		case spins%64 == 0:
			runtime.Gosched()
		}
		if spins%256 != 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("btl sm: send to rank %d: waiting for room: %w", p.rank, err)
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
		return fmt.Errorf("btl sm: rank %d: %w", p.rank, btl.ErrPeerFailed)
	}
	if p.block.state.Load() == stateFinalized || alive(p.pid) {
		return nil
	}
	err := fmt.Errorf("btl sm: rank %d (pid %d) is gone: %w", p.rank, p.pid, btl.ErrPeerFailed)
	if p.failed.CompareAndSwap(false, true) {
		m.recv.PeerFailed(p.rank, err)
	}
	return err
}

// Progress delivers what the local peers wrote into this rank's rings.
func (m *Module) Progress() int {
	if m.holding.Load() != 0 {
		m.flushAll()
	}
	ins := m.consumers()
	if !anyPending(ins) || !m.consuming.CompareAndSwap(false, true) {
		return 0 // an empty poll is loads only: no locked instruction
	}
	n := 0
	for _, c := range ins {
		if c.broken || !c.pending() {
			continue
		}
		if p := m.peers[c.from]; p != nil {
			p.out.reserve()
		}
		k, err := c.drain(m.recv)
		n += k
		if err != nil {
			c.broken = true
			m.fail(c.from, fmt.Errorf("btl sm: ring from rank %d: %w", c.from, err))
		}
	}
	unlock(&m.consuming)
	return n
}

func anyPending(ins []*consumer) bool {
	for _, c := range ins {
		if c.pending() {
			return true
		}
	}
	return false
}

func (m *Module) fail(rank int, err error) {
	if p := m.peers[rank]; p != nil && p.failed.CompareAndSwap(false, true) {
		m.log.Error("peer failed", "peer", rank, "error", err)
		m.recv.PeerFailed(rank, fmt.Errorf("%w: %w", btl.ErrPeerFailed, err))
	}
}

// Idle is called when a waiter stops polling: the listener then delivers,
// woken by the peers.
func (m *Module) Idle() {
	if m.idle.Add(1) == 1 {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// Busy is called when a waiter polls again.
func (m *Module) Busy() {
	if m.idle.Add(-1) == 0 && m.me.wake != nil && m.me.sleeping.Load() != 0 {
		m.me.wake.Add(1)
		wakeAll(m.me.wake) // the listener may sleep: let it see that it can stop
	}
}

// Doze sleeps the calling thread on the rank's wake-up word, which a peer
// that publishes to a sleeping rank bumps (btl.Dozer). It looks at the
// rings without draining them: the waiter polls when Doze returns.
func (m *Module) Doze(d time.Duration, ready func() bool) {
	if m.me.wake == nil || m.closed.Load() {
		btl.Yield() // nothing to sleep on: the caller's loop must not spin
		return
	}
	if m.holding.Load() != 0 {
		m.flushAll() // what Post held back leaves before the rank sleeps
	}
	m.me.sleeping.Add(1)
	v := m.me.wake.Load()
	if !anyPending(m.consumers()) && !ready() {
		doze(m.me.wake, v, d)
	}
	m.me.sleeping.Add(^uint32(0)) // -1
}

// Wake ends the rank's Dozes (btl.Dozer).
func (m *Module) Wake() {
	if m.me.wake == nil {
		return
	}
	m.me.wake.Add(1)
	if m.me.sleeping.Load() != 0 {
		wakeAll(m.me.wake)
	}
}

// listen delivers while the rank's waiters sleep: it announces that it
// sleeps, checks the rings once more, then sleeps on its wake-up word
// until a peer bumps it. Every liveness interval it checks the peers.
func (m *Module) listen() {
	defer m.wg.Done()
	var checked time.Time
	for {
		select {
		case <-m.done:
			return
		case <-m.kick:
		}
		m.me.sleeping.Add(1) // a count: the rank's dozing threads announce themselves too
		for m.idle.Load() > 0 && !m.closed.Load() {
			v := m.me.wake.Load()
			if m.Progress() > 0 {
				continue
			}
			sleepOn(m.me.wake, v, m.cfg.liveness)
			if now := time.Now(); now.Sub(checked) >= m.cfg.liveness {
				checked = now
				m.checkPeers()
			}
		}
		m.me.sleeping.Add(^uint32(0)) // -1
		// A Busy and an Idle may both have come while we slept.
		if m.idle.Load() > 0 {
			select {
			case m.kick <- struct{}{}:
			default:
			}
		}
	}
}

func (m *Module) checkPeers() {
	for _, p := range m.peers {
		if p != nil && p.added.Load() {
			_ = m.checkPeer(p)
		}
	}
}

// SingleCopyMin is btl_sm_single_copy_threshold for peers that can read
// this rank's memory with cross-memory attach (they said so in the
// segment), else 0.
func (m *Module) SingleCopyMin(rank int) int {
	if rank < 0 || rank >= len(m.peers) || m.cfg.singleCopy == "none" {
		return 0
	}
	if p := m.peers[rank]; p == nil || p.readsMe.Load() == 0 {
		return 0
	}
	return m.cfg.singleCopyMin
}

// Expose returns buf's address: the peer reads it with process_vm_readv.
// The Go heap does not move, and the caller keeps buf reachable until the
// peer has read it.
func (m *Module) Expose(_ int, buf []byte) uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
}

// Read copies from the buffer rank exposed as token. A refusal by the
// kernel turns single copy off for that peer.
func (m *Module) Read(rank int, token uint64, off int, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	p, err := m.singleCopyPeer(rank)
	if err != nil {
		return err
	}
	src := uintptr(token) + uintptr(off)
	if m.shares(p, len(dst)) {
		return m.readErr(p, rank, m.readShared(p, src, dst))
	}
	return m.readErr(p, rank, readFrom(p.pid, src, dst))
}

// ReadAll reads several buffers that rank exposed, in as few system
// calls as it can (btl.VectorReader).
func (m *Module) ReadAll(rank int, tokens []uint64, dsts [][]byte) error {
	if len(tokens) != len(dsts) {
		return fmt.Errorf("btl sm: read from rank %d: %d tokens for %d buffers", rank, len(tokens), len(dsts))
	}
	p, err := m.singleCopyPeer(rank)
	if err != nil {
		return err
	}
	var addrs [maxVector]uintptr
	var bufs [maxVector][]byte
	for len(dsts) > 0 {
		n := 0
		for len(dsts) > 0 && n < maxVector {
			if len(dsts[0]) > 0 {
				addrs[n], bufs[n] = uintptr(tokens[0]), dsts[0]
				n++
			}
			tokens, dsts = tokens[1:], dsts[1:]
		}
		if n == 0 {
			break
		}
		if err := m.readErr(p, rank, readMany(p.pid, addrs[:n], bufs[:n])); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) singleCopyPeer(rank int) (*peer, error) {
	if rank < 0 || rank >= len(m.peers) || m.peers[rank] == nil {
		return nil, fmt.Errorf("btl sm: read from rank %d: not a local peer", rank)
	}
	return m.peers[rank], nil
}

// readErr turns a failed read from rank into the module's error, and
// stops single copy to a peer whose kernel refuses it.
func (m *Module) readErr(p *peer, rank int, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) {
		m.setReadable(p, false) // the peer stops exposing its buffers to this rank
		m.log.Debug("cross-memory attach refused; large messages go through the ring", "peer", rank, "error", err)
	}
	return fmt.Errorf("btl sm: read from rank %d: %w", rank, err)
}

// Finalize stops the listener and releases the segment, removing its name
// if some local rank never mapped it.
func (m *Module) Finalize() error {
	var err error
	m.final.Do(func() {
		close(m.done)
		if m.me.wake != nil {
			m.me.state.Store(stateFinalized)
			m.me.wake.Add(1)
			wakeAll(m.me.wake)
		}
		m.wg.Wait()
		m.flusher.Stop()
		m.flushAll() // what Post held back leaves before the rings are retired
		// Take every lock for good: no sender or draining poller touches
		// the segment once it is retired.
		m.closed.Store(true)
		for !m.consuming.CompareAndSwap(false, true) {
			runtime.Gosched()
		}
		for _, p := range m.peers {
			for p != nil && !p.sending.CompareAndSwap(false, true) {
				runtime.Gosched()
			}
		}
		if m.seg != nil {
			err = errors.Join(m.seg.unlink(), m.seg.retire())
		}
	})
	if err != nil {
		return fmt.Errorf("btl sm: finalize: %w", err)
	}
	return nil
}

var (
	_ btl.Module       = (*Module)(nil)
	_ btl.Idler        = (*Module)(nil)
	_ btl.SingleCopier = (*Module)(nil)
	_ btl.VectorReader = (*Module)(nil)
	_ btl.Poster       = (*Module)(nil)
)
