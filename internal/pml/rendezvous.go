package pml

import (
	"fmt"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// matchRTS binds a receive to an announced rendezvous message, takes the
// first fragment that came with the RTS, and sends the CTS for as many
// bytes as the buffer holds: at once when the caller may block (a posting
// receive), else from a poller or a goroutine. Called with e.mu held; it
// unlocks.
func (e *Engine) matchRTS(r *Request, from int, h header, first []byte, inline bool) {
	r.from, r.total = from, int(h.size)
	r.accepted = min(r.total, r.size())
	r.since = time.Time{}
	if _, ok := e.module(from).(btl.BlockingCopier); ok && !inline && r.accepted == r.total && r.lay == nil && h.flags&flagVector == 0 {
		// Matched on arrival: a stream's time includes the sender's
		// writing the first fragment, which came with the RTS. A layout on
		// either side is not timed: it moves otherwise than contiguous
		// messages of its size, which the times choose the way for.
		if h.flags&flagGet != 0 {
			r.since = time.Now()
		} else if h.sent != 0 {
			r.since = time.Unix(0, h.sent)
		}
	}
	if h.flags&flagGet != 0 {
		e.mu.Unlock()
		if inline {
			e.getData(r, from, h)
		} else {
			e.laterGet(get{r, from, h})
		}
		return
	}
	got := min(len(first), r.accepted)
	if got < r.accepted {
		r.received.Store(0)
		e.nextID++
		r.id = e.nextID
		e.recvs[r.id] = r
	}
	e.mu.Unlock()
	cts := header{typ: typeCTS, context: h.context, source: int32(e.me), tag: h.tag,
		accepted: uint64(r.accepted), sreq: h.sreq, rreq: r.id}
	id := r.id // r may be recycled once complete: the sends below must not touch it
	if got == r.accepted {
		// The first fragment held all it takes; the CTS still completes the send.
		r.fill(first[:got], 0)
		e.complete(r, Status{Source: from, Tag: int(h.tag), Bytes: got, Total: r.total, Err: r.early})
		if inline {
			e.sendCTS(from, cts, id) // no closure: a posting receive allocates nothing here
		} else {
			e.laterCTS(ctsJob{from, cts, id})
		}
		return
	}
	// The CTS goes before the first fragment is copied out, so that the
	// sender writes the next ones meanwhile: at once where the caller may
	// block, from a delivery only if the module need not wait to send it.
	sent := inline
	if inline {
		if !e.sendCTS(from, cts, id) {
			return
		}
	} else if ts, ok := e.module(from).(btl.TrySender); ok {
		var hb [HeaderSize]byte
		sent = ts.TrySend(from, cts.encode(hb[:]), nil)
	}
	if got > 0 {
		// Until these bytes count, r cannot complete: the CTS's data alone
		// falls short. A read that failed (getData) brings none, and r may
		// be complete already.
		r.fill(first[:got], 0)
		e.arrived(r, id, from, h.tag, got)
	}
	if !sent {
		e.laterCTS(ctsJob{from, cts, id})
	}
}

// ctsJob is a clear-to-send that a delivery decided on, for sendCTS.
type ctsJob struct {
	from int
	h    header
	id   uint64
}

// laterCTS is later for a clear-to-send, queued by value: a closure cost
// every matched synchronous send an allocation, and a ping-pong of Ssends
// collected garbage 17 times a rank in 180,000 round trips (1.5 without).
func (e *Engine) laterCTS(c ctsJob) {
	if !forPollers(e, &e.ctss, c) {
		e.background(func() { e.sendCTS(c.from, c.h, c.id) })
	}
}

// sendCTS sends a receive's clear-to-send; a failure fails the receive
// with id, if it still waits for data, and returns false.
func (e *Engine) sendCTS(from int, cts header, id uint64) bool {
	if err := e.send(e.module(from), from, cts, nil); err != nil {
		e.failRecv(id, from, err)
		return false
	}
	return true
}

// getData reads a matched message straight from the sender's memory into
// the receive buffer, then tells the sender that its buffer is free (FIN).
// If the transport cannot read it, the sender is asked to send it (CTS).
func (e *Engine) getData(r *Request, from int, h header) {
	m := e.module(from)
	var err error
	if r.accepted > 0 {
		sc, ok := m.(btl.SingleCopier)
		switch {
		case !ok:
			err = fmt.Errorf("btl %s cannot read another rank's memory", m.Name())
		case h.flags&flagVector != 0:
			err = e.readVector(m, from, h.token, r)
		case r.lay != nil:
			err = e.readLayout(sc, from, h.token, r)
		default:
			err = sc.Read(from, h.token, 0, r.buf[:r.accepted])
		}
	}
	if err != nil {
		e.log.Debug("single copy failed; the sender will send the message", "from", from, "error", err)
		h.flags &^= flagGet | flagVector
		e.mu.Lock()
		e.matchRTS(r, from, h, nil, true) // unlocks; we are off the delivery path already
		return
	}
	t := timing(r)
	e.gotData(m, r, from, h, false)
	t.report(m, from, true)
}

// took is what a BlockingCopier is told of a receive (Took), kept from
// its request, which may be recycled once complete.
type took struct {
	since time.Time
	size  int
}

func timing(r *Request) took { return took{r.since, r.accepted} }

// report tells m how long the receive from peer took, if it was timed.
func (t took) report(m btl.Module, peer int, read bool) {
	if t.since.IsZero() || t.size == 0 {
		return
	}
	if bc, ok := m.(btl.BlockingCopier); ok {
		bc.Took(peer, t.size, read, time.Since(t.since))
	}
}

// gotData ends a single-copy receive whose payload is in place: a FIN
// tells the sender its buffer is free. hold lets the module keep the FIN
// back to go with the next ones (btl.Poster).
func (e *Engine) gotData(m btl.Module, r *Request, from int, h header, hold bool) {
	fin := header{typ: typeFin, context: h.context, source: int32(e.me), tag: h.tag, accepted: uint64(r.accepted), sreq: h.sreq}
	st := Status{Source: from, Tag: int(h.tag), Bytes: r.accepted, Total: r.total, Err: r.early}
	send := e.send
	if hold {
		send = e.post
	}
	if err := send(m, from, fin, nil); err != nil {
		st.Err = err
	}
	e.complete(r, st)
}

// maxGetBatch bounds the bytes that one vectored read gathers: here a
// cross-memory attach of 128-256 KiB in all, in pieces of 16-128 KiB, runs
// at 17-24 GB/s, one 32 KiB read at 9, and two of 256 KiB at once are
// slower than one at a time (the copy leaves the cache).
const maxGetBatch = 256 << 10

// getAll makes the single-copy reads that one poll matched. Consecutive
// reads from one peer go in one call of its module's ReadAll
// (btl.VectorReader), and their FINs leave together.
func (e *Engine) getAll(gets []get) {
	for len(gets) > 0 {
		g := gets[0]
		vr, ok := e.module(g.from).(btl.VectorReader)
		n, size := 1, g.r.accepted
		for ok && plainGet(g) && n < len(gets) && n < stackReads && gets[n].from == g.from && plainGet(gets[n]) && size+gets[n].r.accepted <= maxGetBatch {
			size += gets[n].r.accepted
			n++
		}
		if n == 1 {
			e.getData(g.r, g.from, g.h)
		} else {
			e.getBatch(vr, gets[:n])
		}
		gets = gets[n:]
	}
}

// plainGet reports whether g reads one buffer into one buffer, as a batch
// of reads does.
func plainGet(g get) bool { return g.r.lay == nil && g.h.flags&flagVector == 0 }

// stackReads is the most reads one batch gathers.
const stackReads = 32

func (e *Engine) getBatch(vr btl.VectorReader, gets []get) {
	var tokens [stackReads]uint64
	var dsts [stackReads][]byte
	for i, g := range gets {
		tokens[i], dsts[i] = g.h.token, g.r.buf[:g.r.accepted]
	}
	from := gets[0].from
	if err := vr.ReadAll(from, tokens[:len(gets)], dsts[:len(gets)]); err != nil {
		e.log.Debug("vectored single copy failed; reading one by one", "from", from, "error", err)
		for _, g := range gets {
			e.getData(g.r, g.from, g.h)
		}
		return
	}
	m := e.module(from)
	for i, g := range gets {
		e.gotData(m, g.r, from, g.h, i < len(gets)-1)
	}
}

// get is a single-copy read that a delivery matched to a receive.
type get struct {
	r    *Request
	from int
	h    header
}

// laterGet is later for a single-copy read: the poller that runs it reads
// it with the others of its peer that the same poll matched (getAll).
func (e *Engine) laterGet(g get) {
	if !forPollers(e, &e.gets, g) {
		e.background(func() { e.getData(g.r, g.from, g.h) })
	}
}

func (e *Engine) failRecv(id uint64, from int, err error) {
	e.mu.Lock()
	r := e.recvs[id]
	delete(e.recvs, id)
	e.mu.Unlock()
	if r != nil {
		e.complete(r, Status{Source: from, Err: err})
	}
}
