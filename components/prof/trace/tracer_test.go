package trace

import (
	"reflect"
	"slices"
	"sync"
	"testing"

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

// TestGoroutines: calls from several goroutines at once each get their
// goroutine's thread id, and none is lost.
func TestGoroutines(t *testing.T) {
	tr := newTracer(pmpi.Real(), config{maxEvents: 10000})
	const goroutines, calls = 8, 50
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				tr.Wtime()
			}
		}()
	}
	wg.Wait()
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

func TestGoid(t *testing.T) {
	a := goid()
	ch := make(chan uint64)
	go func() { ch <- goid() }()
	b := <-ch
	if a == 0 || b == 0 || a == b {
		t.Errorf("goroutine ids %d and %d: want two different non-zero ids", a, b)
	}
	if goid() != a {
		t.Error("goroutine id changed")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
