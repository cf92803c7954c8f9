package trace_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, tracejob string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prof_trace_test")
	if err != nil {
		panic(err)
	}
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../../cmd/gompirun", "tracejob": "./testdata/tracejob"})
	if err != nil {
		panic(err)
	}
	gompirun, tracejob = bins["gompirun"], bins["tracejob"]
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// event is a trace event as a viewer reads it; pointers tell a missing
// field from a zero one.
type event struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	ID   uint64         `json:"id"`
	Bp   string         `json:"bp"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

// runJob runs tracejob on 3 ranks under the trace tool and returns the
// trace's events.
func runJob(t *testing.T, extra ...string) []event {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace.json")
	args := append([]string{"--timeout", "120", "-np", "3", "--oversubscribe", "--mca", "prof", "trace",
		"--mca", "prof_trace_output", out}, extra...)
	j := jobtest.Run(t, gompirun, 150*time.Second, nil, append(args, tracejob)...)
	if j.Code != 0 || strings.Count(j.Stdout, "ok rank") != 3 {
		t.Fatalf("job failed\n%v", j)
	}
	if !strings.Contains(j.Stderr, "gompirun: report written: "+out+"\n") {
		t.Errorf("stderr does not name the trace file\n%v", j)
	}
	return readTrace(t, out)
}

// readTrace reads a trace file and checks that it is JSON whose every
// event has a pid, tid, ts and ph.
func readTrace(t *testing.T, path string) []event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		TraceEvents []event `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("the trace is not JSON: %v", err)
	}
	for i, e := range file.TraceEvents {
		if e.Pid == nil || e.Ts == nil || e.Tid == nil || e.Ph == "" {
			t.Fatalf("event %d has no pid, tid, ts or ph: %+v", i, e)
		}
	}
	return file.TraceEvents
}

// track is one rank's goroutine: a timeline of its own.
type track struct{ pid, tid int }

// TestJob runs known traffic and checks what a viewer relies on: ranks
// named, time in order, calls nested, one arrow per message.
func TestJob(t *testing.T) {
	evs := runJob(t)
	named := map[int]string{}
	lastTs := map[int]float64{}
	open := map[track][]event{} // enclosing calls still open, per track
	byTrack := map[track][]event{}
	for _, e := range evs {
		pid, ts := *e.Pid, *e.Ts
		if e.Ph == "M" && e.Name == "process_name" {
			named[pid] = fmt.Sprint(e.Args["name"])
		}
		if ts < lastTs[pid] {
			t.Errorf("rank %d: %s at %v after %v", pid, e.Name, ts, lastTs[pid])
		}
		lastTs[pid] = ts
		if e.Ph != "X" {
			continue
		}
		if e.Dur == nil || *e.Dur < 0 {
			t.Fatalf("X event without a duration: %+v", e)
		}
		k := track{pid, *e.Tid}
		stack := open[k]
		for len(stack) > 0 && end(stack[len(stack)-1]) <= ts {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && end(e) > end(stack[len(stack)-1]) {
			t.Errorf("rank %d tid %d: %s [%v, %v] overlaps %s [%v, %v] without nesting", pid, k.tid,
				e.Name, ts, end(e), stack[len(stack)-1].Name, *stack[len(stack)-1].Ts, end(stack[len(stack)-1]))
		}
		open[k] = append(stack, e)
		byTrack[k] = append(byTrack[k], e)
	}
	for r := range 3 {
		if named[r] != fmt.Sprintf("rank %d", r) {
			t.Errorf("rank %d is named %q", r, named[r])
		}
	}

	// Every arrow has one start in a sending call and one end in a
	// receiving one, on the same track.
	starts, ends := map[uint64]event{}, map[uint64]event{}
	for _, e := range evs {
		switch e.Ph {
		case "s":
			if _, dup := starts[e.ID]; dup {
				t.Errorf("arrow %d starts twice", e.ID)
			}
			starts[e.ID] = e
		case "f":
			if _, dup := ends[e.ID]; dup {
				t.Errorf("arrow %d ends twice", e.ID)
			}
			if e.Bp != "e" {
				t.Errorf("arrow %d ends without bp e", e.ID)
			}
			ends[e.ID] = e
		}
	}
	sendsWithArrow := map[string]int{}
	for id, s := range starts {
		f, ok := ends[id]
		if !ok {
			t.Errorf("arrow %d from rank %d has no end", id, *s.Pid)
			continue
		}
		call := enclosing(byTrack, s)
		sendsWithArrow[fmt.Sprintf("%s %d->%d", call.Name, *s.Pid, *f.Pid)]++
		if recv := enclosing(byTrack, f); !strings.Contains("MPI_Recv MPI_Wait MPI_Sendrecv", recv.Name) || recv.Name == "" {
			t.Errorf("arrow %d ends in %q", id, recv.Name)
		}
	}
	if len(ends) != len(starts) {
		t.Errorf("%d arrow ends for %d starts", len(ends), len(starts))
	}
	// The known traffic: 0->1 twice and 2->1 to AnySource receives; 1->0
	// Isend; three Sendrecv rings of 3; 0->2 once recorded after the
	// pause; 0->2 on the split communicator.
	want := map[string]int{
		"MPI_Send 0->1": 2, "MPI_Send 2->1": 1, "MPI_Isend 1->0": 1,
		"MPI_Sendrecv 0->1": 3, "MPI_Sendrecv 1->2": 3, "MPI_Sendrecv 2->0": 3,
		"MPI_Send 0->2": 2,
	}
	if fmt.Sprint(sendsWithArrow) != fmt.Sprint(want) {
		t.Errorf("arrows %v, want %v", sendsWithArrow, want)
	}
	// Every recorded send has exactly one arrow.
	for k, calls := range byTrack {
		for _, c := range calls {
			if c.Name != "MPI_Send" && c.Name != "MPI_Isend" && c.Name != "MPI_Sendrecv" {
				continue
			}
			n := 0
			for _, s := range starts {
				if (track{*s.Pid, *s.Tid}) == k && *s.Ts >= *c.Ts && *s.Ts <= end(c) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("rank %d: %s at %v has %d arrows", k.pid, c.Name, *c.Ts, n)
			}
		}
	}
	// The goroutines' rings ran on tracks of their own.
	for r := range 3 {
		tids := map[int]bool{}
		for k := range byTrack {
			if k.pid == r {
				tids[k.tid] = true
			}
		}
		if len(tids) < 3 {
			t.Errorf("rank %d: %d tracks, want the main goroutine's and two more", r, len(tids))
		}
	}
	phases := 0
	for _, e := range evs {
		if e.Ph == "i" && strings.HasPrefix(e.Name, "phase ") {
			phases++
		}
	}
	if phases != 6 {
		t.Errorf("%d phase marks, want 2 per rank", phases)
	}
}

// TestJobTruncated: with a tiny limit every rank stops and says so.
func TestJobTruncated(t *testing.T) {
	evs := runJob(t, "--mca", "prof_trace_max_events", "5")
	calls, notes := map[int]int{}, map[int]int{}
	for _, e := range evs {
		switch {
		case e.Name == "trace truncated after 5 events":
			notes[*e.Pid]++
		case e.Ph == "X" || e.Ph == "i":
			calls[*e.Pid]++
		}
	}
	for r := range 3 {
		if notes[r] != 1 || calls[r] != 5 {
			t.Errorf("rank %d: %d events and %d notes, want 5 and 1", r, calls[r], notes[r])
		}
	}
}

func end(e event) float64 { return *e.Ts + *e.Dur }

// enclosing returns the innermost call on f's track whose slice holds f.
func enclosing(byTrack map[track][]event, f event) event {
	var best event
	for _, c := range byTrack[track{*f.Pid, *f.Tid}] {
		if *c.Ts <= *f.Ts && *f.Ts <= end(c) && (best.Ts == nil || *c.Ts >= *best.Ts) {
			best = c
		}
	}
	return best
}
