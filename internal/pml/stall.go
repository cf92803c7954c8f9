package pml

import (
	"slices"
	"sync"

	"github.com/gompi/gompi/frameworks/btl"
)

// A non-blocking send whose module had no room for its first fragment
// (btl.ErrFull: the peer's ring is full and the peer is not polling)
// stalls: the send returns pending, and the fragment goes from a later
// poll of this rank, as Open MPI's ob1 keeps such sends on a pending list.
// Every later send to that peer that MPI orders after it (an eager or RTS
// fragment; control fragments match nothing) queues behind it until the
// queue is empty, so that messages still match in the order they were
// sent. The send paths look at Engine.stalled, a plain load, and take
// stalls' lock only when some send is stalled.
type stalls struct {
	mu sync.Mutex
	by map[int][]stalled // by world rank, in the order the sends started
}

// stalled is a send waiting for room: an eager one, its header in r.hdr,
// or a rendezvous one whose RTS is h.
type stalled struct {
	r   *Request
	rts bool
	h   header
}

// behind queues s after the sends stalled for its peer, if any, and
// reports whether it did. The caller has seen Engine.stalled set.
func (e *Engine) behind(s stalled) bool {
	e.stall.mu.Lock()
	defer e.stall.mu.Unlock()
	q, ok := e.stall.by[s.r.peer]
	if !ok {
		return false
	}
	e.stall.by[s.r.peer] = append(q, s)
	e.stalled.Add(1)
	e.changed()
	return true
}

// stallSend queues s, whose module just returned btl.ErrFull for it.
func (e *Engine) stallSend(s stalled) {
	e.stall.mu.Lock()
	if e.stall.by == nil {
		e.stall.by = map[int][]stalled{}
	}
	e.stall.by[s.r.peer] = append(e.stall.by[s.r.peer], s)
	e.stalled.Add(1)
	e.stall.mu.Unlock()
	e.changed()
}

// unstall sends what it can of the stalled sends, in order per peer, and
// returns how many went or failed. A poller that finds another one at it
// leaves it to that one.
func (e *Engine) unstall() int {
	if !e.stall.mu.TryLock() {
		return 0
	}
	defer e.stall.mu.Unlock()
	done := 0
	for peer, q := range e.stall.by {
		m := e.module(peer)
		n := 0
		for ; n < len(q); n++ {
			if !e.restart(m, q[n]) {
				break
			}
		}
		if n > 0 {
			e.Flush(peer)
		}
		clear(q[:n])
		if n == len(q) {
			delete(e.stall.by, peer)
		} else {
			e.stall.by[peer] = q[n:]
		}
		e.stalled.Add(-int32(n))
		done += n
	}
	return done
}

// restart posts s's fragment again and reports whether s has left the
// queue: its fragment went, or its send failed.
func (e *Engine) restart(m btl.Module, s stalled) bool {
	r := s.r
	err := e.deadErr(r.peer)
	if err == nil {
		if s.rts {
			err = e.sendPart(m, r, s.h, 0, r.first, true)
		} else {
			err = e.transmitPart(m, r, r.hdr[:], 0, r.size(), true)
		}
	}
	switch {
	case err == btl.ErrFull:
		return false
	case s.rts && err != nil:
		if r = e.takeSend(r.id); r != nil {
			e.complete(r, Status{Err: err})
		}
	case !s.rts:
		e.complete(r, Status{Err: err})
	}
	return true
}

// cancelStalled cancels r if it is a stalled send: it leaves the queue
// and completes as cancelled, as no receiver has seen it.
func (e *Engine) cancelStalled(r *Request) bool {
	if e.stalled.Load() == 0 {
		return false
	}
	e.stall.mu.Lock()
	q := e.stall.by[r.peer]
	i := slices.IndexFunc(q, func(s stalled) bool { return s.r == r })
	if i < 0 {
		e.stall.mu.Unlock()
		return false
	}
	rts := q[i].rts
	if q = slices.Delete(q, i, i+1); len(q) == 0 {
		delete(e.stall.by, r.peer)
	} else {
		e.stall.by[r.peer] = q
	}
	e.stalled.Add(-1)
	e.stall.mu.Unlock()
	if rts && e.takeSend(r.id) == nil {
		return true // the peer failed meanwhile, which completed r
	}
	e.complete(r, Status{Source: r.peer, Tag: r.tag, Cancelled: true})
	return true
}

// Unstall polls until every stalled send has gone to its transport or
// failed: Finalize calls it before the ranks part, while every peer
// still polls.
func (e *Engine) Unstall() {
	w := waiter{e: e}
	for e.stalled.Load() != 0 {
		w.step()
	}
	w.end()
}
