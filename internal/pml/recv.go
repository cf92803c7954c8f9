package pml

// Irecv posts a receive into buf from world rank src (or AnySource) with
// tag (or AnyTag) on context id cid. A message already waiting in the
// unexpected queue matches at once.
func (e *Engine) Irecv(cid uint32, src, tag int, buf []byte) *Request {
	return e.irecv(nil, cid, src, tag, buf, nil, false)
}

// StartRecv is Irecv into r, a zero Request that the caller allocated.
func (e *Engine) StartRecv(r *Request, cid uint32, src, tag int, buf []byte) *Request {
	return e.irecv(r, cid, src, tag, buf, nil, false)
}

// PostRecv is Irecv with a pooled request, for a caller that waits on it
// with WaitRef and gives it back with Release, as Recv does.
func (e *Engine) PostRecv(cid uint32, src, tag int, buf []byte) *Request {
	return e.irecv(nil, cid, src, tag, buf, nil, true)
}

// StartRecvLayout is StartRecv into the data lay describes.
func (e *Engine) StartRecvLayout(r *Request, cid uint32, src, tag int, lay Layout) *Request {
	return e.irecv(r, cid, src, tag, nil, lay, false)
}

// Recv is a blocking receive with a pooled request; it writes the
// receive's status into st, where the caller reads it (a Status returned
// was copied twice more on its way).
func (e *Engine) Recv(cid uint32, src, tag int, buf []byte, st *Status) {
	r := e.irecv(nil, cid, src, tag, buf, nil, true)
	*st = *e.WaitRef(r)
	e.Release(r)
}

// RecvLayout is Recv into the data lay describes.
func (e *Engine) RecvLayout(cid uint32, src, tag int, lay Layout, st *Status) {
	r := e.irecv(nil, cid, src, tag, nil, lay, true)
	*st = *e.WaitRef(r)
	e.Release(r)
}

func (e *Engine) irecv(r *Request, cid uint32, src, tag int, buf []byte, lay Layout, pooled bool) *Request {
	r = e.request(r, kindRecv, cid, src, tag, buf, lay, pooled)
	e.mu.Lock()
	q := e.queue(cid)
	b := q.find(src, tag)
	for i, u := range b.unexpected.all() {
		if !r.matches(u.from, int(u.h.tag)) {
			continue
		}
		e.unhold(b, i)
		if u.h.typ == typeMatch {
			e.mu.Unlock()
			n := r.fill(u.data, 0)
			st := Status{Source: u.from, Tag: int(u.h.tag), Bytes: n, Total: len(u.data)}
			if u.h.flags&flagReady != 0 {
				st.Err = &EarlyReadyError{From: u.from, Tag: int(u.h.tag)}
			}
			e.freeUnexpected(u)
			r.finishNew(st, false) // r is in no queue: nobody else can see it yet
			return r
		}
		if u.h.flags&flagReady != 0 {
			r.early = &EarlyReadyError{From: u.from, Tag: int(u.h.tag)}
		}
		e.matchRTS(r, u.from, u.h, u.data, true) // unlocks; done with u.data on return
		e.freeUnexpected(u)
		return r
	}
	if src != AnySource {
		if err := e.dead[src]; err != nil {
			e.mu.Unlock()
			e.complete(r, Status{Source: src, Err: err})
			return r
		}
	}
	q.post(r)
	e.mu.Unlock()
	return r
}

// Iprobe looks for a waiting message that a receive with these arguments
// would match, without receiving it, and describes it in *st. st is a
// pointer as a status of ten words returned by value was copied through
// the stack at each layer, most of the time of a probe that finds nothing.
func (e *Engine) Iprobe(cid uint32, src, tag int, st *Status) (bool, error) {
	if e.nothingWaits(src) {
		return false, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range e.queue(cid).find(src, tag).unexpected.all() {
		if matches(src, tag, u.from, int(u.h.tag)) {
			*st = Status{Source: u.from, Tag: int(u.h.tag), Bytes: u.size(), Total: u.size()}
			return true, nil
		}
	}
	if src != AnySource {
		if err := e.dead[src]; err != nil {
			st.Source = src
			return false, err
		}
	}
	return false, nil
}

// nothingWaits reports, without the lock, that a probe of src can find
// nothing: no message waits unmatched and src has not failed.
func (e *Engine) nothingWaits(src int) bool {
	return e.waiting.Load() == 0 && (src == AnySource || !e.anyDead.Load())
}

// Probe waits for a message that a receive with these arguments would match.
// A probe of any source fails when a peer fails while it waits, as a
// receive of any source posted then does: the message it waits for may
// have been the dead peer's.
func (e *Engine) Probe(cid uint32, src, tag int) (Status, error) {
	w := waiter{e: e, probe: PendingOp{Kind: OpProbe, Context: cid, Peer: src, Tag: tag}, deaths: e.deathCount(src)}
	for {
		seen := e.held.Load()
		var st Status
		ok, err := e.Iprobe(cid, src, tag, &st)
		if !ok && err == nil {
			st, err = e.diedSince(src, w.deaths)
		}
		if ok || err != nil {
			w.end()
			return st, err
		}
		w.until(seen)
	}
}

// deathCount is how many peers have failed, for diedSince; 0 for a probe
// of one source, which Iprobe fails itself.
func (e *Engine) deathCount(src int) int {
	if src != AnySource || !e.anyDead.Load() {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.deaths)
}

// diedSince returns the error of the first peer that failed after the
// first n, for a wait of any source.
func (e *Engine) diedSince(src, n int) (Status, error) {
	if src != AnySource || !e.anyDead.Load() {
		return Status{}, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.deaths) <= n {
		return Status{}, nil
	}
	p := e.deaths[n]
	return Status{Source: p}, e.dead[p]
}

// until polls for a probe until a message may have arrived that it did
// not see: held has moved from seen, or a sleep ended. A probe that
// looked in the queues at every poll took the engine's lock each time,
// which the rank's other goroutines and the deliveries wait for.
func (w *waiter) until(seen uint64) {
	for w.e.held.Load() == seen {
		if w.sleepy() {
			w.unpoll()
			w.e.sleep(w.ready)
			w.reset()
			return
		}
		w.step()
	}
}
