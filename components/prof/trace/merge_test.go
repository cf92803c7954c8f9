package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMerge: the merged trace starts at 0, names the ranks, keeps the
// arrows whose two ends it has, drops the others, and orders each rank's
// events in time with an enclosing call before what it encloses.
func TestMerge(t *testing.T) {
	const base = int64(1_700_000_000_000_000_000)
	ranks := []rankTrace{
		{Rank: 1, Threads: map[int32]uint64{1: 1}, Events: []wireEvent{
			{Name: "MPI_Recv", Ts: base + 5000, Dur: 4000, Tid: 1, Flows: []wireFlow{{ID: 7, In: true}}},
			{Name: "MPI_Recv", Ts: base + 9000, Dur: 1000, Tid: 1, Flows: []wireFlow{{ID: 9, In: true}}},
		}},
		{Rank: 0, Truncated: true, Threads: map[int32]uint64{1: 1}, Events: []wireEvent{
			{Name: "inner", Ts: base + 2500, Dur: 400, Tid: 1},
			{Name: "MPI_Send", Ts: base + 1000, Dur: 2000, Tid: 1, Flows: []wireFlow{{ID: 7}},
				Args: wireArgs{Set: uint8(hasPeer | hasBytes), Comm: "world", CommID: "world", Peer: 1, Tag: 3, Bytes: 8}},
			{Name: truncatedNote(2), Kind: processMark, Ts: base + 3000, Tid: 1},
		}},
	}
	var evs []traceEvent
	st, err := merge(ranks, func(e traceEvent) error { evs = append(evs, e); return nil })
	must(t, err)
	if st.flows != 1 || st.unmatched != 1 || !slices.Equal(st.truncated, []int{0}) {
		t.Errorf("stats %+v: want 1 arrow, 1 unmatched end, rank 0 truncated", st)
	}
	var order []string
	pid := -1
	for _, e := range evs {
		if e.Pid < pid {
			t.Errorf("rank %d after rank %d", e.Pid, pid)
		}
		pid = e.Pid
		if e.Ph != "M" {
			order = append(order, e.Name+"/"+e.Ph)
		}
	}
	want := []string{"MPI_Send/X", "message/s", "inner/X", "trace truncated after 2 events/i", "MPI_Recv/X", "message/f", "MPI_Recv/X"}
	if len(order) != len(want) {
		t.Fatalf("events %q, want %q", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("events %q, want %q", order, want)
		}
	}
	first := evs[0]
	if first.Name != "process_name" || argOf(first, "name") != "rank 0" {
		t.Errorf("first event %+v, want rank 0's name", first)
	}
	for _, e := range evs {
		switch {
		case e.Name == "MPI_Send" && (e.Ts != 0 || e.Dur != 2000):
			t.Errorf("send at %v for %v ns, want 0 for 2000", e.Ts, e.Dur)
		case e.Name == "message" && e.Ph == "f" && e.Bp != "e":
			t.Errorf("arrow end without bp e: %+v", e)
		case e.Name == "MPI_Send" && argOf(e, "peer") != 1:
			t.Errorf("send args %v", e.Args)
		case e.Name == "message" && e.Ph == "s" && e.Ts != 1:
			t.Errorf("arrow leaves at %v, want 1 ns into the send", e.Ts)
		case e.Name == "message" && e.Ph == "f" && e.Ts != 7999:
			t.Errorf("arrow arrives at %v, want 1 ns before the receive's end", e.Ts)
		}
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if _, err := encode(w, "job1", ranks, nil); err != nil {
		t.Fatal(err)
	}
	must(t, w.Flush())
	var file struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		OtherData   map[string]any   `json:"otherData"`
	}
	if err := json.Unmarshal(b.Bytes(), &file); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if len(file.TraceEvents) != len(evs) || file.OtherData["job"] != "job1" {
		t.Errorf("%d events, other data %v", len(file.TraceEvents), file.OtherData)
	}
}

// TestArrowEnds: every arrow leaves from inside its send's slice and
// arrives inside its receive's, never before it left when the clocks allow
// it, whatever the calls' lengths: a receive that waited long (whose middle
// is before the send's), a Sendrecv holding both ends of two arrows, and
// calls too short to hold an end one tick inside. A receive that ends
// before its send began (a clock offset measured wrong) keeps its ends in
// their slices, and is counted.
func TestArrowEnds(t *testing.T) {
	const base = int64(1_700_000_000_000_000_000)
	type call struct {
		rank    int
		name    string
		ts, dur int64
		flows   []wireFlow
	}
	calls := []call{
		// 1: a long receive posted before a short send.
		{0, "MPI_Send", 90_000, 2_000, []wireFlow{{ID: 1}}},
		{1, "MPI_Recv", 10_000, 82_500, []wireFlow{{ID: 1, In: true}}},
		// 2, 3: a ring of two Sendrecvs, each with a start and an end.
		{0, "MPI_Sendrecv", 100_000, 5_000, []wireFlow{{ID: 2}, {ID: 3, In: true}}},
		{1, "MPI_Sendrecv", 99_000, 7_000, []wireFlow{{ID: 3}, {ID: 2, In: true}}},
		// 4: a send of 1 ns received by a Wait of 0 ns.
		{0, "MPI_Isend", 110_000, 1, []wireFlow{{ID: 4}}},
		{1, "MPI_Wait", 110_500, 0, []wireFlow{{ID: 4, In: true}}},
		// 5: the receive ends before its send began: the clocks are wrong.
		{0, "MPI_Send", 130_000, 1_000, []wireFlow{{ID: 5}}},
		{1, "MPI_Recv", 120_000, 3_000, []wireFlow{{ID: 5, In: true}}},
	}
	ranks := []rankTrace{{Rank: 0}, {Rank: 1}}
	for _, c := range calls {
		ranks[c.rank].Events = append(ranks[c.rank].Events, wireEvent{Name: c.name, Ts: base + c.ts, Dur: c.dur, Tid: 1, Flows: c.flows})
	}
	var evs []traceEvent
	st, err := merge(ranks, func(e traceEvent) error { evs = append(evs, e); return nil })
	must(t, err)
	if st.flows != 5 || st.unmatched != 0 || st.backward != 1 {
		t.Errorf("stats %+v: want 5 arrows, 1 backward", st)
	}
	const origin = 10_000 // the earliest call, from base
	// inside says whether ts lies in a slice of one of the calls on rank,
	// one tick inside its edges when it is long enough to hold that.
	inside := func(rank int, ts int64, names ...string) bool {
		for _, c := range calls {
			if c.rank != rank || !slices.Contains(names, c.name) {
				continue
			}
			lo, hi := c.ts-origin, c.ts-origin+c.dur
			if c.dur >= 2 {
				lo, hi = lo+1, hi-1
			}
			if lo <= ts && ts <= hi {
				return true
			}
		}
		return false
	}
	starts, ends := map[uint64]traceEvent{}, map[uint64]traceEvent{}
	for _, e := range evs {
		switch e.Ph {
		case "s":
			starts[e.ID] = e
		case "f":
			ends[e.ID] = e
		}
	}
	for id := uint64(1); id <= 5; id++ {
		s, f := starts[id], ends[id]
		if s.Pid == f.Pid || !inside(s.Pid, s.Ts, "MPI_Send", "MPI_Isend", "MPI_Sendrecv") {
			t.Errorf("arrow %d leaves rank %d at %v: not inside a send", id, s.Pid, s.Ts)
		}
		if !inside(f.Pid, f.Ts, "MPI_Recv", "MPI_Wait", "MPI_Sendrecv") {
			t.Errorf("arrow %d arrives on rank %d at %v: not inside a receive", id, f.Pid, f.Ts)
		}
		if backward := f.Ts < s.Ts; backward != (id == 5) {
			t.Errorf("arrow %d goes from %v to %v", id, s.Ts, f.Ts)
		}
	}
}

// TestWireRoundTrip: a rank's events survive the trip to gompirun.
func TestWireRoundTrip(t *testing.T) {
	tr := newTracer(nil, config{maxEvents: 10})
	tr.sync = clockSync{offset: 1000}
	tr.add(record{name: "MPI_Send", start: 5, dur: 3, tid: 1,
		a: args{comm: "world", commID: "world"}.withPeer(2, 4).withErr(errors.New("boom")).withFlow(11).withFlow(12 | flowIn)})
	rt, err := decodeRank(encodeRank(tr.snapshot()))
	must(t, err)
	e := rt.Events[0]
	if e.Ts != 1005 || e.Dur != 3 || e.Args.Peer != 2 || e.Args.Err != "boom" || len(e.Flows) != 2 || e.Flows[0] != (wireFlow{ID: 11}) || e.Flows[1] != (wireFlow{ID: 12, In: true}) {
		t.Errorf("decoded %+v", e)
	}
}

// TestMergeParts: gompirun's merge writes the parts it has where the
// lowest rank's parameter says, names the missing ranks in otherData and
// as processes labelled missing, and leaves out a part that does not
// decode, naming its rank.
func TestMergeParts(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	part := func(rank int, output string) []byte {
		return encodeRank(rankTrace{Rank: rank, Size: 4, Output: output, Offset: int64(rank) * 1000, Threads: map[int32]uint64{1: 1},
			Events: []wireEvent{{Name: "MPI_Barrier", Ts: 10_000, Dur: 500, Tid: 1}}})
	}
	paths, err := mergeParts("j7", map[int][]byte{1: part(1, "one.json"), 3: part(3, "three.json"), 2: []byte("junk")})
	if err == nil || !strings.Contains(err.Error(), "rank 2's events") {
		t.Errorf("error %v, want one naming rank 2's part", err)
	}
	if !slices.Equal(paths, []string{"one.json"}) {
		t.Fatalf("paths %q, want rank 1's one.json", paths)
	}
	var file struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Pid  int            `json:"pid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		OtherData map[string]any `json:"otherData"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "one.json"))
	must(t, err)
	must(t, json.Unmarshal(b, &file))
	if got := fmt.Sprint(file.OtherData["missing_ranks"]); got != "[0 2]" {
		t.Errorf("otherData missing_ranks %s, want [0 2]", got)
	}
	labels, calls := map[int]string{}, map[int]int{}
	for _, e := range file.TraceEvents {
		if e.Name == "process_labels" {
			labels[e.Pid] = fmt.Sprint(e.Args["labels"])
		}
		if e.Ph == "X" {
			calls[e.Pid]++
		}
	}
	for _, r := range []int{0, 2} {
		if labels[r] != missingNote {
			t.Errorf("rank %d labelled %q, want %q", r, labels[r], missingNote)
		}
	}
	if labels[1] == missingNote || labels[3] == missingNote || fmt.Sprint(calls) != "map[1:1 3:1]" {
		t.Errorf("labels %v, calls by rank %v: want ranks 1 and 3 present with a call each", labels, calls)
	}

	paths, err = mergeParts("j8", map[int][]byte{0: part(0, "")})
	must(t, err)
	if !slices.Equal(paths, []string{"gompi-trace.j8.json"}) {
		t.Errorf("paths %q, want the default gompi-trace.j8.json", paths)
	}
	if paths, err := mergeParts("j9", map[int][]byte{0: []byte("junk")}); err == nil || paths != nil {
		t.Errorf("only junk: paths %q, error %v; want none and an error", paths, err)
	}
}

func argOf(e traceEvent, key string) any {
	for _, a := range e.Args {
		if a.key == key {
			if a.isNum {
				return a.num
			}
			return a.str
		}
	}
	return nil
}

// TestAppendJSON: the hand-written encoder writes what encoding/json
// reads back, escapes included.
func TestAppendJSON(t *testing.T) {
	e := traceEvent{Name: "a\"b\\c\n\x01é", Cat: "mpi", Ph: "X", Ts: 1234567, Dur: 5, Pid: 2, Tid: 3, ID: 1<<53 - 1,
		Args: []kv{str("comm", "w\xffx"), num("peer", -1)}}
	var got struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Ts   float64        `json:"ts"`
		Dur  float64        `json:"dur"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		ID   uint64         `json:"id"`
		Args map[string]any `json:"args"`
	}
	b := appendJSON(nil, e)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if got.Name != e.Name || got.Ts != 1234.567 || got.Dur != 0.005 || got.Pid != 2 || got.Tid != 3 || got.ID != e.ID ||
		got.Args["peer"] != -1.0 || got.Args["comm"] != "w\uFFFDx" {
		t.Errorf("read back %+v from %s", got, b)
	}
	if s := string(appendMicros(nil, -1500)); s != "-1.500" {
		t.Errorf("-1500 ns is %s us", s)
	}
}
