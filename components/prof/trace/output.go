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
// and chrome://tracing read; appendJSON writes it.
type traceEvent struct {
	Name, Cat, Ph string
	Ts            int64 // ns from the trace's first event; written in microseconds
	Dur           int64 // ns, of an X event
	Pid           int
	Tid           int32
	ID            uint64 // an arrow's
	Bp, S         string // an arrow end's binding point; an instant's scope
	Args          []kv
}

// kv is one member of an event's args, a string or a number.
type kv struct {
	key   string
	str   string
	num   int
	isNum bool
}

func str(k, v string) kv     { return kv{key: k, str: v} }
func num(k string, v int) kv { return kv{key: k, num: v, isNum: true} }

// mergeStats says what a merge kept.
type mergeStats struct {
	events    int   // written, metadata included
	flows     int   // arrows, each a pair of events
	unmatched int   // arrow ends without their other end, left out
	backward  int   // arrows whose receive ended before their send began
	truncated []int // ranks that reached prof_trace_max_events
}

const (
	flowName = "message"
	flowCat  = "mpi.message"
	callCat  = "mpi"
)

// merge turns the ranks' events into one trace and hands it to emit:
// timestamps from the earliest event, in microseconds; per rank, its names
// first, then its events in time order. An arrow is kept only when exactly
// one send and one receive carry its id: the other end may be on a rank
// that had stopped recording. Only one rank's events are converted at a
// time, so that the merge does not hold the whole trace twice.
func merge(ranks []rankTrace, emit func(traceEvent) error) (mergeStats, error) {
	outs, ins := map[uint64]sends{}, map[uint64]int{}
	origin := int64(math.MaxInt64)
	for _, rt := range ranks {
		for _, e := range rt.Events {
			origin = min(origin, e.Ts)
			for _, f := range e.Flows {
				if f.In {
					ins[f.ID]++
				} else {
					outs[f.ID] = sends{n: outs[f.ID].n + 1, at: arrowStart(e)}
				}
			}
		}
	}
	st := mergeStats{truncated: []int{}}
	for _, rt := range slices.SortedFunc(slices.Values(ranks), func(a, b rankTrace) int { return cmp.Compare(a.Rank, b.Rank) }) {
		if rt.Truncated {
			st.truncated = append(st.truncated, rt.Rank)
		}
		body := metadata(rt)
		names := len(body)
		body = slices.Grow(body, len(rt.Events)+len(rt.Events)/2)
		for _, e := range rt.Events {
			te := traceEvent{Name: e.Name, Cat: callCat, Ts: e.Ts - origin, Pid: rt.Rank, Tid: e.Tid, Args: e.Args.kvs()}
			switch e.Kind {
			case threadMark:
				te.Ph, te.S = "i", "t"
			case processMark:
				te.Ph, te.S = "i", "p"
			default:
				te.Ph, te.Dur = "X", e.Dur
			}
			body = append(body, te)
			for _, f := range e.Flows {
				if outs[f.ID].n != 1 || ins[f.ID] != 1 {
					st.unmatched++
					continue
				}
				fe := traceEvent{Name: flowName, Cat: flowCat, Ph: "s", Ts: arrowStart(e) - origin, Pid: rt.Rank, Tid: e.Tid, ID: f.ID}
				if f.In {
					fe.Ph, fe.Bp, fe.Ts = "f", "e", arrowEnd(e)-origin
					if arrowEnd(e) < outs[f.ID].at {
						st.backward++
					}
				} else {
					st.flows++
				}
				body = append(body, fe)
			}
		}
		slices.SortStableFunc(body[names:], func(a, b traceEvent) int {
			if c := cmp.Compare(a.Ts, b.Ts); c != 0 {
				return c
			}
			return cmp.Compare(durOf(b), durOf(a)) // an enclosing call before what it encloses
		})
		for _, e := range body {
			if err := emit(e); err != nil {
				return st, err
			}
		}
		st.events += len(body)
	}
	return st, nil
}

// sends are the sends that carry one arrow's id, and where the last leaves.
type sends struct {
	n  int
	at int64
}

// An arrow leaves as early in its send's slice and arrives as late in its
// receive's slice as the slice allows, so that it points forward in time
// whenever the clocks let it: the receive completes after the send began.
// Each end is one tick (ns) inside its slice, not on its edge: a viewer
// binds an arrow end to the slice that encloses its timestamp (for the
// start always, for the end with bp "e"), and a slice's edge may be shared
// with the call before or after it, or read as outside it (Perfetto closes
// a slice at its end). A slice shorter than two ticks has both ends at its
// start.
//
// When the clock correction leaves a receive ending before its send began
// (ranks on different hosts, an offset measured wrong by more than the
// messages' latency), the arrow still joins its two calls and points
// backward: moving an end out of its slice would bind it to another call,
// or to none. merge counts such arrows, and the file says how many.
func arrowStart(e wireEvent) int64 { return e.Ts + min(1, e.Dur/2) }
func arrowEnd(e wireEvent) int64   { return e.Ts + e.Dur - min(1, e.Dur) }

func durOf(e traceEvent) int64 {
	if e.Ph != "X" {
		return -1
	}
	return e.Dur
}

// metadata names a rank's process and threads.
func metadata(rt rankTrace) []traceEvent {
	m := func(name string, tid int32, arg kv) traceEvent {
		return traceEvent{Name: name, Ph: "M", Pid: rt.Rank, Tid: tid, Args: []kv{arg}}
	}
	evs := []traceEvent{
		m("process_name", 0, str("name", fmt.Sprintf("rank %d", rt.Rank))),
		m("process_sort_index", 0, num("sort_index", rt.Rank)),
		m("process_labels", 0, str("labels", fmt.Sprintf("clock corrected by %+.3f us (measured %+.3f us, round trip %.3f us)",
			float64(rt.Offset)/1e3, float64(rt.Measured)/1e3, float64(rt.RTT)/1e3))),
	}
	for _, tid := range slices.Sorted(maps.Keys(rt.Threads)) {
		evs = append(evs,
			m("thread_name", tid, str("name", fmt.Sprintf("goroutine %d", rt.Threads[tid]))),
			m("thread_sort_index", tid, num("sort_index", int(tid))))
	}
	return evs
}

// missingNote labels a rank that has no events in the trace.
const missingNote = "missing: no events from this rank (it did not finish Finalize, or its part was unreadable)"

// missingMetadata names a rank without events, and says why it has none.
func missingMetadata(rank int) []traceEvent {
	m := func(name string, arg kv) traceEvent {
		return traceEvent{Name: name, Ph: "M", Pid: rank, Args: []kv{arg}}
	}
	return []traceEvent{
		m("process_name", str("name", fmt.Sprintf("rank %d", rank))),
		m("process_sort_index", num("sort_index", rank)),
		m("process_labels", str("labels", missingNote)),
	}
}

// kvs is the args object of a call's event, in a fixed order.
func (a wireArgs) kvs() []kv {
	var m []kv
	if a.Comm != "" {
		m = append(m, str("comm", a.Comm), str("comm_id", a.CommID))
	}
	set := argSet(a.Set)
	if set&hasPeer != 0 {
		m = append(m, num("peer", a.Peer), num("tag", a.Tag))
	}
	if set&hasRoot != 0 {
		m = append(m, num("root", a.Root))
	}
	if set&hasBytes != 0 {
		m = append(m, num("bytes", a.Bytes))
	}
	if set&hasIndex != 0 {
		m = append(m, num("index", a.Index))
	}
	if set&hasCount != 0 {
		m = append(m, num("requests", a.Count))
	}
	if set&hasSend != 0 {
		m = append(m, num("dest", a.Dest), num("send_tag", a.SendTag), num("send_bytes", a.SendBytes))
	}
	if a.Err != "" {
		m = append(m, str("error", a.Err))
	}
	if a.Label != "" {
		m = append(m, str("label", a.Label))
	}
	return m
}

// writeFile merges ranks into the trace file at path; missing are the
// ranks of the job without events.
func writeFile(path, job string, ranks []rankTrace, missing []int) (mergeStats, error) {
	f, err := os.Create(path)
	if err != nil {
		return mergeStats{}, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	st, err := encode(w, job, ranks, missing)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st, err
}

// encode writes the merged trace's JSON, one event a line, and names
// each missing rank as a process of no events whose label says it is
// missing.
func encode(w *bufio.Writer, job string, ranks []rankTrace, missing []int) (mergeStats, error) {
	w.WriteString("{\"traceEvents\":[")
	sep := "\n"
	var buf []byte
	emit := func(e traceEvent) error {
		buf = appendJSON(append(buf[:0], sep...), e)
		sep = ",\n"
		_, err := w.Write(buf)
		return err
	}
	st, err := merge(ranks, emit)
	if err != nil {
		return st, err
	}
	for _, r := range missing {
		for _, e := range missingMetadata(r) {
			if err := emit(e); err != nil {
				return st, err
			}
			st.events++
		}
	}
	if missing == nil {
		missing = []int{}
	}
	other, err := json.Marshal(map[string]any{
		"tool": "gompi prof trace", "job": job, "message_arrows": st.flows, "unmatched_arrow_ends": st.unmatched,
		"backward_arrows": st.backward, "truncated_ranks": st.truncated, "missing_ranks": missing,
		"clock": "every rank's timestamps are on rank 0's clock, offsets measured by ping-pong at Init",
	})
	if err != nil {
		return st, err
	}
	_, err = fmt.Fprintf(w, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":%s}\n", other)
	return st, err
}

// truncatedNote is the instant event that ends a full rank's trace.
func truncatedNote(n int) string { return fmt.Sprintf("trace truncated after %d events", n) }
