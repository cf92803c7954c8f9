package pml

import (
	"runtime"
	"sync"
	"time"
)

// State is what the engine is doing: its pending operations and its
// unexpected messages, for a report on a job that seems hung.
type State struct {
	Pending []PendingOp
	// Unexpected lists up to the limit State was given, in arrival order
	// per context, then those a matched probe took and no receive has
	// taken yet; UnexpectedTotal counts them all.
	Unexpected      []Message
	UnexpectedTotal int
}

// Op kinds.
const (
	OpRecv   = "recv"
	OpSend   = "send"
	OpProbe  = "probe"
	OpMprobe = "mprobe"
)

// PendingOp is a receive, send or probe that has not completed.
type PendingOp struct {
	Kind    string // OpRecv, OpSend, OpProbe or OpMprobe
	Context uint32
	Peer    int // world rank: destination, or source (maybe AnySource)
	Tag     int // maybe AnyTag
	Bytes   int // the buffer's size
	// Wait is the blocking call that waits on the operation, nil when none
	// has waited long enough to be recorded.
	Wait *WaitRecord
}

// Message is an unexpected message: it arrived before any receive matched it.
type Message struct {
	Context         uint32
	From, Tag, Size int
	// Probed: a matched probe took it out of matching (Mprobe), and only
	// the receive of its Matched takes it.
	Probed bool
}

// WaitRecord is a blocking call that has waited recordAfter without
// result. Only such calls are recorded: a short wait costs nothing extra.
type WaitRecord struct {
	Since time.Time
	// PCs is the waiting goroutine's stack, innermost first, for finding
	// the user's call site.
	PCs []uintptr
	// ForeignPC is where a C caller called, from Config.ForeignPC; 0 if
	// none.
	ForeignPC uintptr
	// What it waits on: requests, or a probe's (context, source, tag).
	reqs  []*Request
	probe *PendingOp
}

// waits holds the recorded WaitRecords.
type waits struct {
	mu  sync.Mutex
	all map[*WaitRecord]struct{}
}

// record registers a wait that has lasted recordAfter, or sleeps.
func (e *Engine) record(since time.Time, reqs []*Request, probe *PendingOp) *WaitRecord {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs) // above record, advance's caller and step
	rec := &WaitRecord{Since: since, PCs: pcs[:n], reqs: reqs, probe: probe}
	if f := e.cfg.ForeignPC; f != nil {
		rec.ForeignPC = f()
	}
	e.waits.mu.Lock()
	if e.waits.all == nil {
		e.waits.all = map[*WaitRecord]struct{}{}
	}
	e.waits.all[rec] = struct{}{}
	e.waits.mu.Unlock()
	return rec
}

func (e *Engine) unrecord(rec *WaitRecord) {
	e.waits.mu.Lock()
	delete(e.waits.all, rec)
	e.waits.mu.Unlock()
}

// State returns what the engine is doing, listing at most maxUnexpected
// unexpected messages.
func (e *Engine) State(maxUnexpected int) State {
	// A recorded wait's requests live until it is unrecorded, so their
	// fields are read under the lock that unrecording takes.
	e.waits.mu.Lock()
	waited := map[*Request]*WaitRecord{}
	var orphans []PendingOp // waited requests the queues may no longer hold
	var probes []PendingOp
	for rec := range e.waits.all {
		for _, r := range rec.reqs {
			if r != nil && !r.Done() {
				waited[r] = rec
				kind := OpRecv
				if r.kind == kindSend {
					kind = OpSend
				}
				orphans = append(orphans, PendingOp{Kind: kind, Context: r.context, Peer: r.peer, Tag: r.tag,
					Bytes: r.size(), Wait: rec})
			}
		}
		if rec.probe != nil {
			p := *rec.probe
			p.Wait = rec
			probes = append(probes, p)
		}
	}
	e.waits.mu.Unlock()

	var s State
	listed := map[*WaitRecord]int{} // how many of a wait's requests the queues showed
	add := func(r *Request, kind string, peer int) {
		if r.Done() {
			return
		}
		if rec := waited[r]; rec != nil {
			listed[rec]++
		}
		s.Pending = append(s.Pending, PendingOp{
			Kind: kind, Context: r.context, Peer: peer, Tag: r.tag, Bytes: r.size(), Wait: waited[r],
		})
	}
	e.mu.Lock()
	e.eachQueue(func(q *queues) {
		for _, r := range q.posted.all() {
			add(r, OpRecv, r.peer)
		}
		for _, u := range q.unexpected.all() {
			s.UnexpectedTotal++
			if len(s.Unexpected) < maxUnexpected {
				s.Unexpected = append(s.Unexpected, Message{
					Context: u.h.context, From: u.from, Tag: int(u.h.tag), Size: u.size(),
				})
			}
		}
	})
	for _, m := range e.probed {
		s.UnexpectedTotal++
		if len(s.Unexpected) < maxUnexpected {
			s.Unexpected = append(s.Unexpected, Message{
				Context: m.cid, From: m.u.from, Tag: int(m.u.h.tag), Size: m.u.size(), Probed: true,
			})
		}
	}
	for _, r := range e.recvs {
		add(r, OpRecv, r.from) // matched: its data is on the way from r.from
	}
	for _, r := range e.sends {
		add(r, OpSend, r.peer)
	}
	e.mu.Unlock()
	// A wait none of whose requests the queues hold waits on a send being
	// written out, or an eager one the transport holds back: list them.
	for _, op := range orphans {
		if listed[op.Wait] == 0 {
			s.Pending = append(s.Pending, op)
		}
	}
	s.Pending = append(s.Pending, probes...)
	return s
}

// Levels is what the engine's queues hold at one moment, the library's
// own operations among them.
type Levels struct {
	Posted          int // receives posted and not matched yet
	Unexpected      int // messages that arrived before a receive matched them
	UnexpectedBytes int // their bytes
	Sends           int // sends under way that the engine tracks (rendezvous, synchronous)
}

// Levels counts the queues under the engine's lock: for the tools
// interface's performance variables, read when a tool asks, so that the
// queues' paths count nothing.
func (e *Engine) Levels() Levels {
	var l Levels
	e.mu.Lock()
	defer e.mu.Unlock()
	e.eachQueue(func(q *queues) {
		for _, r := range q.posted.all() {
			if !r.Done() {
				l.Posted++
			}
		}
		for _, u := range q.unexpected.all() {
			l.Unexpected++
			l.UnexpectedBytes += u.size()
		}
	})
	for _, m := range e.probed {
		l.Unexpected++
		l.UnexpectedBytes += m.u.size()
	}
	for _, r := range e.sends {
		if !r.Done() {
			l.Sends++
		}
	}
	return l
}
