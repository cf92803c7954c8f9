package btltest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/btl"
)

// Loopback is an in-memory transport between the ranks of a job in one
// process, for testing the layers above btl. Each ordered pair of ranks
// has a link with its own delivering goroutine, as a tcp connection has,
// so fragments are ordered per pair and concurrent across pairs. Send
// copies the fragment, as a write to a socket would.
type Loopback struct {
	eager, maxSend int
	recvs          []btl.Receiver
	links          map[[2]int]*link
	wg             sync.WaitGroup
	closeOnce      sync.Once
}

type queued struct{ hdr, payload []byte }

type link struct {
	from   int
	dst    btl.Receiver
	mu     sync.Mutex
	cond   *sync.Cond
	frames []queued
	closed bool
}

// NewLoopback connects one rank per receiver, with the given eager limit
// and largest fragment payload. Close stops it.
func NewLoopback(eagerLimit, maxSendSize int, recvs []btl.Receiver) *Loopback {
	l := &Loopback{eager: eagerLimit, maxSend: maxSendSize, recvs: recvs, links: map[[2]int]*link{}}
	for from := range recvs {
		for to, r := range recvs {
			k := &link{from: from, dst: r}
			k.cond = sync.NewCond(&k.mu)
			l.links[[2]int{from, to}] = k
			l.wg.Go(k.run)
		}
	}
	return l
}

func (k *link) push(q queued) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return false
	}
	k.frames = append(k.frames, q)
	k.cond.Signal()
	return true
}

func (k *link) close() {
	k.mu.Lock()
	k.closed = true
	k.cond.Signal()
	k.mu.Unlock()
}

// run delivers the link's fragments in order until it closes; what is
// queued when it closes is lost, as on a broken connection.
func (k *link) run() {
	for {
		k.mu.Lock()
		for len(k.frames) == 0 && !k.closed {
			k.cond.Wait()
		}
		if k.closed {
			k.mu.Unlock()
			return
		}
		q := k.frames[0]
		k.frames = k.frames[1:]
		k.mu.Unlock()
		if dst := k.dst.Place(k.from, q.hdr, len(q.payload)); dst != nil && len(dst) == len(q.payload) {
			copy(dst, q.payload)
			k.dst.Deliver(k.from, q.hdr, dst, true)
		} else {
			k.dst.Deliver(k.from, q.hdr, q.payload, false)
		}
	}
}

// Module returns rank's module. AddProcs reaches every rank of the job.
func (l *Loopback) Module(rank int) btl.Module {
	return &loopModule{l: l, rank: rank, added: make([]atomic.Bool, len(l.recvs))}
}

// Kill makes rank vanish: its links close, losing what they hold, and
// every other rank's receiver is told that it failed.
func (l *Loopback) Kill(rank int) {
	for key, k := range l.links {
		if key[0] == rank || key[1] == rank {
			k.close()
		}
	}
	for i, r := range l.recvs {
		if i != rank {
			r.PeerFailed(rank, fmt.Errorf("world rank %d: %w: killed", rank, btl.ErrPeerFailed))
		}
	}
}

// Close stops every link's goroutine and waits for them.
func (l *Loopback) Close() {
	l.closeOnce.Do(func() {
		for _, k := range l.links {
			k.close()
		}
	})
	l.wg.Wait()
}

type loopModule struct {
	l         *Loopback
	rank      int
	added     []atomic.Bool
	finalized atomic.Bool
}

func (m *loopModule) Name() string     { return "loopback" }
func (m *loopModule) Exclusivity() int { return 1 }
func (m *loopModule) Bandwidth() int   { return 1 }
func (m *loopModule) EagerLimit() int  { return m.l.eager }
func (m *loopModule) MaxSendSize() int { return m.l.maxSend }
func (m *loopModule) Progress() int    { return 0 }

func (m *loopModule) Finalize() error {
	m.finalized.Store(true)
	return nil
}

func (m *loopModule) AddProcs(_ context.Context, procs []btl.Proc) ([]bool, error) {
	return m.mark(procs, true)
}

func (m *loopModule) DelProcs(_ context.Context, procs []btl.Proc) error {
	_, err := m.mark(procs, false)
	return err
}

func (m *loopModule) mark(procs []btl.Proc, added bool) ([]bool, error) {
	reach := make([]bool, len(procs))
	for i, p := range procs {
		if p.Rank < 0 || p.Rank >= len(m.added) {
			return nil, fmt.Errorf("world rank %d out of range 0-%d", p.Rank, len(m.added)-1)
		}
		m.added[p.Rank].Store(added)
		reach[i] = true
	}
	return reach, nil
}

// Send queues a copy of the fragment. A payload above MaxSendSize is an error.
func (m *loopModule) Send(_ context.Context, peer int, hdr, payload []byte) error {
	switch {
	case peer < 0 || peer >= len(m.added):
		return fmt.Errorf("send to world rank %d: out of range 0-%d", peer, len(m.added)-1)
	case m.finalized.Load():
		return fmt.Errorf("send to world rank %d: the module is finalized", peer)
	case !m.added[peer].Load():
		return fmt.Errorf("send to world rank %d: %w: not added", peer, btl.ErrUnreachable)
	case len(payload) > m.l.maxSend:
		return fmt.Errorf("send to world rank %d: payload of %d bytes exceeds MaxSendSize %d", peer, len(payload), m.l.maxSend)
	}
	if err := btl.CheckHeader(hdr); err != nil {
		return fmt.Errorf("send to world rank %d: %w", peer, err)
	}
	if !m.l.links[[2]int{m.rank, peer}].push(queued{slices.Clone(hdr), slices.Clone(payload)}) {
		return fmt.Errorf("send to world rank %d: %w", peer, btl.ErrPeerFailed)
	}
	return nil
}
