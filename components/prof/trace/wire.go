package trace

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// rankTrace is what each rank sends rank 0 at Finalize: its events, on
// rank 0's clock.
type rankTrace struct {
	Rank      int
	Offset    int64 // ns added to this rank's clock
	RTT       int64 // ns, of the exchange that measured Offset
	Truncated bool
	Threads   map[int32]uint64 // trace thread id -> goroutine id
	Events    []wireEvent
}

// wireEvent is a record on the way to rank 0.
type wireEvent struct {
	Name    string
	Instant bool
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
	Err, Label, Scope        string
}

// snapshot takes this rank's events, corrected to rank 0's clock.
func (t *Tracer) snapshot() rankTrace {
	t.mu.Lock()
	defer t.mu.Unlock()
	rt := rankTrace{Rank: t.rank, Offset: t.sync.offset, RTT: t.sync.rtt, Truncated: t.truncated,
		Threads: make(map[int32]uint64, len(t.tids)), Events: make([]wireEvent, 0, len(t.events))}
	for g, id := range t.tids {
		rt.Threads[id] = g
	}
	for _, r := range t.events {
		e := wireEvent{Name: r.name, Instant: r.instant, Ts: r.start + t.sync.offset, Dur: r.dur, Tid: r.tid,
			Args: r.a.wire()}
		for _, f := range r.flows {
			e.Flows = append(e.Flows, wireFlow{ID: f.id, In: f.in})
		}
		rt.Events = append(rt.Events, e)
	}
	return rt
}

func (a args) wire() wireArgs {
	w := wireArgs{Set: uint8(a.set), Comm: a.comm, CommID: a.commID, Peer: a.peer, Tag: a.tag, Root: a.root,
		Bytes: a.bytes, Index: a.index, Count: a.count, Dest: a.dest, SendTag: a.sendTag, SendBytes: a.sendBytes,
		Label: a.label, Scope: a.scope}
	if a.err != nil {
		w.Err = a.err.Error()
	}
	return w
}

func encodeRank(rt rankTrace) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(rt); err != nil {
		return nil, fmt.Errorf("encode rank %d's events: %w", rt.Rank, err)
	}
	return b.Bytes(), nil
}

func decodeRank(b []byte) (rankTrace, error) {
	var rt rankTrace
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rt); err != nil {
		return rankTrace{}, err
	}
	return rt, nil
}
