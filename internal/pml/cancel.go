package pml

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Cancel cancels a posted receive that has not matched yet. It returns
// false when the receive already matched: it then completes normally.
//
// For a send it returns false at once and asks the receiver to drop the
// message: a send that no receive has matched then completes with
// Cancelled set, one that was matched completes normally. Wait tells
// which. A send still stalled (stall.go) is cancelled at once, and true
// returned. An eager send, complete since it started, is pending again until
// the receiver answers; one without a mark (PostSend) cannot be named
// and stays complete.
func (e *Engine) Cancel(r *Request) (bool, error) {
	if r.kind == kindGeneral {
		return false, nil // its owner completes it
	}
	if r.kind == kindSend {
		if e.cancelStalled(r) {
			return true, nil
		}
		if r.mark != 0 && r.id == 0 && r.Done() {
			return false, e.cancelEager(r)
		}
		return false, e.cancelSend(r)
	}
	e.mu.Lock()
	q := e.queue(r.context).at(r.peer, r.tag)
	i := slices.Index(q.posted.all(), r)
	if i < 0 {
		e.mu.Unlock()
		return false, nil
	}
	q.posted.remove(i)
	e.mu.Unlock()
	e.complete(r, Status{Source: r.peer, Tag: r.tag, Cancelled: true})
	return true, nil
}

// CancelPosted cancels the eager message that PostEager sent to world
// rank dest with mark, on context cid and with tag: r, a zero Request
// that the caller allocated, stands for that send from now on, pending
// until the receiver answers, and Wait on it tells whether the message
// was dropped (as Cancel).
func (e *Engine) CancelPosted(r *Request, cid uint32, dest, tag int, mark uint32) (*Request, error) {
	r = e.request(r, kindSend, cid, dest, tag, nil, nil, false)
	r.mark = mark
	r.state = stateDone // as PostSend would have left it; nobody sees r yet
	return r, e.cancelEager(r)
}

func (e *Engine) cancelSend(r *Request) error {
	e.mu.Lock()
	if r.Done() || r.id == 0 || e.sends[r.id] != r || r.cancelling {
		e.mu.Unlock()
		return nil
	}
	r.cancelling = true
	e.mu.Unlock()
	h := header{typ: typeCancel, context: r.context, source: int32(e.me), tag: int32(r.tag), sreq: r.id}
	if r.peer == e.me {
		e.cancelOwn(h)
		return nil
	}
	if err := e.send(e.module(r.peer), r.peer, h, nil); err != nil {
		return fmt.Errorf("cancel of a send: %w", err)
	}
	return nil
}

// cancelEager asks the receiver of r, an eager send complete since it
// started, to drop its message if no receive has matched it. r is pending
// again until the answer, under an id of its own as a rendezvous send
// is: the answer, and the peer's failure, find it there. A send that
// failed, or whose peer is gone, has nothing left to drop.
func (e *Engine) cancelEager(r *Request) error {
	e.mu.Lock()
	if r.status.Err != nil || e.dead[r.peer] != nil {
		e.mu.Unlock()
		return nil
	}
	e.nextID++
	r.id = e.nextID
	r.cancelling = true
	r.status = Status{}
	atomic.StoreUint32(&r.state, statePending)
	e.sends[r.id] = r
	e.mu.Unlock()
	h := header{typ: typeCancel, flags: flagEager, context: r.context, source: int32(e.me), tag: int32(r.tag), sreq: r.id, mark: r.mark}
	if r.peer == e.me {
		e.cancelOwn(h)
		return nil
	}
	if err := e.send(e.module(r.peer), r.peer, h, nil); err != nil {
		// The message went; whether it arrives is the peer's failure's to tell.
		if s := e.takeSend(r.id); s != nil {
			e.complete(s, Status{})
		}
		return fmt.Errorf("cancel of a send: %w", err)
	}
	return nil
}

// deliverCancel drops the sender's message if no receive has matched it
// yet, and answers whether it did: an RTS named by its send request, or
// with flagEager an eager message named by its mark. Fragments from one
// sender arrive in order, so the message is here already: in the
// unexpected queue, or matched.
func (e *Engine) deliverCancel(from int, h header) {
	ack := e.drop(from, h)
	e.later(func() {
		if err := e.send(e.module(from), from, ack, nil); err != nil {
			e.log.Warn("cannot answer a cancel", "to", from, "error", err)
		}
	})
}

// cancelOwn cancels a send of this rank to itself before Cancel returns:
// its message, if no receive took it, is in this engine's queue, and the
// answer, sent later (off the caller's goroutine where nothing polls),
// would leave the request pending for a while after the message had gone.
func (e *Engine) cancelOwn(h header) {
	e.deliverCancelAck(e.me, e.drop(e.me, h))
}

// drop is deliverCancel's work, and returns its answer.
func (e *Engine) drop(from int, h header) header {
	eager := h.flags&flagEager != 0
	e.mu.Lock()
	q := e.queue(h.context).at(from, int(h.tag))
	ack := header{typ: typeCancelAck, flags: h.flags & flagEager, context: h.context, source: int32(e.me), tag: h.tag, sreq: h.sreq}
	for i, u := range q.unexpected.all() {
		if u.from != from {
			continue
		}
		if (eager && u.h.typ == typeMatch && u.h.mark == h.mark && u.h.tag == h.tag) ||
			(!eager && u.h.typ == typeRTS && u.h.sreq == h.sreq) {
			e.unhold(q, i)
			e.freeUnexpected(u)
			ack.flags |= flagCancelled
			break
		}
	}
	e.mu.Unlock()
	return ack
}

// deliverCancelAck completes a cancelled send. A rendezvous send whose
// receiver had matched it goes on and completes normally; an eager one,
// whose message left long ago, completes at the answer either way.
func (e *Engine) deliverCancelAck(from int, h header) {
	cancelled := h.flags&flagCancelled != 0
	if !cancelled && h.flags&flagEager == 0 {
		return
	}
	e.mu.Lock()
	s := e.sends[h.sreq]
	if s != nil && s.peer == from {
		delete(e.sends, h.sreq)
	} else {
		s = nil
	}
	e.mu.Unlock()
	if s == nil {
		e.log.Error("dropping a cancel's answer for an unknown send", "from", from, "send", h.sreq)
		return
	}
	if !cancelled {
		e.complete(s, Status{})
		return
	}
	e.complete(s, Status{Tag: s.tag, Cancelled: true})
}
