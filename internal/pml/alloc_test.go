package pml

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
)

// direct hands a fragment to the peer engine at once, without copying or
// allocating, as btl self does within a process.
type direct struct {
	peer  *Engine
	from  int
	eager int
}

func (d *direct) Name() string                               { return "direct" }
func (d *direct) Exclusivity() int                           { return 1 }
func (d *direct) Bandwidth() int                             { return 1 }
func (d *direct) EagerLimit() int                            { return d.eager }
func (d *direct) MaxSendSize() int                           { return 1 << 20 }
func (d *direct) Progress() int                              { return 0 }
func (d *direct) Finalize() error                            { return nil }
func (d *direct) DelProcs(context.Context, []btl.Proc) error { return nil }
func (d *direct) AddProcs(context.Context, []btl.Proc) ([]bool, error) {
	return nil, errors.New("unused")
}
func (d *direct) Send(_ context.Context, _ int, hdr, payload []byte) error {
	d.peer.Deliver(d.from, hdr, payload, false)
	return nil
}
func (d *direct) For(int) btl.Module { return d }

// exchangeAllocs returns the allocations of one steady-state eager
// message of size bytes between two engines joined by direct, the receive
// posted before the message arrives or after it (unexpected).
func exchangeAllocs(t *testing.T, size int, unexpected bool) float64 {
	a := New(0, hclog.NewNullLogger(), DefaultConfig())
	b := New(1, hclog.NewNullLogger(), DefaultConfig())
	a.Start(&direct{peer: b, from: 0, eager: 4096})
	b.Start(&direct{peer: a, from: 1, eager: 4096})
	msg, buf := make([]byte, size), make([]byte, size)
	exchange := func() {
		var r *Request
		if !unexpected {
			r = b.irecv(nil, 0, 0, 7, buf, true)
		}
		if err := a.Send(0, 1, 7, msg, false); err != nil {
			t.Fatal(err)
		}
		if unexpected {
			r = b.irecv(nil, 0, 0, 7, buf, true)
		}
		if st := b.Wait(r); st.Bytes != len(msg) {
			t.Fatalf("status %+v", st)
		}
		b.Release(r)
	}
	exchange()
	return testing.AllocsPerRun(1000, exchange)
}

// TestBlockingPathDoesNotAllocate checks the steady state of a blocking
// eager send matched by a posted receive: pooled requests and headers, no
// channel unless someone sleeps.
func TestBlockingPathDoesNotAllocate(t *testing.T) {
	if n := exchangeAllocs(t, 64, false); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
}

// TestUnexpectedPathDoesNotAllocate is the same with the receive posted
// after the message arrived, as most are when ranks outnumber CPUs: the
// copy of the payload comes from a pool.
func TestUnexpectedPathDoesNotAllocate(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's sync.Pool drops items on purpose")
	}
	if n := exchangeAllocs(t, 2048, true); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
}
