package stats_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/gompi/gompi/components/prof/stats"
	"github.com/gompi/gompi/pmpi"
)

// fake is the layer below the stats layer: it does nothing, and records
// the Pcontrol levels passed down.
type fake struct {
	pmpi.API
	levels []int
}

func (*fake) Send([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) error             { return nil }
func (*fake) Allreduce([]byte, []byte, int, pmpi.Datatype, pmpi.Op, *pmpi.Comm) error { return nil }
func (*fake) Wait(*pmpi.Request) (pmpi.Status, error)                                 { return pmpi.Status{}, nil }
func (*fake) Isend([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error) {
	return fakeRequest, nil
}

// fakeRequest is every Isend's request.
var fakeRequest = new(pmpi.Request)

func (f *fake) Pcontrol(level int) error {
	f.levels = append(f.levels, level)
	return nil
}

var world = &pmpi.Comm{}

const ranks = 4

func newLayer() (*stats.Layer, *fake) {
	f := &fake{}
	return stats.NewLayer(f, world, ranks), f
}

func send(l pmpi.API, buf []byte, dest int) error {
	return l.Send(buf, len(buf), pmpi.Byte, dest, 0, world) // the call site of the tests
}

// TestConcurrentCallsCountedOnce counts sends from several goroutines
// at once: each exactly once, for its function, its site and its peer.
func TestConcurrentCallsCountedOnce(t *testing.T) {
	l, _ := newLayer()
	const goroutines, calls = 8, 500
	buf := make([]byte, 24)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range calls {
				if err := send(l, buf, g%ranks); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	ph := l.Flush()
	if len(ph.Funcs) != 1 || ph.Funcs[0].Name != "Send" || ph.Funcs[0].Calls != goroutines*calls || ph.Funcs[0].Bytes != goroutines*calls*24 {
		t.Fatalf("functions: %+v", ph.Funcs)
	}
	if len(ph.Sites) != 1 || ph.Sites[0].Calls != goroutines*calls || ph.Sites[0].Caller != "github.com/gompi/gompi/components/prof/stats_test.send" {
		t.Fatalf("sites: %+v", ph.Sites)
	}
	for r := range ranks {
		if want := int64(goroutines / ranks * calls); ph.P2P.Msgs[r] != want || ph.P2P.Bytes[r] != want*24 {
			t.Errorf("peer %d: %d messages, %d bytes; want %d, %d", r, ph.P2P.Msgs[r], ph.P2P.Bytes[r], want, want*24)
		}
	}
	if ph.Funcs[0].MinNs > ph.Funcs[0].MaxNs || ph.Funcs[0].Ns < ph.Funcs[0].MaxNs {
		t.Errorf("extremes out of order: %+v", ph.Funcs[0])
	}
}

// TestPcontrol checks that 0 stops, 1 resumes and 2 flushes a phase, and
// that every level passes down.
func TestPcontrol(t *testing.T) {
	l, f := newLayer()
	buf := make([]byte, 8)
	mustSend := func(n int) {
		for range n {
			if err := send(l, buf, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustSend(2)
	for _, level := range []int{0, 7} {
		if err := l.Pcontrol(level); err != nil {
			t.Fatal(err)
		}
	}
	mustSend(5) // not counted
	if err := l.Pcontrol(1); err != nil {
		t.Fatal(err)
	}
	mustSend(3)
	if err := l.Pcontrol(2); err != nil {
		t.Fatal(err)
	}
	mustSend(1)
	if got := l.Flush(); got.Funcs[0].Calls != 1 {
		t.Errorf("after the flush: %d calls, want 1", got.Funcs[0].Calls)
	}
	if want := []int{0, 7, 1, 2}; !equal(f.levels, want) {
		t.Errorf("levels passed down: %v, want %v", f.levels, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNoAllocationPerCall checks the steady state: once the call site is
// known, a counted call allocates nothing.
func TestNoAllocationPerCall(t *testing.T) {
	l, _ := newLayer()
	buf := make([]byte, 64)
	if n := testing.AllocsPerRun(1000, func() { _ = send(l, buf, 1) }); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

func BenchmarkSendBase(b *testing.B) {
	var l pmpi.API = &fake{}
	buf := make([]byte, 64)
	for b.Loop() {
		_ = send(l, buf, 1)
	}
}

func BenchmarkSendStats(b *testing.B) {
	l, _ := newLayer()
	buf := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		_ = send(l, buf, 1)
	}
}

func BenchmarkSendStatsOff(b *testing.B) {
	l, _ := newLayer()
	_ = l.Pcontrol(0)
	buf := make([]byte, 64)
	for b.Loop() {
		_ = send(l, buf, 1)
	}
}

func BenchmarkSendStatsParallel(b *testing.B) {
	l, _ := newLayer()
	buf := make([]byte, 64)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = send(l, buf, 1)
		}
	})
	_ = runtime.NumCPU()
}

// BenchmarkAllreduceStats counts a collective: on the empty test world
// of no members, the cost of everything but the per-member loop.
func BenchmarkAllreduceStats(b *testing.B) {
	l, _ := newLayer()
	buf := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		_ = l.Allreduce(buf, buf, 8, pmpi.Float64, pmpi.OpSum, world)
	}
}

// BenchmarkLayer is what the stats layer adds to the calls of
// frameworks/prof's BenchmarkStack, an Isend and its Wait and an
// Allreduce of 8 bytes, over fake, whose calls return at once: fake alone
// (base), under the layer counting (stats), and under the layer stopped
// by Pcontrol(0) (off). As in BenchmarkAllreduceStats, the Allreduce is on
// the empty test world: its loop over the members costs nothing here.
func BenchmarkLayer(b *testing.B) {
	dt := pmpi.TypeOf[int64]()
	send, recv := make([]byte, 8), make([]byte, 8)
	for _, mode := range []string{"base", "stats", "off"} {
		l, f := newLayer()
		var api pmpi.API = l
		switch mode {
		case "base":
			api = f
		case "off":
			_ = l.Pcontrol(0)
		}
		b.Run(mode+"/isend-wait", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := api.Isend(send, 1, dt, 1, 0, world)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := api.Wait(r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(mode+"/allreduce-8B", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := api.Allreduce(send, recv, 1, dt, pmpi.OpSum, world); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFlushWhileCounting flushes phases while goroutines send: however
// the calls fall into phases, each is counted in exactly one.
func TestFlushWhileCounting(t *testing.T) {
	l, _ := newLayer()
	const goroutines, calls = 4, 2000
	buf := make([]byte, 3)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range calls {
				_ = send(l, buf, 2)
			}
		})
	}
	var sum, siteSum, peerSum int64
	add := func(ph stats.PhasePart) {
		for _, f := range ph.Funcs {
			sum += f.Calls
		}
		for _, s := range ph.Sites {
			siteSum += s.Calls
		}
		peerSum += ph.P2P.Msgs[2]
	}
	for range 20 {
		add(l.Flush())
	}
	wg.Wait()
	add(l.Flush())
	if want := int64(goroutines * calls); sum != want || siteSum != want || peerSum != want {
		t.Errorf("counted %d calls, %d at sites, %d to the peer; want %d each", sum, siteSum, peerSum, want)
	}
}
