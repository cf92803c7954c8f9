package pml

import (
	"context"
	"fmt"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// send transmits one fragment with a pooled header buffer.
func (e *Engine) send(m btl.Module, peer int, h header, payload []byte) error {
	return e.transmit(m, peer, h, payload, false)
}

// post transmits the fragment of a send nobody waits on yet: a module that
// can hold it back and write it with the next ones may.
func (e *Engine) post(m btl.Module, peer int, h header, payload []byte) error {
	return e.transmit(m, peer, h, payload, true)
}

func (e *Engine) transmit(m btl.Module, peer int, h header, payload []byte, hold bool) error {
	hb := e.hdrPool.Get().(*[HeaderSize]byte)
	err := transmitIn(m, peer, h.encode(hb[:]), payload, hold)
	e.hdrPool.Put(hb)
	return err
}

// transmitIn sends one fragment with its encoded header hb, which the
// module is done with when it returns; with hold, a module that can
// (btl.Poster) may hold the fragment back to write it with the next ones.
func transmitIn(m btl.Module, peer int, hb []byte, payload []byte, hold bool) error {
	send := m.Send
	if hold {
		if p, ok := m.(btl.Poster); ok {
			send = p.Post
		}
	}
	if err := send(context.Background(), peer, hb, payload); err != nil {
		if err == btl.ErrFull { // for the caller to stall the send
			return err
		}
		return moduleErr(m, err)
	}
	return nil
}

// moduleErr names the module that failed: a module's error names the peer
// but not itself (btl.Module's Send). Out of line, so that the send paths
// pay nothing for it until a send fails.
//
//go:noinline
func moduleErr(m btl.Module, err error) error {
	return fmt.Errorf("btl %s: %w", m.Name(), err)
}

// Isend starts a send of buf to world rank dest, on the communicator
// whose context id is cid (the id that keeps communicators' and the
// library's own traffic apart). Messages up to the transport's eager
// limit go at once; larger ones and synchronous sends announce
// themselves and move their payload once the receiver matched.
func (e *Engine) Isend(cid uint32, dest, tag int, buf []byte, sync bool) *Request {
	return e.isend(nil, cid, dest, tag, buf, nil, sendPosted.withSync(sync), 0)
}

// StartSend is Isend into r, a zero Request that the caller allocated,
// perhaps inside its own request: one allocation per call instead of two.
// Its eager fragment is written at once, never held back for the next
// ones (btl.Poster): the collectives that use it wait on their few sends
// at once, and a held fragment would cost them its publication later. A
// large one is read by its receiver, as an Isend's.
func (e *Engine) StartSend(r *Request, cid uint32, dest, tag int, buf []byte, sync bool) *Request {
	return e.isend(r, cid, dest, tag, buf, nil, sendWaitedSoon.withSync(sync), 0)
}

// PostSend is StartSend for a caller that may start more sends before it
// waits: the module may hold the eager fragment back to write it with the
// next ones (btl.Poster). MPI's Isend. mark, when not 0, names an eager
// message for Cancel: the caller keeps it unique among its sends to dest
// that may still wait unmatched there.
func (e *Engine) PostSend(r *Request, cid uint32, dest, tag int, buf []byte, sync bool, mark uint32) *Request {
	return e.isend(r, cid, dest, tag, buf, nil, sendPosted.withSync(sync), mark)
}

// PostEager sends buf to world rank dest at once, as an eager message
// with no request, when it is one and the module that reaches dest takes
// a short header by value for Post (btl.SmallPoster); the module may hold
// it back to go with the next ones until Flush. It reports whether it
// sent, with the module's error: when it did not, the caller starts a
// request. Open MPI's ob1 does the same for a send its transport takes
// whole at once. mark is PostSend's: CancelPosted cancels the message by it.
func (e *Engine) PostEager(cid uint32, dest, tag int, buf []byte, mark uint32) (bool, error) {
	m := e.module(dest)
	sp, ok := m.(btl.SmallPoster)
	if !ok || len(buf) > m.EagerLimit() || e.anyDead.Load() || e.stalled.Load() != 0 {
		return false, nil
	}
	if err := sp.PostSmall(dest, matchHeader(cid, mark, int32(tag)), buf); err != nil {
		if err == btl.ErrFull {
			return false, nil // the request the caller starts stalls
		}
		return true, moduleErr(m, err)
	}
	return true, nil
}

// Flush writes what the module that reaches world rank peer holds back
// for it (btl.Poster).
func (e *Engine) Flush(peer int) {
	if p, ok := e.module(peer).(btl.Poster); ok {
		p.Flush(peer)
	}
}

// Send is a blocking send. An eager one needs no request at all: it is
// complete once the transport has the bytes, as Open MPI's sendi path
// does it. Others use a pooled request. It returns the send's error: a
// Status would only carry it, and returning one cost a copy of narrow
// stores the processor cannot forward.
func (e *Engine) Send(cid uint32, dest, tag int, buf []byte, sync bool) error {
	return e.blockingSend(cid, dest, tag, buf, sendBlocking.withSync(sync))
}

// SendInExchange is Send for the send half of an exchange (Sendrecv): the
// caller posted the receive before and waits for it next. A large message
// is then read by its receiver, never streamed: in an exchange both CPUs
// copy, and a stream has each copy both messages, out and in, where a read
// has each copy one (2 ranks exchanging 256 KiB: 15-17 us a Sendrecv
// always read, 24-34 streamed, up to 380 while the ways were timed).
func (e *Engine) SendInExchange(cid uint32, dest, tag int, buf []byte) error {
	return e.blockingSend(cid, dest, tag, buf, sendBlocking|sendExchange)
}

// blockingSend is Send in mode, which has sendBlocking.
func (e *Engine) blockingSend(cid uint32, dest, tag int, buf []byte, mode sendMode) error {
	if mode&sendSync == 0 {
		m := e.module(dest)
		if len(buf) <= m.EagerLimit() && !e.anyDead.Load() && e.stalled.Load() == 0 {
			if ss, ok := m.(btl.SmallSender); ok {
				if err := ss.SendSmall(dest, matchHeader(cid, 0, int32(tag)), buf); err != nil { // in registers: no pool
					return moduleErr(m, err)
				}
				return nil
			}
			h := header{typ: typeMatch, context: cid, tag: int32(tag)}
			return e.send(m, dest, h, buf)
		}
	}
	r := e.isend(nil, cid, dest, tag, buf, nil, mode, 0)
	err := e.WaitRef(r).Err
	e.Release(r)
	return err
}

// SendReady is Send in ready mode: the receiver reports the message to
// the receive that takes it if none was posted when it arrived (MPI's
// Rsend, which a correct program calls only once the receive is posted).
func (e *Engine) SendReady(cid uint32, dest, tag int, buf []byte) error {
	m := e.module(dest)
	if len(buf) <= m.EagerLimit() && !e.anyDead.Load() && e.stalled.Load() == 0 {
		if ss, ok := m.(btl.SmallSender); ok {
			h := matchHeader(cid, 0, int32(tag))
			h.Lo |= uint64(flagReady) << 16
			if err := ss.SendSmall(dest, h, buf); err != nil {
				return moduleErr(m, err)
			}
			return nil
		}
		return e.send(m, dest, header{typ: typeMatch, flags: flagReady, context: cid, tag: int32(tag)}, buf)
	}
	r := e.isend(nil, cid, dest, tag, buf, nil, sendBlocking|sendReady, 0)
	err := e.WaitRef(r).Err
	e.Release(r)
	return err
}

// PostReady is PostSend in ready mode (SendReady), never synchronous.
func (e *Engine) PostReady(r *Request, cid uint32, dest, tag int, buf []byte, mark uint32) *Request {
	return e.isend(r, cid, dest, tag, buf, nil, sendPosted|sendReady, mark)
}

// SendLayout is Send (SendReady when ready is set) of the data lay
// describes.
func (e *Engine) SendLayout(cid uint32, dest, tag int, lay Layout, sync, ready bool) error {
	if m := e.module(dest); !sync && lay.Size() <= m.EagerLimit() && !e.anyDead.Load() && e.stalled.Load() == 0 {
		// Complete once the transport has the bytes, as Send: no request.
		hb := e.hdrPool.Get().(*[HeaderSize]byte)
		h := encodeMatch(hb[:], cid, 0, int32(tag))
		if ready {
			h[2] |= byte(flagReady)
		}
		err := e.transmitLayout(m, dest, h, lay, 0, lay.Size(), false)
		e.hdrPool.Put(hb)
		return err
	}
	r := e.isend(nil, cid, dest, tag, nil, lay, sendBlocking.withSync(sync).withReady(ready), 0)
	err := e.WaitRef(r).Err
	e.Release(r)
	return err
}

// PostSendLayout is PostSend (PostReady when ready is set) of the data
// lay describes.
func (e *Engine) PostSendLayout(r *Request, cid uint32, dest, tag int, lay Layout, sync, ready bool, mark uint32) *Request {
	return e.isend(r, cid, dest, tag, nil, lay, sendPosted.withSync(sync).withReady(ready), mark)
}

// sendMode says how isend starts a send: who owns the request, whether
// the caller waits at once, and whether the send is synchronous.
type sendMode uint8

const (
	// sendPosted: the caller may start more sends before it waits (MPI's
	// Isend), so the module may hold an eager fragment back to write it
	// with the next ones.
	sendPosted sendMode = 0
	// sendWaitedSoon: the caller waits for the send at once (a
	// collective), so an eager fragment is written now.
	sendWaitedSoon sendMode = 1
	// sendBlocking: a blocking Send, waited for at once, in a request from
	// the engine's pool.
	sendBlocking sendMode = 2
	// sendSync, added to any of the above: the send completes only once a
	// receive has matched it.
	sendSync sendMode = 4
	// sendReady, added to any of the above: a ready-mode send, whose
	// fragment says so (flagReady).
	sendReady sendMode = 8
	// sendExchange, added to sendBlocking: the send half of an exchange
	// (SendInExchange), read by its receiver whatever the transport's
	// timings say.
	sendExchange sendMode = 16
)

// withSync returns m, made synchronous if sync is set.
func (m sendMode) withSync(sync bool) sendMode {
	if sync {
		return m | sendSync
	}
	return m
}

// expose lets the receiver of rendezvous send r read its data itself
// (flagGet in h): its buffer, or its layout's blocks where they are long
// and the transport can read blocks, else nothing (the layout is packed
// into the fragments).
func (e *Engine) expose(sc btl.SingleCopier, r *Request, h *header) {
	if r.lay == nil {
		// The receiver reads buf itself; r keeps it reachable until the FIN.
		h.flags |= flagGet
		h.token = sc.Expose(r.peer, r.buf)
		return
	}
	if vc, ok := sc.(btl.ScatterCopier); ok && vectored(r.lay, exposeMinBlock) {
		h.flags |= flagGet | flagVector
		l := e.blocksOf(r.lay, 0, r.lay.Size())
		h.token, r.keep = vc.ExposeVector(r.peer, *l)
		e.putBlocks(l)
	}
}

// withReady returns m in ready mode if ready is set.
func (m sendMode) withReady(ready bool) sendMode {
	if ready {
		return m | sendReady
	}
	return m
}

// isend starts a send of buf, or of lay's data, in mode; mark names an
// eager one for Cancel (PostSend).
func (e *Engine) isend(r *Request, cid uint32, dest, tag int, buf []byte, lay Layout, mode sendMode, mark uint32) *Request {
	sync, pooled := mode&sendSync != 0, mode&sendBlocking != 0
	now := mode&(sendWaitedSoon|sendBlocking) != 0
	r = e.request(r, kindSend, cid, dest, tag, buf, lay, pooled)
	r.sync, r.mark = sync, mark
	m := e.module(dest)
	if err := e.deadErr(dest); err != nil {
		e.complete(r, Status{Err: err})
		return r
	}
	size := len(buf)
	if lay != nil {
		size = lay.Size()
	}
	if size <= m.EagerLimit() && !sync {
		// The header goes in r's own buffer: the header pool's pinning cost
		// more than a request's 16 bytes.
		hb := encodeMatch(r.hdr[:], cid, mark, int32(tag))
		if mode&sendReady != 0 {
			hb[2] |= byte(flagReady)
		}
		if e.stalled.Load() != 0 && e.behind(stalled{r: r}) {
			return r
		}
		var err error
		if lay == nil {
			err = transmitIn(m, dest, hb, buf, !now)
		} else {
			err = e.transmitPart(m, r, hb, 0, size, !now)
		}
		if err == btl.ErrFull {
			e.stallSend(stalled{r: r})
			return r
		}
		r.finishNew(Status{Err: err}, !now && err == nil) // nobody waits on r before we return it
		return r
	}
	e.mu.Lock()
	if err := e.dead[dest]; err != nil { // it may have died since deadErr
		e.mu.Unlock()
		e.complete(r, Status{Err: err})
		return r
	}
	e.nextID++
	r.id = e.nextID
	e.sends[r.id] = r // before the RTS: the CTS may come back at once
	e.mu.Unlock()
	h := header{typ: typeRTS, context: cid, source: int32(e.me), tag: int32(tag), size: uint64(size), sreq: r.id}
	if sync {
		h.flags |= flagSync
	}
	if mode&sendReady != 0 {
		h.flags |= flagReady
	}
	if sc, ok := m.(btl.SingleCopier); ok {
		// The module chooses the way of a lone blocking send only: the
		// receiver of any other reads it, since its sender may compute
		// meanwhile (Isend) or both CPUs copy (exchanges, a collective's
		// sends waited on together: a 2-rank bcast of 1 MiB 30-35 us read,
		// 66-69 as timed).
		bc, ok := m.(btl.BlockingCopier)
		chosen := ok && mode&sendBlocking != 0 && mode&sendExchange == 0
		if least := sc.SingleCopyMin(dest); least > 0 && size >= least {
			if !chosen || bc.SingleCopyBlocking(dest, size) {
				e.expose(sc, r, &h)
			} else if lay == nil {
				// A stream the module chose: the receiver times it from here
				// (BlockingCopier.Took). Not a layout's, whose packing and
				// unpacking would make the ring seem slower than it is.
				h.sent = time.Now().UnixNano()
			}
		}
	}
	if h.flags&flagGet == 0 {
		// The first fragment goes with the RTS, as Open MPI's ob1 does: it
		// moves while the CTS comes back. The CTS then asks for the rest.
		r.first = min(size, streamChunk(m, size, min(m.EagerLimit(), maxSendSize(m, dest))))
	}
	if e.stalled.Load() != 0 && e.behind(stalled{r: r, rts: true, h: h}) {
		return r
	}
	// A send nobody waits on yet posts its RTS, which may stall. It counts
	// among the pollers while it writes, and runs their queue after: the
	// CTSs of earlier sends that a reader delivers meanwhile go from here,
	// not from a goroutine each (afterPoll).
	e.pollers.Add(1)
	err := e.sendPart(m, r, h, 0, r.first, !now)
	e.pollers.Add(-1)
	switch {
	case err == btl.ErrFull:
		e.stallSend(stalled{r: r, rts: true, h: h})
	case err != nil:
		if s := e.takeSend(r.id); s != nil { // else the peer's failure completed it
			e.complete(s, Status{Err: err})
		}
	case !now:
		r.held = 1 // its Wait flushes what the module may hold back
	}
	e.afterPoll()
	return r
}
