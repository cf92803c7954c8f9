package pml

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gompi/gompi/frameworks/btl"
)

// The btl.Receiver side of the engine. These run on transport goroutines:
// they take the engine's lock briefly and never wait to send.

// Place returns where the payload of a rendezvous data fragment belongs:
// straight in the receive buffer, sparing a copy.
func (e *Engine) Place(from int, hb []byte, size int) []byte {
	if len(hb) < 2 || hb[1] != typeData {
		return nil // most fragments: spare decoding the header twice
	}
	h, err := decodeHeader(hb)
	if err != nil || h.typ != typeData {
		return nil
	}
	e.mu.Lock()
	r := e.recvs[h.rreq]
	e.mu.Unlock()
	if r == nil || r.lay != nil || r.from != from || h.offset > uint64(r.accepted) || uint64(size) > uint64(r.accepted)-h.offset {
		return nil // Deliver reports it, or unpacks it
	}
	return r.buf[h.offset : h.offset+uint64(size)]
}

// PlaceVector returns where the payload of a rendezvous data fragment
// belongs when its receive's layout has blocks long enough to read into
// where they lie (btl.VectorPlacer): a vectored read then spares the
// unpacking copy.
func (e *Engine) PlaceVector(from int, hb []byte, size int, parts [][]byte) [][]byte {
	if len(hb) < 2 || hb[1] != typeData {
		return parts
	}
	h, err := decodeHeader(hb)
	if err != nil || h.typ != typeData {
		return parts
	}
	e.mu.Lock()
	r := e.recvs[h.rreq]
	e.mu.Unlock()
	if r == nil || !vectored(r.lay, vectorMinBlock) || r.from != from || h.offset > uint64(r.accepted) || uint64(size) > uint64(r.accepted)-h.offset {
		return parts // Deliver reports it, or unpacks it
	}
	return r.lay.Blocks(parts, int(h.offset), size)
}

// DeliverVector takes a data fragment whose payload was read into the
// slices PlaceVector gave.
func (e *Engine) DeliverVector(from int, hb []byte, size int) {
	h, err := decodeHeader(hb)
	if err != nil || h.typ != typeData {
		e.log.Error("dropping a placed fragment with a bad header", "from", from, "error", err)
		return
	}
	e.deliverData(from, h, nil, size, true)
}

// The engine may want a payload scattered over a layout's blocks.
var _ btl.VectorPlacer = (*Engine)(nil)

// Deliver takes one fragment from a transport.
func (e *Engine) Deliver(from int, hb, payload []byte, placed bool) {
	if len(hb) == MatchHeaderSize && hb[0] == headerVersion && hb[1] == typeMatch {
		// Most fragments. The header's two fields go as scalars: a header
		// built on the stack and passed on was copied 16 bytes at a time
		// from the narrower stores that had just built it, which the
		// processor cannot forward.
		e.deliverEager(from, binary.LittleEndian.Uint32(hb[4:8]), int32(binary.LittleEndian.Uint32(hb[12:16])), hb, payload)
		return
	}
	h, err := decodeHeader(hb)
	if err != nil {
		e.log.Error("dropping a fragment with a bad header", "from", from, "error", err)
		return
	}
	switch h.typ { // an eager fragment that decodes took the path above
	case typeRTS:
		e.deliverRTS(from, h, payload)
	case typeCTS:
		e.deliverCTS(from, h)
	case typeData:
		e.deliverData(from, h, payload, len(payload), placed)
	case typeFin:
		e.deliverFin(from, h)
	case typeCancel:
		e.deliverCancel(from, h)
	case typeCancelAck:
		e.deliverCancelAck(from, h)
	}
}

// deliverEager takes an eager message, the fragment's header hb, of tag
// on context.
func (e *Engine) deliverEager(from int, cid uint32, tag int32, hb, payload []byte) {
	e.mu.Lock()
	q := e.queue(cid)
	if r := q.takePosted(from, int(tag)); r != nil {
		e.mu.Unlock()
		var n int
		if r.lay == nil {
			n = copy(r.buf, payload)
		} else {
			n = r.fill(payload, 0)
		}
		r.finishMatch(from, int(tag), n, len(payload))
		e.notify()
		return
	}
	// Unexpected: the payload must be kept, it is the transport's buffer.
	h, _ := decodeHeader(hb) // Deliver decoded it once already
	e.hold(q, e.newUnexpected(from, h, payload))
	e.mu.Unlock()
	e.notify()
}

// hold queues u, which matched no receive, in q; the caller holds mu.
func (e *Engine) hold(q *queues, u *unexpected) {
	q.hold(u)
	// waiting first: a probe that loaded held's new value and then finds
	// waiting at 0 would wait for held to move again, for ever.
	e.waiting.Store(e.waiting.Load() + 1)
	e.held.Store(e.held.Load() + 1)
}

// unhold takes the i-th message out of q's unexpected queue, hold's
// reverse; the caller holds mu.
func (e *Engine) unhold(q *queues, i int) {
	q.unexpected.remove(i)
	e.waiting.Store(e.waiting.Load() - 1)
}

func (e *Engine) deliverRTS(from int, h header, first []byte) {
	e.mu.Lock()
	q := e.queue(h.context)
	if r := q.takePosted(from, int(h.tag)); r != nil {
		e.matchRTS(r, from, h, first, e.inline(from)) // unlocks
		return
	}
	// The first fragment is at most an eager message: kept like one.
	e.hold(q, e.newUnexpected(from, h, first))
	e.mu.Unlock()
	e.notify()
}

// takeSend removes and returns the rendezvous send with id, or nil.
func (e *Engine) takeSend(id uint64) *Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.sends[id]
	delete(e.sends, id)
	return s
}

func (e *Engine) deliverCTS(from int, h header) {
	s := e.takeSend(h.sreq)
	switch {
	case s == nil:
		e.log.Error("dropping a CTS for an unknown send", "from", from, "send", h.sreq)
		return
	case s.peer != from || h.accepted > uint64(s.size()):
		e.complete(s, Status{Err: fmt.Errorf("world rank %d accepted %d bytes of a %d-byte message", from, h.accepted, s.size())})
		return
	}
	accepted := int(h.accepted)
	if accepted <= s.first {
		// The RTS carried all that the receiver takes (a small
		// synchronous send): the CTS only completes the send, here,
		// without the closure and queue that sending data needs.
		e.complete(s, Status{})
		return
	}
	if e.inline(from) {
		// A message to this rank: the goroutine that sent the CTS posts a
		// receive, sends or polls, and may copy the data itself. Queued, it
		// waited for a goroutine where nobody polled: an Isend to self of
		// 8 KiB, then its Recv, took 5 us in Go, 40 in C.
		e.sendData(s, h.rreq, accepted)
		return
	}
	e.later(func() { e.sendData(s, h.rreq, accepted) })
}

// inline reports whether the messages from world rank from come through a
// module that delivers in the sender's goroutine (btl.Inline: a rank's
// messages to itself).
func (e *Engine) inline(from int) bool {
	_, ok := e.module(from).(btl.Inline)
	return ok
}

// deliverFin completes a send whose payload the receiver read itself.
func (e *Engine) deliverFin(from int, h header) {
	s := e.takeSend(h.sreq)
	switch {
	case s == nil:
		e.log.Error("dropping a FIN for an unknown send", "from", from, "send", h.sreq)
	case s.peer != from || h.accepted > uint64(s.size()):
		e.complete(s, Status{Err: fmt.Errorf("world rank %d read %d bytes of a %d-byte message", from, h.accepted, s.size())})
	default:
		s.keep = nil
		e.complete(s, Status{})
	}
}

// sendData moves the accepted part of a rendezvous message that did not go
// with the RTS, in fragments of streamChunk's size.
func (e *Engine) sendData(s *Request, rreq uint64, accepted int) {
	m := e.module(s.peer)
	chunk := streamChunk(m, s.size(), maxSendSize(m, s.peer))
	if s.lay != nil && !vectored(s.lay, vectorMinBlock) {
		// Packed fragments small enough that the receiver unpacks one
		// while the next is packed and sent.
		chunk = min(chunk, packedFragment)
	}
	for off := s.first; off < accepted; off += chunk {
		end := min(off+chunk, accepted)
		h := header{typ: typeData, context: s.context, source: int32(e.me), tag: int32(s.tag), offset: uint64(off), rreq: rreq}
		if err := e.sendPart(m, s, h, off, end-off, false); err != nil {
			e.complete(s, Status{Err: err})
			return
		}
	}
	e.complete(s, Status{})
}

// streamChunk is the size, at most most, of the fragments of a rendezvous
// message of size bytes that is not read by single copy. Where the
// receiver's CTS leaves before it copies out the first fragment (a
// btl.TrySender's), a quarter of the message, from minStreamChunk up, has
// the sender write one fragment while the receiver copies out the one
// before: over sm, 64 KiB of 4 KiB rows 0.8 of the time in whole
// fragments, 128 KiB 0.7.
func streamChunk(m btl.Module, size, most int) int {
	if _, ok := m.(btl.TrySender); ok {
		most = min(most, max(size/4, minStreamChunk))
	}
	return max(most, 1)
}

const minStreamChunk = 16 << 10

// maxSendSize is the largest fragment m sends to peer.
func maxSendSize(m btl.Module, peer int) int {
	if f, ok := m.(btl.PeerFragmenter); ok {
		return f.MaxSendSizeTo(peer)
	}
	return m.MaxSendSize()
}

// deliverData takes a rendezvous data fragment of n bytes: in payload,
// or already where it belongs if placed.
func (e *Engine) deliverData(from int, h header, payload []byte, n int, placed bool) {
	e.mu.Lock()
	r := e.recvs[h.rreq]
	e.mu.Unlock()
	if r == nil || r.from != from || h.offset > uint64(r.accepted) || uint64(n) > uint64(r.accepted)-h.offset {
		e.log.Error("dropping a data fragment that fits no receive", "from", from, "receive", h.rreq,
			"offset", h.offset, "size", n)
		return
	}
	if !placed {
		r.fill(payload, int(h.offset))
	}
	e.arrived(r, h.rreq, from, h.tag, n)
}

// arrived counts n more bytes of rendezvous receive r (id) as in place,
// and completes r once all it accepted are, unless a failure did first.
func (e *Engine) arrived(r *Request, id uint64, from int, tag int32, n int) {
	if r.received.Add(int64(n)) < int64(r.accepted) {
		return
	}
	e.mu.Lock()
	ours := e.recvs[id] == r
	delete(e.recvs, id)
	e.mu.Unlock()
	if !ours {
		return
	}
	t := timing(r)
	e.complete(r, Status{Source: from, Tag: int(tag), Bytes: r.accepted, Total: r.total, Err: r.early})
	t.report(e.module(from), from, false)
}

// PeerFailed fails every request that waits on the peer: receives from it
// (and receives from any source, which it could have satisfied), sends to
// it and rendezvous transfers with it. Later requests involving it fail at
// once.
func (e *Engine) PeerFailed(peer int, err error) {
	e.mu.Lock()
	if e.finalizing || e.dead[peer] != nil {
		e.mu.Unlock()
		return
	}
	if e.started.Load() {
		// The module that carries the peer's traffic is the one that saw it
		// fail; its error names the peer but not itself (btl.Receiver).
		err = moduleErr(e.routes.For(peer), err)
	}
	if !errors.Is(err, btl.ErrPeerFailed) {
		err = fmt.Errorf("%w: %w", btl.ErrPeerFailed, err)
	}
	e.dead[peer] = err
	e.deaths = append(e.deaths, peer)
	e.anyDead.Store(true)
	e.held.Store(e.held.Load() + 1) // a probe of the peer fails now
	var failed []*Request
	e.eachQueue(func(q *queues) {
		q.posted.removeFunc(func(r *Request) bool {
			if r.peer == peer || r.peer == AnySource {
				failed = append(failed, r)
				return true
			}
			return false
		})
	})
	for id, r := range e.recvs {
		if r.from == peer {
			failed = append(failed, r)
			delete(e.recvs, id)
		}
	}
	for id, r := range e.sends {
		if r.peer == peer {
			failed = append(failed, r)
			delete(e.sends, id)
		}
	}
	e.mu.Unlock()
	e.log.Warn("peer failed", "rank", peer, "error", err, "requests failed", len(failed))
	for _, r := range failed {
		e.complete(r, Status{Source: peer, Err: err})
	}
	e.notify()
}
