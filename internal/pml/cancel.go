package pml

import (
	"fmt"
	"slices"
)

// Cancel cancels a posted receive that has not matched yet. It returns
// false when the receive already matched: it then completes normally.
//
// For a send it returns false at once and asks the receiver to drop the
// message: a rendezvous send that no receive has matched then completes
// with Cancelled set; one that was matched, or an eager send (it has left
// already), completes normally. Wait tells which.
func (e *Engine) Cancel(r *Request) (bool, error) {
	if r.kind == kindSend {
		return false, e.cancelSend(r)
	}
	e.mu.Lock()
	q := e.queue(r.context)
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

func (e *Engine) cancelSend(r *Request) error {
	e.mu.Lock()
	if r.Done() || r.id == 0 || e.sends[r.id] != r || r.cancelling {
		e.mu.Unlock()
		return nil
	}
	r.cancelling = true
	e.mu.Unlock()
	h := header{typ: typeCancel, context: r.context, source: int32(e.me), tag: int32(r.tag), sreq: r.id}
	if err := e.send(e.module(r.peer), r.peer, h, nil); err != nil {
		return fmt.Errorf("cancel of a send: %w", err)
	}
	return nil
}

// deliverCancel drops the sender's RTS if no receive has matched it yet,
// and answers whether it did. Fragments from one sender arrive in order,
// so the RTS is here already: in the unexpected queue, or matched.
func (e *Engine) deliverCancel(from int, h header) {
	e.mu.Lock()
	q := e.queue(h.context)
	ack := header{typ: typeCancelAck, context: h.context, source: int32(e.me), tag: h.tag, sreq: h.sreq}
	for i, u := range q.unexpected.all() {
		if u.from == from && u.h.typ == typeRTS && u.h.sreq == h.sreq {
			q.unexpected.remove(i)
			e.freeUnexpected(u)
			ack.flags |= flagCancelled
			break
		}
	}
	e.mu.Unlock()
	e.later(func() {
		if err := e.send(e.module(from), from, ack, nil); err != nil {
			e.log.Warn("cannot answer a cancel", "to", from, "error", err)
		}
	})
}

// deliverCancelAck completes a cancelled send. A send whose receiver had
// matched it goes on and completes normally.
func (e *Engine) deliverCancelAck(from int, h header) {
	if h.flags&flagCancelled == 0 {
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
	e.complete(s, Status{Tag: s.tag, Cancelled: true})
}
