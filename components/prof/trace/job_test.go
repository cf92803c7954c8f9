package trace_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, tracejob, tracekinds string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the job tests skip themselves (runJob)
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "prof_trace_test")
	if err != nil {
		panic(err)
	}
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../../cmd/gompirun", "tracejob": "./testdata/tracejob",
		"tracekinds": "./testdata/tracekinds"})
	if err != nil {
		panic(err)
	}
	gompirun, tracejob, tracekinds = bins["gompirun"], bins["tracejob"], bins["tracekinds"]
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
	return runProgram(t, tracejob, 3, extra...)
}

// runProgram runs prog on np ranks under the trace tool and returns the
// trace's events.
func runProgram(t *testing.T, prog string, np int, extra ...string) []event {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a gompirun job")
	}
	out := filepath.Join(t.TempDir(), "trace.json")
	args := append([]string{"--timeout", "120", "-np", strconv.Itoa(np), "--oversubscribe", "--mca", "prof", "trace",
		"--mca", "prof_trace_output", out}, extra...)
	j := jobtest.Run(t, gompirun, 150*time.Second, nil, append(args, prog)...)
	if j.Code != 0 || strings.Count(j.Stdout, "ok rank") != np {
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
// named, each rank's calls in the order it made them, calls nested, one
// arrow per message, from inside its send to inside its receive, and
// calls on ProcNull with no bytes and no arrow.
func TestJob(t *testing.T) {
	evs := runJob(t)
	named := map[int]string{}
	open := map[track][]event{} // enclosing calls still open, per track
	byTrack := map[track][]event{}
	nestedIn := map[string]int{}  // "outer > inner" call names
	program := map[int][]string{} // each rank's main goroutine's own calls and marks
	for _, e := range evs {
		pid, ts := *e.Pid, *e.Ts
		if e.Ph == "M" && e.Name == "process_name" {
			named[pid] = fmt.Sprint(e.Args["name"])
		}
		k := track{pid, *e.Tid}
		stack := open[k]
		for len(stack) > 0 && end(stack[len(stack)-1]) <= ts {
			stack = stack[:len(stack)-1]
		}
		open[k] = stack
		// A phase's mark falls inside the Pcontrol that ends the phase.
		if k.tid == 1 && (e.Ph == "X" && len(stack) == 0 || e.Ph == "i") && !madeByMPI[e.Name] {
			program[pid] = append(program[pid], e.Name)
		}
		if e.Ph != "X" {
			continue
		}
		if e.Dur == nil || *e.Dur < 0 {
			t.Fatalf("X event without a duration: %+v", e)
		}
		if len(stack) > 0 {
			outer := stack[len(stack)-1]
			if end(e) > end(outer) {
				t.Errorf("rank %d tid %d: %s [%v, %v] overlaps %s [%v, %v] without nesting", pid, k.tid,
					e.Name, ts, end(e), outer.Name, *outer.Ts, end(outer))
			}
			nestedIn[outer.Name+" > "+e.Name]++
		}
		open[k] = append(stack, e)
		byTrack[k] = append(byTrack[k], e)
	}
	// The only calls made inside others are the user's operation's
	// Iprobes; at least one rank applies the operation.
	if len(nestedIn) != 1 || nestedIn["MPI_Allreduce > MPI_Iprobe"] == 0 {
		t.Errorf("calls nested in others: %v, want MPI_Iprobe in MPI_Allreduce only", nestedIn)
	}
	for r := range 3 {
		if named[r] != fmt.Sprintf("rank %d", r) {
			t.Errorf("rank %d is named %q", r, named[r])
		}
	}
	// The file is sorted by time, so time is always in order in it: what
	// can go wrong is a rank's clock, and then its calls in time order are
	// not the order in which tracejob made them.
	for r, want := range programOrder {
		if got := program[r]; !slices.Equal(got, want) {
			t.Errorf("rank %d's main goroutine in time order:\n%q\nwant the program's order:\n%q", r, got, want)
		}
	}

	// Every arrow has one start in a sending call and one end in a
	// receiving one, on the same track.
	pairs, starts, ends := arrows(t, evs, byTrack)
	sendsWithArrow := map[string]int{}
	for _, a := range pairs {
		id, s, f, send, recv := a.id, a.s, a.f, a.send, a.recv
		sendsWithArrow[fmt.Sprintf("%s %d->%d", send.Name, *s.Pid, *f.Pid)]++
		if *f.Ts < *s.Ts {
			t.Errorf("arrow %d goes back in time: leaves rank %d at %v, arrives on rank %d at %v",
				id, *s.Pid, *s.Ts, *f.Pid, *f.Ts)
		}
		checkArrowEnd(t, id, "leaves", s, send, "MPI_Send", "MPI_Isend", "MPI_Sendrecv")
		checkArrowEnd(t, id, "arrives", f, recv, "MPI_Recv", "MPI_Wait", "MPI_Sendrecv")
		if send.Ts == nil || recv.Ts == nil {
			continue
		}
		// The send names the receiving rank and the receive the sending
		// one, in their communicator's ranks, with the same tag.
		sent := message{comm: fmt.Sprint(send.Args["comm_id"]), src: *s.Pid, dst: worldRank(send, "peer"), tag: intArg(send, "tag")}
		if send.Name == "MPI_Sendrecv" {
			sent.dst, sent.tag = worldRank(send, "dest"), intArg(send, "send_tag")
		}
		got := message{comm: fmt.Sprint(recv.Args["comm_id"]), src: worldRank(recv, "peer"), dst: *f.Pid, tag: intArg(recv, "tag")}
		if sent != got {
			t.Errorf("arrow %d: %s %+v arrives in %s %+v", id, send.Name, sent, recv.Name, got)
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
	// Every recorded send has exactly one arrow, but for those to ProcNull,
	// which have none and move no bytes, as the receives from it.
	nullCalls := map[string]int{}
	for k, calls := range byTrack {
		for _, c := range calls {
			if intArg(c, "peer") == -2 && (c.Name == "MPI_Send" || c.Name == "MPI_Recv") {
				nullCalls[c.Name]++
				if b := intArg(c, "bytes"); b != 0 {
					t.Errorf("rank %d: %s on ProcNull with %d bytes, want 0", k.pid, c.Name, b)
				}
				continue
			}
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
	if fmt.Sprint(nullCalls) != "map[MPI_Recv:3 MPI_Send:3]" {
		t.Errorf("calls on ProcNull %v, want a Send and a Recv on each rank", nullCalls)
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

// TestJobKinds: every kind of point-to-point call (buffered and ready
// sends, persistent and partitioned requests, matched probes, the
// send-receive family, TestSome) starts or ends its message's arrow, on
// communicators named alike on both ranks (Idup, an intercommunicator and
// its merge, CreateGroup). tracekinds gives every message of a stream a
// length of its own: an arrow whose two calls record different lengths,
// or different communicators, joins the wrong two messages.
func TestJobKinds(t *testing.T) {
	evs := runProgram(t, tracekinds, 2)
	byTrack := map[track][]event{}
	for _, e := range evs {
		if e.Ph == "X" {
			k := track{*e.Pid, *e.Tid}
			byTrack[k] = append(byTrack[k], e)
		}
	}
	pairs, starts, ends := arrows(t, evs, byTrack)
	// Where a call records the message's length: the send half of the
	// send-receive family; none in calls on several requests.
	length := func(call event, sending bool) (float64, bool) {
		key := "bytes"
		if sending && call.Args["send_bytes"] != nil {
			key = "send_bytes"
		}
		v, ok := call.Args[key].(float64)
		return v, ok
	}
	compared := 0
	for _, a := range pairs {
		id, s, f, send, recv := a.id, a.s, a.f, a.send, a.recv
		sent, ok1 := length(send, true)
		got, ok2 := length(recv, false)
		if !ok1 || !ok2 {
			continue
		}
		compared++
		if sent != got || send.Args["comm_id"] != recv.Args["comm_id"] {
			t.Errorf("arrow %d joins %s of %v bytes on %v (rank %d) to %s of %v bytes on %v (rank %d)", id,
				send.Name, sent, send.Args["comm_id"], *s.Pid, recv.Name, got, recv.Args["comm_id"], *f.Pid)
		}
	}
	// tracekinds sends 38 messages; 5 of them start or end in a call on
	// several requests (Startall, TestSome, WaitAll).
	if len(starts) != 38 || len(ends) != 38 || compared != 33 {
		t.Errorf("%d arrow starts, %d ends, %d with both lengths; want 38, 38 and 33", len(starts), len(ends), compared)
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

// madeByMPI are the calls tracejob makes to learn its world (CommWorld,
// Rank, Size), left out of programOrder.
var madeByMPI = map[string]bool{"MPI_CommWorld": true, "MPI_CommRank": true, "MPI_CommSize": true}

// programOrder is what each rank's main goroutine calls in tracejob,
// calls made inside others left out; the Pcontrol(1) of rank 0 is not
// recorded, since recording was paused when it began.
var programOrder = map[int][]string{
	0: {"MPI_Init", "MPI_Pcontrol", "phase 1", "MPI_Send", "MPI_Send", "MPI_Irecv", "MPI_Wait", "MPI_Sendrecv",
		"MPI_Allreduce", "MPI_OpCreate", "MPI_Allreduce", "MPI_Pcontrol", "phase 2", "MPI_Pcontrol", "MPI_Send",
		"MPI_CommSplit", "MPI_Send", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Finalize"},
	1: {"MPI_Init", "MPI_Pcontrol", "phase 1", "MPI_Recv", "MPI_Recv", "MPI_Recv", "MPI_Isend", "MPI_Wait", "MPI_Sendrecv",
		"MPI_Allreduce", "MPI_OpCreate", "MPI_Allreduce", "MPI_Pcontrol", "phase 2", "MPI_CommSplit", "MPI_Send", "MPI_Recv",
		"MPI_Barrier", "MPI_Finalize"},
	2: {"MPI_Init", "MPI_Pcontrol", "phase 1", "MPI_Send", "MPI_Sendrecv", "MPI_Allreduce", "MPI_OpCreate", "MPI_Allreduce",
		"MPI_Pcontrol", "phase 2", "MPI_Recv", "MPI_Recv", "MPI_CommSplit", "MPI_Recv", "MPI_Send", "MPI_Recv", "MPI_Barrier",
		"MPI_Finalize"},
}

// checkArrowEnd checks that an arrow's end e lies inside call, its
// innermost enclosing slice, which must be one of names: from its start to
// before its end, where a viewer binds the arrow to it.
func checkArrowEnd(t *testing.T, id uint64, what string, e, call event, names ...string) {
	t.Helper()
	if call.Ts == nil || !slices.Contains(names, call.Name) {
		t.Errorf("arrow %d %s rank %d at %v in %q, want one of %q", id, what, *e.Pid, *e.Ts, call.Name, names)
		return
	}
	if *e.Ts < *call.Ts || *e.Ts >= end(call) {
		t.Errorf("arrow %d %s rank %d at %v, not inside %s [%v, %v)", id, what, *e.Pid, *e.Ts, call.Name, *call.Ts, end(call))
	}
}

// message is one message as a call describes it, in world ranks.
type message struct {
	comm          string
	src, dst, tag int
}

func intArg(e event, key string) int {
	v, ok := e.Args[key].(float64)
	if !ok {
		return -100
	}
	return int(v)
}

// worldRank translates a call's rank argument to a world rank: tracejob's
// only other communicator with traffic is ranks 0 and 2's half of the
// split.
func worldRank(call event, key string) int {
	r := intArg(call, key)
	if call.Args["comm_id"] == "world.0" && r >= 0 && r < 2 {
		return []int{0, 2}[r]
	}
	return r
}

// arrow is a message arrow's two ends and the calls that hold them.
type arrow struct {
	id         uint64
	s, f       event // its start and its end
	send, recv event // the innermost calls that hold them
}

// arrows pairs the trace's arrow starts with their ends and finds the
// calls that hold them; an arrow that starts or ends twice, or has no
// end, is an error. It returns the starts and ends by id too.
func arrows(t *testing.T, evs []event, byTrack map[track][]event) ([]arrow, map[uint64]event, map[uint64]event) {
	t.Helper()
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
	var pairs []arrow
	for id, s := range starts {
		f, ok := ends[id]
		if !ok {
			t.Errorf("arrow %d from rank %d has no end", id, *s.Pid)
			continue
		}
		pairs = append(pairs, arrow{id: id, s: s, f: f, send: enclosing(byTrack, s), recv: enclosing(byTrack, f)})
	}
	return pairs, starts, ends
}

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
