package trace

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// Tracer is the trace layer: it records every call that passes through it
// and hands it to the layer below.
type Tracer struct {
	prof.Base
	cfg   config
	clock clock

	recording atomic.Bool // Pcontrol 0 clears it, 1 sets it

	mu        sync.Mutex
	events    events
	truncated bool
	tids      map[uintptr]int32 // goroutine key -> thread id in the trace
	goids     map[int32]uint64  // thread id -> id of the goroutine first seen on it
	m         matcher
	reqs      map[reqID]pending
	inits     map[*pmpi.Request]pending // persistent point-to-point requests
	phases    int

	rank    int  // world rank, once Init has returned
	size    int  // the world's size, once Init has returned
	started bool // Init succeeded: Finalize writes the trace
	flushed bool
	sync    clockSync
}

func newTracer(next pmpi.API, cfg config) *Tracer {
	if cfg.maxEvents <= 0 {
		cfg.maxEvents = defaultMaxEvents
	}
	t := &Tracer{
		Base:  prof.Base{Next: next},
		cfg:   cfg,
		clock: newClock(),
		tids:  map[uintptr]int32{},
		goids: map[int32]uint64{},
		m:     newMatcher(),
		reqs:  map[reqID]pending{},
		inits: map[*pmpi.Request]pending{},
	}
	t.recording.Store(true)
	return t
}

// clock reads this process's time in nanoseconds: the wall clock when the
// tracer was made, advanced by the monotonic clock, so that it never goes
// back and ranks on one host start close to each other. Init measures what
// to add to reach rank 0's clock.
type clock struct {
	wall int64
	mono time.Time
}

func newClock() clock {
	now := time.Now()
	return clock{wall: now.UnixNano(), mono: now}
}

func (c clock) now() int64 { return c.wall + int64(time.Since(c.mono)) }

// record is one recorded event, in this rank's clock.
type record struct {
	name       string
	start, dur int64
	tid        int32
	kind       kind
	a          args
}

// kind is what a record shows as.
type kind uint8

const (
	call        kind = iota // a slice: ph X
	threadMark              // an instant on the goroutine's track
	processMark             // an instant across the rank's tracks
)

// span is a call in progress: on is false when nothing is being recorded.
type span struct {
	on          bool
	tid         int32
	start, stop int64
}

// begin starts timing a call.
func (t *Tracer) begin() span {
	if !t.recording.Load() {
		return span{}
	}
	tid := t.tid()
	return span{on: true, tid: tid, start: t.clock.now()}
}

// stop marks the end of the call begun as sp: it is called as soon as the
// layer below returns, so that the tool's own work after it is not
// counted in the call.
func (t *Tracer) stop(sp span) span {
	if sp.on {
		sp.stop = t.clock.now()
	}
	return sp
}

// end records the call begun as sp and stopped, if it was not, now.
func (t *Tracer) end(sp span, name string, a args) {
	if !sp.on {
		return
	}
	if sp.stop == 0 {
		sp.stop = t.clock.now()
	}
	t.add(record{name: name, start: sp.start, dur: sp.stop - sp.start, tid: sp.tid, a: a})
}

// mark records an instant event of kind k.
func (t *Tracer) mark(name string, k kind, a args) {
	if !t.recording.Load() {
		return
	}
	tid := t.tid()
	t.add(record{name: name, kind: k, start: t.clock.now(), tid: tid, a: a})
}

// add appends r unless the trace is full; the first event past the limit
// becomes the note that says so.
func (t *Tracer) add(r record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.truncated:
	case t.events.len() >= t.cfg.maxEvents:
		t.truncated = true
		t.events.add(record{name: truncatedNote(t.cfg.maxEvents), kind: processMark, start: r.start, tid: r.tid})
	default:
		t.events.add(r)
	}
}

// tid returns the trace's thread id of the calling goroutine: 1, 2, ... in
// the order goroutines first call MPI.
func (t *Tracer) tid() int32 {
	g := lowlevel.GoroutineKey()
	t.mu.Lock()
	id, ok := t.tids[g]
	t.mu.Unlock()
	if ok {
		return id
	}
	gid := lowlevel.GoroutineID() // slow, once per goroutine: to name its track
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok = t.tids[g]; !ok {
		id = int32(len(t.tids) + 1)
		t.tids[g], t.goids[id] = id, gid
	}
	return id
}
