package sm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/internal/lowlevel"
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

// procID is the peer's pid.
func (p *peer) procID() int { return int(p.pid.Load()) }

// peer is a local rank this module reaches.
type peer struct {
	rank, local int
	// pid is the peer's process: an atomic so that a test can make the
	// peer look dead while the listener checks it.
	pid     atomic.Int64
	block   rankBlock
	out     producer
	sending atomic.Bool // one sender writes the ring at a time
	held    atomic.Bool // Post staged records that nobody published yet
	added   atomic.Bool
	failed  atomic.Bool
	readsMe *atomic.Uint32 // in the segment: non-zero while the peer may read this rank's memory
	// posting is set by a Post and cleared by Flush: the first Post after
	// a Flush is published at once (see write). Release stores, as a
	// Flush that finds nothing held takes no lock.
	posting uint32
	// fullSince is when Posts began to find the ring full, or it was last
	// checked meanwhile (watch); the holder of sending owns it.
	fullSince time.Time

	copying  atomic.Bool // this rank shares a copy with the peer (shared.go)
	copySeq  uint64      // the last shared copy's number; the holder of copying owns it
	unhelped int         // shared copies in a row the peer took no part in; the holder of copying owns it
	alone    int         // copies to make without asking the peer first; likewise
	helpless bool        // writing into the peer's memory failed: it is not helped; the draining poller owns it

	// Blocking sends (blocking.go): the peer's line for this rank's, and
	// their count a size class; this rank's line for the peer's, and of
	// its receives from the peer a class, the last two times a byte (ps)
	// timed streamed and read, and the last one's way plus 1.
	ways          *blockingWays
	blockingSends [sizeClasses]atomic.Uint32
	timed         *blockingWays
	took          [sizeClasses][2][2]atomic.Int64
	lastWay       [sizeClasses]atomic.Uint32
}

func newModule(cfg config, env btl.InitEnv, host string, log hclog.Logger) (*Module, error) {
	if env.JobID == "" || len(env.JobID) > maxJobID {
		return nil, fmt.Errorf("job id %q: want 1 to %d bytes", env.JobID, maxJobID)
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
			return nil, fmt.Errorf("world rank %d's endpoint: %w", p.Rank, err)
		}
		if ep.localRank >= m.localSize {
			return nil, fmt.Errorf("world rank %d says it is local rank %d of a host with %d", p.Rank, ep.localRank, m.localSize)
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
			return nil, err
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
			pr = &peer{rank: p.Rank, local: ep.localRank, block: m.seg.rank(ep.localRank)}
			pr.pid.Store(int64(ep.pid))
			in := m.seg.ring(ep.localRank, m.localRank)
			pr.out = producer{ring: m.seg.ring(m.localRank, ep.localRank), answered: in.head}
			pr.out.w.Readers = pr.out.reads
			pr.readsMe = m.seg.readable(ep.localRank, m.localRank)
			pr.ways, pr.timed = m.seg.blockingWays(ep.localRank, m.localRank), m.seg.blockingWays(m.localRank, ep.localRank)
			m.setReadable(pr, m.tryCMA(p.Rank, ep))
			m.peers[p.Rank] = pr
			inbound = append(inbound, &consumer{ring: in, from: p.Rank,
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
		return nil, fmt.Errorf("world rank %d out of range (job of %d)", rank, m.size)
	}
	p := m.peers[rank]
	if p == nil || !p.added.Load() {
		return nil, fmt.Errorf("world rank %d: %w: not added", rank, btl.ErrUnreachable)
	}
	if p.failed.Load() {
		return nil, fmt.Errorf("world rank %d: %w", rank, btl.ErrPeerFailed)
	}
	return p, nil
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
			lowlevel.FutexWake(m.me.wake)
		}
		m.wg.Wait()
		m.flusher.Stop()
		m.flushAll() // what Post held back leaves before the rings are retired
		// Take every lock for good: no sender or draining poller touches
		// the segment once it is retired.
		m.closed.Store(true)
		for !m.consuming.CompareAndSwap(false, true) {
			lowlevel.Gosched()
		}
		for _, p := range m.peers {
			for p != nil && !p.sending.CompareAndSwap(false, true) {
				lowlevel.Gosched()
			}
		}
		if m.seg != nil {
			err = errors.Join(m.seg.unlink(), m.seg.retire())
		}
	})
	return err // Routes names the module and the step
}

var (
	_ btl.Module        = (*Module)(nil)
	_ btl.Idler         = (*Module)(nil)
	_ btl.SingleCopier  = (*Module)(nil)
	_ btl.VectorReader  = (*Module)(nil)
	_ btl.Poster        = (*Module)(nil)
	_ btl.Gatherer      = (*Module)(nil)
	_ btl.ScatterCopier = (*Module)(nil)
	_ btl.TrySender     = (*Module)(nil)
)
