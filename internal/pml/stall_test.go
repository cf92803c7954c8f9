package pml

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// filling is a transport whose rings to some peers are full: a Post to
// them returns btl.ErrFull, a Send would wait (the test fails instead).
// It records the fragments it took, by peer and tag, with their type.
type filling struct {
	btltest.Discard
	t     *testing.T
	limit int
	mu    sync.Mutex // a blocking send's wait polls from another goroutine
	full  map[int]bool
	took  []string
}

// fillingEngine is rank 0's engine over a filling transport whose ring to
// rank 1 is full, with an eager limit of 64 bytes.
func fillingEngine(t *testing.T) (*filling, *Engine) {
	tr := &filling{t: t, full: map[int]bool{1: true}, limit: 64}
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(tr)
	return tr, e
}

func (f *filling) setFull(peer int, full bool) {
	f.mu.Lock()
	f.full[peer] = full
	f.mu.Unlock()
}

func (f *filling) taken() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.took)
}

func (f *filling) For(int) btl.Module { return f }
func (f *filling) EagerLimit() int    { return f.limit }
func (f *filling) Flush(int)          {}
func (f *filling) Post(_ context.Context, peer int, hdr, _ []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.full[peer] {
		return btl.ErrFull
	}
	return f.take(peer, hdr)
}
func (f *filling) Send(_ context.Context, peer int, hdr, _ []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.full[peer] {
		f.t.Errorf("a Send to rank %d, whose ring is full, would wait", peer)
	}
	return f.take(peer, hdr)
}

func (f *filling) take(peer int, hdr []byte) error {
	h, err := decodeHeader(hdr)
	if err != nil {
		return err
	}
	f.took = append(f.took, fmt.Sprintf("%d:%s:%d", peer, map[uint8]string{typeMatch: "match", typeRTS: "rts"}[h.typ], h.tag))
	return nil
}

// A non-blocking send to a peer whose ring is full stays pending, and the
// sends after it to that peer, blocking ones too, wait behind it; a send
// to another peer goes. A poll once the ring has room sends them in
// order, and the requests complete.
func TestStalledSendsKeepTheirOrder(t *testing.T) {
	tr, e := fillingEngine(t)
	eager := e.Isend(world, 1, 1, make([]byte, 8), false)
	rts := e.Isend(world, 1, 2, make([]byte, 100), false)
	if sent, err := e.PostEager(world, 1, 3, make([]byte, 8), 0); sent || err != nil {
		t.Fatalf("PostEager behind stalled sends: sent %v, %v", sent, err)
	}
	later := e.Isend(world, 1, 3, make([]byte, 8), false)
	other := e.Isend(world, 2, 4, make([]byte, 8), false)
	if eager.Done() || later.Done() || !other.Done() {
		t.Fatalf("done: stalled %v, behind it %v, to another peer %v; want false, false, true", eager.Done(), later.Done(), other.Done())
	}
	if want := []string{"2:match:4"}; !slices.Equal(tr.taken(), want) {
		t.Fatalf("the transport took %v, want %v", tr.taken(), want)
	}
	blocked := make(chan error)
	go func() { blocked <- e.Send(world, 1, 5, make([]byte, 8), false) }()
	for e.stalled.Load() != 4 { // the blocking send has queued behind them
		e.Progress()
	}
	tr.setFull(1, false)
	if err := <-blocked; err != nil { // its wait polled, which sent them all
		t.Fatal(err)
	}
	for _, r := range []*Request{eager, later} {
		if st := e.Wait(r); st.Err != nil {
			t.Fatal(st.Err)
		}
	}
	if rts.Done() {
		t.Fatal("a rendezvous send completed before its CTS")
	}
	want := []string{"2:match:4", "1:match:1", "1:rts:2", "1:match:3", "1:match:5"}
	if !slices.Equal(tr.taken(), want) {
		t.Fatalf("the transport took %v, want %v", tr.taken(), want)
	}
}

// A stalled send cancels at once: no receiver has seen it, and it never
// goes.
func TestCancelStalledSend(t *testing.T) {
	tr, e := fillingEngine(t)
	for _, size := range []int{8, 100} { // eager, rendezvous
		r := e.Isend(world, 1, 1, make([]byte, size), false)
		if ok, err := e.Cancel(r); !ok || err != nil {
			t.Fatalf("%d bytes: Cancel of a stalled send: %v, %v", size, ok, err)
		}
		if st := e.Wait(r); !st.Cancelled || st.Err != nil {
			t.Fatalf("%d bytes: status %+v, want cancelled", size, st)
		}
	}
	tr.setFull(1, false)
	e.Progress()
	if len(tr.taken()) != 0 || e.stalled.Load() != 0 {
		t.Fatalf("the transport took %v, %d stalled; want nothing", tr.taken(), e.stalled.Load())
	}
}

// A stalled send to a peer that fails completes with the failure at the
// next poll.
func TestStalledSendToFailedPeer(t *testing.T) {
	_, e := fillingEngine(t)
	eager := e.Isend(world, 1, 1, make([]byte, 8), false)
	rts := e.Isend(world, 1, 2, make([]byte, 100), false)
	e.PeerFailed(1, fmt.Errorf("world rank 1: %w", btl.ErrPeerFailed))
	e.Unstall()
	for _, r := range []*Request{eager, rts} {
		if st := e.Wait(r); st.Err == nil {
			t.Fatalf("a stalled send to a failed peer: status %+v, want its failure", st)
		}
	}
}
