package trace

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// names returns the recorded events' names.
func names(t *Tracer) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for r := range t.events.all {
		out = append(out, r.name)
	}
	return out
}

// TestEveryCallRecorded calls every method of pmpi.API on a tracer over
// pmpi's real calls before Init (each fails at once) and checks that each
// left its event. Init, InitThread, Finalize and Abort would start or end
// the process's MPI.
func TestEveryCallRecorded(t *testing.T) {
	skip := []string{"Init", "InitThread", "Finalize", "Abort"}
	tr := newTracer(pmpi.Real(), config{maxEvents: 1000})
	v := reflect.ValueOf(tr)
	for _, fn := range prof.Functions {
		if slices.Contains(skip, fn.Name) {
			continue
		}
		m := v.MethodByName(fn.Name)
		if !m.IsValid() {
			t.Fatalf("no method %s", fn.Name)
		}
		in := make([]reflect.Value, m.Type().NumIn())
		for i := range in {
			in[i] = reflect.Zero(m.Type().In(i))
		}
		if fn.Name == "Pcontrol" {
			in[0] = reflect.ValueOf(1) // 0 would stop recording
		}
		m.Call(in)
		got := names(tr)
		if len(got) == 0 || got[len(got)-1] != "MPI_"+fn.Name {
			t.Errorf("%s: last event %v, want MPI_%s", fn.Name, got[max(0, len(got)-1):], fn.Name)
		}
	}
}

// TestPcontrol: 0 stops recording, 1 resumes, 2 marks a phase, and every
// level reaches the layer below.
func TestPcontrol(t *testing.T) {
	below := &levels{Base: prof.Base{Next: pmpi.Real()}}
	tr := newTracer(below, config{maxEvents: 1000})
	tr.Wtime()
	must(t, tr.Pcontrol(0))
	tr.Wtime() // not recorded
	must(t, tr.Pcontrol(1))
	must(t, tr.Pcontrol(2))
	tr.Wtime()
	want := []string{"MPI_Wtime", "MPI_Pcontrol", "phase 1", "MPI_Pcontrol", "MPI_Wtime"}
	if got := names(tr); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if !slices.Equal(below.got, []int{0, 1, 2}) {
		t.Errorf("levels below %v, want [0 1 2]", below.got)
	}
}

type levels struct {
	prof.Base
	got []int
}

func (l *levels) Pcontrol(level int) error {
	l.got = append(l.got, level)
	return nil
}

// TestTruncation: the rank stops at the limit and says so, once.
func TestTruncation(t *testing.T) {
	tr := newTracer(pmpi.Real(), config{maxEvents: 3})
	for range 10 {
		tr.Wtime()
	}
	want := []string{"MPI_Wtime", "MPI_Wtime", "MPI_Wtime", "trace truncated after 3 events"}
	if got := names(tr); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if !tr.truncated {
		t.Error("not marked truncated")
	}
}

// TestGoroutines: calls from several live goroutines each get their
// goroutine's thread id, and none is lost.
func TestGoroutines(t *testing.T) {
	tr := newTracer(pmpi.Real(), config{maxEvents: 10000})
	const goroutines, calls = 8, 50
	runAlive(goroutines, func() {
		for range calls {
			tr.Wtime()
		}
	})
	perTid := map[int32]int{}
	for r := range tr.events.all {
		perTid[r.tid]++
	}
	if len(perTid) != goroutines {
		t.Fatalf("%d thread ids, want %d", len(perTid), goroutines)
	}
	for tid, n := range perTid {
		if n != calls {
			t.Errorf("tid %d: %d events, want %d", tid, n, calls)
		}
	}
}

// fake is a layer below the tracer whose calls return at once, for the
// benchmarks and the tests that need only the tracer's own work.
type fake struct{ pmpi.API }

// fakeRequest is every Isend's request: complete as it started, like an
// eager send's, so the tracer does not track it.
var fakeRequest = new(pmpi.Request)

func (fake) Isend([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error) {
	return fakeRequest, nil
}
func (fake) Wait(*pmpi.Request) (pmpi.Status, error)                                 { return pmpi.Status{}, nil }
func (fake) Allreduce([]byte, []byte, int, pmpi.Datatype, pmpi.Op, *pmpi.Comm) error { return nil }

// fakeWorld returns a tracer over fake and a communicator it knows as the
// world, as after Init. The communicator has no members: only its name is
// read, and fake ignores it.
func fakeWorld(tb testing.TB, cfg config) (*Tracer, *pmpi.Comm) {
	tb.Helper()
	world := new(pmpi.Comm)
	if err := pmpi.Real().CommSetName(world, "world"); err != nil {
		tb.Fatal(err)
	}
	tr := newTracer(fake{}, cfg)
	tr.m.name(world, "world")
	return tr, world
}

// TestRecordedInOrder checks each goroutine's records as the recorder
// keeps them, before Finalize sorts them by time: one goroutine's calls
// follow each other, so each begins after the one before it ended, on
// the clock of the rank, which the snapshot moves by the offset alone.
// (The merged file is sorted, so that a clock going back would show there
// only as calls out of the program's order: TestJob checks that.)
func TestRecordedInOrder(t *testing.T) {
	tr, world := fakeWorld(t, config{maxEvents: 100_000})
	tr.sync = clockSync{offset: -3_000_000_000}
	const goroutines, calls = 4, 500
	buf := make([]byte, 8)
	runAlive(goroutines, func() {
		for range calls {
			r, err := tr.Isend(buf, 1, pmpi.Int64, 1, 0, world)
			if err == nil {
				_, err = tr.Wait(r)
			}
			if err == nil {
				err = tr.Allreduce(buf, buf, 1, pmpi.Int64, pmpi.OpSum, world)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	var raw []record
	for r := range tr.events.all {
		raw = append(raw, r)
	}
	rt := tr.snapshot()
	if len(rt.Events) != goroutines*calls*3 || len(raw) != len(rt.Events) {
		t.Fatalf("%d events, %d records; want %d", len(rt.Events), len(raw), goroutines*calls*3)
	}
	last := map[int32]wireEvent{}
	for i, e := range rt.Events {
		if e.Ts != raw[i].start+tr.sync.offset || e.Dur != raw[i].dur {
			t.Fatalf("event %d at %d for %d ns, recorded at %d for %d: want the start moved by %d only",
				i, e.Ts, e.Dur, raw[i].start, raw[i].dur, tr.sync.offset)
		}
		if e.Dur < 0 {
			t.Errorf("tid %d: %s lasts %d ns", e.Tid, e.Name, e.Dur)
		}
		if prev, ok := last[e.Tid]; ok && e.Ts < prev.Ts+prev.Dur {
			t.Errorf("tid %d: %s begins at %d, before %s, recorded before it, ended at %d",
				e.Tid, e.Name, e.Ts, prev.Name, prev.Ts+prev.Dur)
		}
		last[e.Tid] = e
	}
	if len(last) != goroutines {
		t.Errorf("%d tracks, want %d", len(last), goroutines)
	}
}

func TestGoid(t *testing.T) {
	a := lowlevel.GoroutineID()
	ch := make(chan uint64)
	go func() { ch <- lowlevel.GoroutineID() }()
	b := <-ch
	if a == 0 || b == 0 || a == b {
		t.Errorf("goroutine ids %d and %d: want two different non-zero ids", a, b)
	}
	if lowlevel.GoroutineID() != a {
		t.Error("goroutine id changed")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// runAlive runs f in n goroutines, none of which ends before all have run
// it: a goroutine that starts after another has ended may reuse its
// runtime descriptor, and so its track, which a test counting tracks must
// not see.
func runAlive(n int, f func()) {
	var ran, ended sync.WaitGroup
	release := make(chan struct{})
	for range n {
		ran.Add(1)
		ended.Add(1)
		go func() {
			defer ended.Done()
			f()
			ran.Done()
			<-release
		}()
	}
	ran.Wait()
	close(release)
	ended.Wait()
}
