package pml

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
)

// net connects n engines in one process. Each ordered pair of ranks has a
// link with its own reader goroutine, as a tcp connection has, so delivery
// is ordered per pair and concurrent across pairs.
type net struct {
	engines []*Engine
	links   map[[2]int]*link
	eager   int
	maxSend int
}

type frame struct {
	hdr, payload []byte
}

type link struct {
	from, to int
	mu       sync.Mutex
	cond     *sync.Cond
	frames   []frame
	closed   bool
	dst      *Engine
}

func (l *link) push(f frame) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return btl.ErrPeerFailed
	}
	l.frames = append(l.frames, f)
	l.cond.Signal()
	return nil
}

func (l *link) run(wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		l.mu.Lock()
		for len(l.frames) == 0 && !l.closed {
			l.cond.Wait()
		}
		if len(l.frames) == 0 {
			l.mu.Unlock()
			return
		}
		f := l.frames[0]
		l.frames = l.frames[1:]
		l.mu.Unlock()
		if dst := l.dst.Place(l.from, f.hdr, len(f.payload)); dst != nil {
			copy(dst, f.payload)
			l.dst.Deliver(l.from, f.hdr, dst, true)
		} else {
			l.dst.Deliver(l.from, f.hdr, f.payload, false)
		}
	}
}

// fakeModule is rank `me`'s view of the net.
type fakeModule struct {
	n  *net
	me int
}

func (m *fakeModule) Name() string                               { return "fake" }
func (m *fakeModule) Exclusivity() int                           { return 1 }
func (m *fakeModule) Bandwidth() int                             { return 1 }
func (m *fakeModule) EagerLimit() int                            { return m.n.eager }
func (m *fakeModule) MaxSendSize() int                           { return m.n.maxSend }
func (m *fakeModule) Progress() int                              { return 0 }
func (m *fakeModule) Finalize() error                            { return nil }
func (m *fakeModule) DelProcs(context.Context, []btl.Proc) error { return nil }
func (m *fakeModule) AddProcs(context.Context, []btl.Proc) ([]bool, error) {
	return nil, errors.New("unused")
}

// Send copies the fragment, as a transport's write would.
func (m *fakeModule) Send(_ context.Context, peer int, hdr, payload []byte) error {
	return m.n.links[[2]int{m.me, peer}].push(frame{slices.Clone(hdr), slices.Clone(payload)})
}

// transports hands the engine one module for every peer.
type transports struct{ btl.Module }

func (t transports) For(int) btl.Module { return t.Module }

// newNet starts n engines; they stop when the test ends.
func newNet(t testing.TB, n, eager, maxSend int) *net {
	return newNetWith(t, n, eager, maxSend, func(m *fakeModule) btl.Module { return m })
}

// newNetWith is newNet with each rank's module wrapped by wrap.
func newNetWith(t testing.TB, n, eager, maxSend int, wrap func(*fakeModule) btl.Module) *net {
	nt := &net{links: map[[2]int]*link{}, eager: eager, maxSend: maxSend}
	for i := range n {
		nt.engines = append(nt.engines, New(i, hclog.NewNullLogger(), DefaultConfig()))
	}
	var wg sync.WaitGroup
	for i := range n {
		for j := range n {
			l := &link{from: i, to: j, dst: nt.engines[j]}
			l.cond = sync.NewCond(&l.mu)
			nt.links[[2]int{i, j}] = l
			wg.Add(1)
			go l.run(&wg)
		}
	}
	for i, e := range nt.engines {
		e.Start(transports{wrap(&fakeModule{n: nt, me: i})})
	}
	t.Cleanup(func() {
		for _, l := range nt.links {
			l.mu.Lock()
			l.closed = true
			l.cond.Signal()
			l.mu.Unlock()
		}
		wg.Wait()
		for _, e := range nt.engines {
			e.Drain()
		}
	})
	return nt
}

// kill makes rank r vanish: its links close and its peers are told.
func (nt *net) kill(r int) {
	for key, l := range nt.links {
		if key[0] == r || key[1] == r {
			l.mu.Lock()
			l.closed = true
			l.cond.Signal()
			l.mu.Unlock()
		}
	}
	for i, e := range nt.engines {
		if i != r {
			e.PeerFailed(r, errors.New("connection reset"))
		}
	}
}
