package pml

import (
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// exchangeAllocs returns the allocations of one steady-state eager
// message of size bytes between two engines joined by btltest.Direct,
// the receive posted before the message arrives or after it (unexpected).
func exchangeAllocs(t *testing.T, size int, unexpected bool) float64 {
	a := New(0, hclog.NewNullLogger(), DefaultConfig())
	b := New(1, hclog.NewNullLogger(), DefaultConfig())
	a.Start(&btltest.Direct{To: b, From: 0, Eager: 4096})
	b.Start(&btltest.Direct{To: a, From: 1, Eager: 4096})
	msg, buf := make([]byte, size), make([]byte, size)
	exchange := func() {
		var r *Request
		if !unexpected {
			r = b.irecv(nil, 0, 0, 7, buf, nil, true)
		}
		if err := a.Send(0, 1, 7, msg, false); err != nil {
			t.Fatal(err)
		}
		if unexpected {
			r = b.irecv(nil, 0, 0, 7, buf, nil, true)
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
		t.Skip("the race detector's sync.Pool drops items on purpose: make test checks allocations without it")
	}
	if n := exchangeAllocs(t, 2048, true); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
}
