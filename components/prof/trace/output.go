package trace

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
)

// traceEvent is one event of Chrome's Trace Event Format, which Perfetto
// and chrome://tracing read.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // microseconds
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int32          `json:"tid"`
	ID   uint64         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// mergeStats says what a merge kept.
type mergeStats struct {
	events    int // written, metadata included
	flows     int // arrows, each a pair of events
	unmatched int // arrow ends without their other end, left out
}

const (
	flowName = "message"
	flowCat  = "mpi.message"
	callCat  = "mpi"
)

// merge turns the ranks' events into one trace: timestamps from the
// earliest event, in microseconds; per rank, its names first, then its
// events in time order. An arrow is kept only when exactly one send and
// one receive carry its id: the other end may be on a rank that had
// stopped recording.
func merge(ranks []rankTrace) ([]traceEvent, mergeStats) {
	outs, ins := map[uint64]int{}, map[uint64]int{}
	origin := int64(math.MaxInt64)
	for _, rt := range ranks {
		for _, e := range rt.Events {
			origin = min(origin, e.Ts)
			for _, f := range e.Flows {
				if f.In {
					ins[f.ID]++
				} else {
					outs[f.ID]++
				}
			}
		}
	}
	us := func(ns int64) float64 { return float64(ns-origin) / 1e3 }
	var st mergeStats
	var out []traceEvent
	for _, rt := range slices.SortedFunc(slices.Values(ranks), func(a, b rankTrace) int { return cmp.Compare(a.Rank, b.Rank) }) {
		out = append(out, metadata(rt)...)
		var body []traceEvent
		for _, e := range rt.Events {
			te := traceEvent{Name: e.Name, Cat: callCat, Ts: us(e.Ts), Pid: rt.Rank, Tid: e.Tid, Args: e.Args.json()}
			switch e.Kind {
			case threadMark:
				te.Ph, te.S = "i", "t"
			case processMark:
				te.Ph, te.S = "i", "p"
			default:
				d := float64(e.Dur) / 1e3
				te.Ph, te.Dur = "X", &d
			}
			body = append(body, te)
			mid := us(e.Ts + e.Dur/2) // inside the call's slice, which the arrow binds to
			for _, f := range e.Flows {
				if outs[f.ID] != 1 || ins[f.ID] != 1 {
					st.unmatched++
					continue
				}
				fe := traceEvent{Name: flowName, Cat: flowCat, Ph: "s", Ts: mid, Pid: rt.Rank, Tid: e.Tid, ID: f.ID}
				if f.In {
					fe.Ph, fe.Bp = "f", "e"
				} else {
					st.flows++
				}
				body = append(body, fe)
			}
		}
		slices.SortStableFunc(body, func(a, b traceEvent) int {
			if c := cmp.Compare(a.Ts, b.Ts); c != 0 {
				return c
			}
			return cmp.Compare(durOf(b), durOf(a)) // an enclosing call before what it encloses
		})
		out = append(out, body...)
	}
	st.events = len(out)
	return out, st
}

func durOf(e traceEvent) float64 {
	if e.Dur == nil {
		return -1
	}
	return *e.Dur
}

// metadata names a rank's process and threads.
func metadata(rt rankTrace) []traceEvent {
	m := func(name string, tid int32, args map[string]any) traceEvent {
		return traceEvent{Name: name, Ph: "M", Pid: rt.Rank, Tid: tid, Args: args}
	}
	evs := []traceEvent{
		m("process_name", 0, map[string]any{"name": fmt.Sprintf("rank %d", rt.Rank)}),
		m("process_sort_index", 0, map[string]any{"sort_index": rt.Rank}),
		m("process_labels", 0, map[string]any{"labels": fmt.Sprintf("clock %+.3f us from rank 0 (round trip %.3f us)",
			float64(rt.Offset)/1e3, float64(rt.RTT)/1e3)}),
	}
	for _, tid := range slices.Sorted(maps.Keys(rt.Threads)) {
		evs = append(evs,
			m("thread_name", tid, map[string]any{"name": fmt.Sprintf("goroutine %d", rt.Threads[tid])}),
			m("thread_sort_index", tid, map[string]any{"sort_index": tid}))
	}
	return evs
}

// json is the args object of a call's event.
func (a wireArgs) json() map[string]any {
	m := map[string]any{}
	if a.Comm != "" {
		m["comm"], m["comm_id"] = a.Comm, a.CommID
	}
	set := argSet(a.Set)
	if set&hasPeer != 0 {
		m["peer"], m["tag"] = a.Peer, a.Tag
	}
	if set&hasRoot != 0 {
		m["root"] = a.Root
	}
	if set&hasBytes != 0 {
		m["bytes"] = a.Bytes
	}
	if set&hasIndex != 0 {
		m["index"] = a.Index
	}
	if set&hasCount != 0 {
		m["requests"] = a.Count
	}
	if set&hasSend != 0 {
		m["dest"], m["send_tag"], m["send_bytes"] = a.Dest, a.SendTag, a.SendBytes
	}
	if a.Err != "" {
		m["error"] = a.Err
	}
	if a.Label != "" {
		m["label"] = a.Label
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// writeFile merges ranks into the trace file at path.
func writeFile(path, job string, ranks []rankTrace) (mergeStats, error) {
	evs, st := merge(ranks)
	f, err := os.Create(path)
	if err != nil {
		return st, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = encode(w, job, evs, st)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st, err
}

// encode writes the trace's JSON, one event a line.
func encode(w *bufio.Writer, job string, evs []traceEvent, st mergeStats) error {
	w.WriteString("{\"traceEvents\":[\n")
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("event %d (%s): %w", i, e.Name, err)
		}
		w.Write(b)
		if i < len(evs)-1 {
			w.WriteByte(',')
		}
		w.WriteByte('\n')
	}
	other, err := json.Marshal(map[string]any{
		"tool": "gompi prof trace", "job": job, "message_arrows": st.flows, "unmatched_arrow_ends": st.unmatched,
		"clock": "every rank's timestamps are on rank 0's clock, offsets measured by ping-pong at Init",
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":%s}\n", other)
	return err
}

// truncatedNote is the instant event that ends a full rank's trace.
func truncatedNote(n int) string { return fmt.Sprintf("trace truncated after %d events", n) }
