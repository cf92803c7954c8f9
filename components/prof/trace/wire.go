package trace

import "maps"

// rankTrace is what each rank submits at Finalize for gompirun to merge:
// its events, on rank 0's clock, and what only the ranks know, the
// world's size and the output parameter as this rank resolved it.
type rankTrace struct {
	Rank      int
	Size      int    // the world's
	Output    string // prof_trace_output
	Offset    int64  // ns added to this rank's clock
	Measured  int64  // ns, the offset measured (Offset is 0 when it is within the error)
	RTT       int64  // ns, of the exchange that measured it
	Truncated bool
	Threads   map[int32]uint64 // trace thread id -> goroutine id
	Events    []wireEvent
}

// wireEvent is a record on the way to gompirun.
type wireEvent struct {
	Name    string
	Kind    kind
	Ts, Dur int64 // ns on rank 0's clock
	Tid     int32
	Args    wireArgs
	Flows   []wireFlow
}

type wireFlow struct {
	ID uint64
	In bool
}

// wireArgs are args with the error as text.
type wireArgs struct {
	Set                      uint8
	Comm, CommID             string
	Peer, Tag, Root, Bytes   int
	Index, Count             int
	Dest, SendTag, SendBytes int
	Err, Label               string
}

// snapshot takes this rank's events, corrected to rank 0's clock.
func (t *Tracer) snapshot() rankTrace {
	t.mu.Lock()
	defer t.mu.Unlock()
	rt := rankTrace{Rank: t.rank, Size: t.size, Output: t.cfg.output, Offset: t.sync.offset, Measured: t.sync.measured, RTT: t.sync.rtt, Truncated: t.truncated,
		Threads: maps.Clone(t.goids), Events: make([]wireEvent, 0, t.events.len())}
	for r := range t.events.all {
		e := wireEvent{Name: r.name, Kind: r.kind, Ts: r.start + t.sync.offset, Dur: r.dur, Tid: r.tid,
			Args: r.a.wire()}
		for _, f := range r.a.flows() {
			e.Flows = append(e.Flows, wireFlow{ID: f.id(), In: f.in()})
		}
		rt.Events = append(rt.Events, e)
	}
	return rt
}

func (a args) wire() wireArgs {
	w := wireArgs{Set: uint8(a.set), Comm: a.comm, CommID: a.commID, Peer: int(a.peer), Tag: int(a.tag),
		Root: int(a.root), Bytes: int(a.bytes), Index: int(a.index), Count: int(a.count), Dest: int(a.dest),
		SendTag: int(a.sendTag), SendBytes: int(a.sendBytes), Label: a.label()}
	if err := a.err(); err != nil {
		w.Err = err.Error()
	}
	return w
}
