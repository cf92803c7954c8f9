package pml

import "errors"

// Matched is a message that a matched probe (Mprobe, Improbe) took out of
// matching: no receive or probe sees it any more, and only a receive of
// this handle (Mrecv, StartMrecv) takes it, once. Without it a probe
// followed by a receive races: another goroutine's receive may take the
// probed message in between.
type Matched struct {
	cid uint32
	// u is the message, as the unexpected queue held it; nil once a
	// receive took it. Under the engine's lock.
	u *unexpected
	// at is its index in the engine's probed while u is set. A map's
	// insert and delete took a tenth of a matched probe and its receive.
	at int
}

// ErrReceived is the error of a receive of a Matched that was received
// already.
var ErrReceived = errors.New("the matched message was received already")

// Improbe looks for a waiting message that a receive with these arguments
// would match and takes it out of matching, returning it and its status;
// nil when there is none.
func (e *Engine) Improbe(cid uint32, src, tag int) (*Matched, Status, error) {
	if e.nothingWaits(src) {
		return nil, Status{}, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.queue(cid).find(src, tag)
	for i, u := range q.unexpected.all() {
		if !matches(src, tag, u.from, int(u.h.tag)) {
			continue
		}
		e.unhold(q, i)
		m := &Matched{cid: cid, u: u, at: len(e.probed)}
		e.probed = append(e.probed, m)
		return m, Status{Source: u.from, Tag: int(u.h.tag), Bytes: u.size(), Total: u.size()}, nil
	}
	if src != AnySource {
		if err := e.dead[src]; err != nil {
			return nil, Status{Source: src}, err
		}
	}
	return nil, Status{}, nil
}

// unprobe removes m from the probed messages; the caller holds mu.
func (e *Engine) unprobe(m *Matched) {
	last := len(e.probed) - 1
	moved := e.probed[last]
	e.probed[m.at], moved.at = moved, m.at
	e.probed[last] = nil
	e.probed = e.probed[:last]
}

// Mprobe waits for a message that a receive with these arguments would
// match and takes it out of matching, as Improbe. Of any source, it fails
// as Probe does when a peer fails while it waits.
func (e *Engine) Mprobe(cid uint32, src, tag int) (*Matched, Status, error) {
	w := waiter{e: e, probe: PendingOp{Kind: OpMprobe, Context: cid, Peer: src, Tag: tag}, deaths: e.deathCount(src)}
	for {
		seen := e.held.Load()
		m, st, err := e.Improbe(cid, src, tag)
		if m == nil && err == nil {
			st, err = e.diedSince(src, w.deaths)
		}
		if m != nil || err != nil {
			w.end()
			return m, st, err
		}
		w.until(seen) // a match may be there, which another goroutine may take first
	}
}

// Mrecv receives the matched message m into buf, as Recv would have had it
// matched m, and writes the receive's status into st. A message received
// already gives ErrReceived.
func (e *Engine) Mrecv(m *Matched, buf []byte, st *Status) error {
	return e.mrecvWait(m, buf, nil, st)
}

// MrecvLayout is Mrecv into the data lay describes.
func (e *Engine) MrecvLayout(m *Matched, lay Layout, st *Status) error {
	return e.mrecvWait(m, nil, lay, st)
}

func (e *Engine) mrecvWait(m *Matched, buf []byte, lay Layout, st *Status) error {
	r, err := e.mrecv(nil, m, buf, lay, true)
	if err != nil {
		return err
	}
	*st = *e.WaitRef(r)
	e.Release(r)
	return nil
}

// StartMrecv starts the receive of the matched message m into r, a zero
// Request that the caller allocated; Wait completes it as a receive
// started by StartRecv. A message received already gives ErrReceived.
func (e *Engine) StartMrecv(r *Request, m *Matched, buf []byte) (*Request, error) {
	return e.mrecv(r, m, buf, nil, false)
}

// StartMrecvLayout is StartMrecv into the data lay describes.
func (e *Engine) StartMrecvLayout(r *Request, m *Matched, lay Layout) (*Request, error) {
	return e.mrecv(r, m, nil, lay, false)
}

func (e *Engine) mrecv(r *Request, m *Matched, buf []byte, lay Layout, pooled bool) (*Request, error) {
	e.mu.Lock()
	u := m.u
	if u == nil {
		e.mu.Unlock()
		return nil, ErrReceived
	}
	m.u = nil
	e.unprobe(m)
	e.mu.Unlock()
	// u is in no queue now and m no longer names it: it is ours alone.
	r = e.request(r, kindRecv, m.cid, u.from, int(u.h.tag), buf, lay, pooled)
	// A ready send that came before any receive fails the receive that
	// takes it, as in Recv: a probe is no receive.
	if u.h.typ == typeMatch {
		n := r.fill(u.data, 0)
		st := Status{Source: u.from, Tag: int(u.h.tag), Bytes: n, Total: len(u.data)}
		if u.h.flags&flagReady != 0 {
			st.Err = &EarlyReadyError{From: u.from, Tag: int(u.h.tag)}
		}
		e.freeUnexpected(u)
		r.finishNew(st, false) // nobody else can see r yet
		return r, nil
	}
	if u.h.flags&flagReady != 0 {
		r.early = &EarlyReadyError{From: u.from, Tag: int(u.h.tag)}
	}
	e.mu.Lock()
	if err := e.dead[u.from]; err != nil {
		// A rendezvous message's payload is still with its sender.
		e.mu.Unlock()
		r.finishNew(Status{Source: u.from, Tag: int(u.h.tag), Err: err}, false)
		e.freeUnexpected(u)
		return r, nil
	}
	e.matchRTS(r, u.from, u.h, u.data, true) // unlocks; done with u.data on return
	e.freeUnexpected(u)
	return r, nil
}
