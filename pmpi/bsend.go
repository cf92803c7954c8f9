package pmpi

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/internal/pml"
)

// BsendOverhead is the bytes of an attached buffer that each buffered
// message takes beyond its own, MPI_BSEND_OVERHEAD: a buffer for n
// messages of s bytes at once needs n*(s+BsendOverhead) bytes. gompi
// keeps its bookkeeping outside the buffer; the overhead is counted so
// that a program sized for another MPI's accounting fits here too.
const BsendOverhead = 64

// BufferAutomatic, attached with BufferAttach or CommAttachBuffer, lets
// the library find room for each buffered message itself (MPI 4.1's
// MPI_BUFFER_AUTOMATIC): buffered sends then never fail for want of room.
// Detaching such a buffer returns BufferAutomatic. Only this slice means
// it: an empty slice of one's own is an error.
var BufferAutomatic = make([]byte, 0, 1)

// isAutomatic reports whether buf is BufferAutomatic.
func isAutomatic(buf []byte) bool {
	return cap(buf) == cap(BufferAutomatic) && len(buf) == 0 && unsafe.SliceData(buf) == unsafe.SliceData(BufferAutomatic)
}

// bsendBuffers are the buffers attached for buffered sends: the
// process's, communicators' (MPI 4.1), which their sends use first, and
// scopes', which the sends of a scope's communicators use next.
type bsendBuffers struct {
	mu     sync.Mutex
	proc   *bsendBuffer
	comms  map[*Comm]*bsendBuffer
	scopes map[*BufferScope]*bsendBuffer
}

// bsendBuffer is one attached buffer and the messages that occupy it.
type bsendBuffer struct {
	mu      sync.Mutex
	done    sync.Cond // on mu: a message left, or the reaper stopped
	buf     []byte
	segs    []*bsendSeg // by offset
	spare   []*bsendSeg
	used    int          // bytes held, overheads included
	reaping bool         // a goroutine waits for the pending messages
	waiting *pml.Request // the one it waits on now: not to be reaped under it
	// auto: the buffer is BufferAutomatic; each message has room of its
	// own, from the packed-buffer pool.
	auto bool
}

// bsendSeg is one buffered message: its place in the buffer (off, and n
// bytes with the overhead) and its send.
type bsendSeg struct {
	off, n int
	req    pml.Request
	pr     *pml.Request
	own    *[]byte // its room in an automatic buffer
}

func newBsendBuffer(buf []byte) *bsendBuffer {
	b := &bsendBuffer{buf: buf, auto: isAutomatic(buf)}
	b.done.L = &b.mu
	return b
}

// BufferAttach attaches buf for the process's buffered sends (MPI's
// Buffer_attach); the sends copy their messages into it until
// BufferDetach. One buffer at a time.
func (*realAPI) BufferAttach(buf []byte) error {
	l, err := running("buffer attach")
	if err != nil {
		return err
	}
	return l.bsends.attach("buffer attach", owner{}, buf)
}

// BufferDetach waits until every message in the process's buffer has
// gone, detaches the buffer and returns it.
func (*realAPI) BufferDetach() ([]byte, error) {
	l, err := running("buffer detach")
	if err != nil {
		return nil, err
	}
	return l.bsends.detach("buffer detach", owner{}, l.engine)
}

// BufferFlush waits until every message in the process's buffer has
// gone; the buffer stays attached.
func (*realAPI) BufferFlush() error {
	l, err := running("buffer flush")
	if err != nil {
		return err
	}
	l.bsends.flush(owner{}, l.engine)
	return nil
}

// BufferIflush starts BufferFlush: the request completes once every
// message in the process's buffer has gone (at once if none is
// attached, as BufferFlush returns at once).
func (*realAPI) BufferIflush() (*Request, error) {
	l, err := running("buffer iflush")
	if err != nil {
		return nil, err
	}
	return l.iflush("buffer iflush", l.bsends.of(owner{}), l.world), nil
}

// CommBufferIflush starts CommBufferFlush.
func (*realAPI) CommBufferIflush(comm *Comm) (*Request, error) {
	const op = "comm buffer iflush"
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	return l.iflush(op, l.bsends.of(owner{comm: comm}), comm), nil
}

// iflush returns a request that completes once b, if not nil, has no
// message left. A goroutine waits for them, as BufferFlush would, and
// completes the request: the engine's own completion, so that every
// call that waits on requests waits on it too.
func (l *library) iflush(op string, b *bsendBuffer, comm *Comm) *Request {
	r := l.newRequest(comm, Byte, op, ProcNull, AnyTag, false)
	r.pml = l.engine.StartGeneral(&r.pmlStore)
	if b != nil {
		b.mu.Lock()
		busy := len(b.segs) > 0 || b.reaping
		b.mu.Unlock()
		if busy {
			go func(p *pml.Request) {
				b.drain(l.engine)
				l.engine.CompleteGeneral(p, pml.Status{})
			}(r.pml)
			return r
		}
	}
	l.engine.CompleteGeneral(r.pml, pml.Status{})
	return r
}

// CommAttachBuffer attaches buf for the buffered sends on comm, which use
// it instead of the process's buffer (MPI 4.1's Comm_attach_buffer).
func (*realAPI) CommAttachBuffer(comm *Comm, buf []byte) error {
	const op = "comm attach buffer"
	l, err := collArgs(op, comm)
	if err != nil {
		return err
	}
	return comm.handle(l.bsends.attach(op, owner{comm: comm}, buf))
}

// CommDetachBuffer waits until every message in comm's buffer has gone,
// detaches it and returns it.
func (*realAPI) CommDetachBuffer(comm *Comm) ([]byte, error) {
	const op = "comm detach buffer"
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	buf, err := l.bsends.detach(op, owner{comm: comm}, l.engine)
	return buf, comm.handle(err)
}

// CommBufferFlush waits until every message in comm's buffer has gone.
func (*realAPI) CommBufferFlush(comm *Comm) error {
	const op = "comm buffer flush"
	l, err := collArgs(op, comm)
	if err != nil {
		return err
	}
	l.bsends.flush(owner{comm: comm}, l.engine)
	return nil
}

// Bsend sends in buffered mode: the message is copied into the attached
// buffer (comm's, else the process's) and the call returns; the copy is
// sent from there, and its room freed when it has gone. Too little room
// is an ErrBuffer error.
func (*realAPI) Bsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error {
	l, data, err := p2pArgs("bsend", buf, count, dt, dest, tag, comm, false)
	if err != nil || dest == ProcNull {
		return err
	}
	return l.bsend("bsend", data, count, dt, dest, tag, comm)
}

// Ibsend is Bsend returning a request, which is complete at once: the
// message is in the attached buffer.
func (*realAPI) Ibsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	l, data, err := p2pArgs("ibsend", buf, count, dt, dest, tag, comm, false)
	if err != nil {
		return nil, err
	}
	if dest != ProcNull {
		if err := l.bsend("ibsend", data, count, dt, dest, tag, comm); err != nil {
			return nil, err
		}
	}
	return l.newRequest(comm, dt, "ibsend", dest, tag, false), nil
}

// bsend copies count elements of dt from data into the buffer that comm's
// buffered sends use, packed if dt is not contiguous, and starts their
// send from there.
func (l *library) bsend(op string, data []byte, count int, dt Datatype, dest, tag int, comm *Comm) error {
	b := l.bsends.forSend(comm)
	if b == nil {
		return comm.handle(errorf(ClassBuffer, nil,
			"%s to rank %d of %v, tag %d: no buffer is attached (BufferAttach, or CommAttachBuffer for the communicator)", op, dest, comm, tag))
	}
	size := len(data)
	if dt.t.packs {
		size = count * dt.t.size
	}
	need := size + BsendOverhead
	b.mu.Lock()
	s := b.alloc(l.engine, need)
	if s == nil {
		free := len(b.buf) - b.used
		b.mu.Unlock()
		return comm.handle(errorf(ClassBuffer, nil,
			"%s to rank %d of %v, tag %d: a message of %d bytes needs %d bytes of the attached buffer (with BsendOverhead %d); %d of its %d bytes are free",
			op, dest, comm, tag, size, need, BsendOverhead, free, len(b.buf)))
	}
	var msg []byte
	if b.auto {
		s.own = getPacked(size)
		msg = *s.own
	} else {
		msg = b.buf[s.off : s.off+size]
	}
	if dt.t.packs {
		dt.t.pack(msg, data, count)
	} else {
		copy(msg, data)
	}
	// Posted, not started: a buffered send is local, and one that finds the
	// peer's transport full stalls rather than waits (the reaper sends it).
	s.pr = l.engine.PostSend(&s.req, comm.context, comm.group[dest], tag, msg, false, 0)
	if s.pr.Done() {
		// The transport took it whole: an eager message.
		err := l.engine.WaitRef(s.pr).Err
		b.release(s)
		b.mu.Unlock()
		if err != nil {
			return comm.handle(failure(fmt.Sprintf("%s to rank %d of %v, tag %d", op, dest, comm, tag), err))
		}
		return nil
	}
	if !b.reaping {
		b.reaping = true
		go b.reap(l.engine)
	}
	b.mu.Unlock()
	return nil
}

// alloc finds room for need bytes, first fit by offset, after freeing
// what has gone; with none, it polls the transports once and looks
// again. Called with b.mu held.
func (b *bsendBuffer) alloc(e *pml.Engine, need int) *bsendSeg {
	if b.auto {
		b.reapDone(e)
		s := b.newSeg(0, need)
		b.segs = append(b.segs, s)
		b.used += need
		return s
	}
	for try := range 2 {
		if try > 0 {
			b.mu.Unlock()
			e.Progress()
			b.mu.Lock()
		}
		b.reapDone(e)
		end, at := 0, len(b.segs)
		for i, s := range b.segs {
			if s.off-end >= need {
				at = i
				break
			}
			end = s.off + s.n
		}
		if at == len(b.segs) && len(b.buf)-end < need {
			continue
		}
		s := b.newSeg(end, need)
		b.segs = append(b.segs, nil)
		copy(b.segs[at+1:], b.segs[at:])
		b.segs[at] = s
		b.used += need
		return s
	}
	return nil
}

func (b *bsendBuffer) newSeg(off, n int) *bsendSeg {
	var s *bsendSeg
	if k := len(b.spare); k > 0 {
		s, b.spare = b.spare[k-1], b.spare[:k-1]
	} else {
		s = new(bsendSeg)
	}
	s.off, s.n = off, n
	return s
}

// release frees s's room; called with b.mu held, once its send is settled.
func (b *bsendBuffer) release(s *bsendSeg) {
	for i, t := range b.segs {
		if t == s {
			b.segs = append(b.segs[:i], b.segs[i+1:]...)
			break
		}
	}
	b.used -= s.n
	if s.own != nil {
		putPacked(s.own)
	}
	s.req, s.pr, s.own = pml.Request{}, nil, nil
	b.spare = append(b.spare, s)
	b.done.Broadcast()
}

// reapDone frees the messages that have gone, but the one the reaper
// waits on. Called with b.mu held.
func (b *bsendBuffer) reapDone(e *pml.Engine) {
	for i := 0; i < len(b.segs); {
		s := b.segs[i]
		if s.pr == b.waiting || !s.pr.Done() {
			i++
			continue
		}
		e.WaitRef(s.pr) // done: returns at once, once the completer is finished with it
		b.release(s)
	}
}

// reap waits for the buffer's messages until none is pending, so that
// they go even if the program makes no MPI call until it detaches the
// buffer or finalizes. It drives the transports itself while it waits.
func (b *bsendBuffer) reap(e *pml.Engine) {
	b.mu.Lock()
	for {
		b.reapDone(e)
		if len(b.segs) == 0 {
			break
		}
		s := b.segs[0]
		b.waiting = s.pr
		b.mu.Unlock()
		e.WaitRef(s.pr)
		b.mu.Lock()
		b.waiting = nil
	}
	b.reaping = false
	b.done.Broadcast()
	b.mu.Unlock()
}

// drain waits until every message in b has gone.
func (b *bsendBuffer) drain(e *pml.Engine) {
	b.mu.Lock()
	for len(b.segs) > 0 || b.reaping {
		if !b.reaping && len(b.segs) > 0 {
			b.reaping = true
			go b.reap(e)
		}
		b.done.Wait()
	}
	b.mu.Unlock()
}

// owner is whose buffer: the process's (both nil), a communicator's or a
// scope's.
type owner struct {
	comm  *Comm
	scope *BufferScope
}

func (o owner) String() string {
	switch {
	case o.comm != nil:
		return o.comm.String()
	case o.scope != nil:
		return o.scope.String()
	}
	return "the process"
}

// detacher is the call that detaches o's buffer, for the errors to name.
func (o owner) detacher() string {
	switch {
	case o.comm != nil:
		return "CommDetachBuffer"
	case o.scope != nil:
		return "the session's detach"
	}
	return "BufferDetach"
}

// lookup is o's buffer or nil; called with bs.mu held.
func (bs *bsendBuffers) lookup(o owner) *bsendBuffer {
	switch {
	case o.comm != nil:
		return bs.comms[o.comm]
	case o.scope != nil:
		return bs.scopes[o.scope]
	}
	return bs.proc
}

// store makes b o's buffer, nil for none; called with bs.mu held.
func (bs *bsendBuffers) store(o owner, b *bsendBuffer) {
	switch {
	case o.comm != nil:
		storeIn(&bs.comms, o.comm, b)
	case o.scope != nil:
		storeIn(&bs.scopes, o.scope, b)
	default:
		bs.proc = b
	}
}

// storeIn sets or, for nil, deletes *m's entry k, making the map if need be.
func storeIn[K comparable](m *map[K]*bsendBuffer, k K, b *bsendBuffer) {
	switch {
	case b == nil:
		delete(*m, k)
	case *m == nil:
		*m = map[K]*bsendBuffer{k: b}
	default:
		(*m)[k] = b
	}
}

// forSend returns the buffer that comm's buffered sends use: comm's own,
// else its scope's, else the process's.
func (bs *bsendBuffers) forSend(comm *Comm) *bsendBuffer {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b := bs.comms[comm]; b != nil {
		return b
	}
	if b := bs.scopes[comm.scope]; b != nil {
		return b
	}
	return bs.proc
}

func (bs *bsendBuffers) attach(op string, o owner, buf []byte) error {
	if len(buf) == 0 && !isAutomatic(buf) {
		return errorf(ClassBuffer, nil, "%s: the buffer is empty; attach one of at least BsendOverhead (%d) bytes beyond the messages it is to hold, or BufferAutomatic", op, BsendOverhead)
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b := bs.lookup(o); b != nil {
		return errorf(ClassBuffer, nil, "%s: %v has a buffer of %d bytes attached already; detach it first (%s)", op, o, len(b.buf), o.detacher())
	}
	bs.store(o, newBsendBuffer(buf))
	return nil
}

// of is o's buffer or nil.
func (bs *bsendBuffers) of(o owner) *bsendBuffer {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.lookup(o)
}

// flush waits until every message in o's buffer, if any, has gone.
func (bs *bsendBuffers) flush(o owner, e *pml.Engine) {
	if b := bs.of(o); b != nil {
		b.drain(e)
	}
}

// take removes o's buffer and returns it, or nil.
func (bs *bsendBuffers) take(o owner) *bsendBuffer {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.lookup(o)
	bs.store(o, nil)
	return b
}

// detach takes o's buffer away from new sends, waits for its messages and
// returns it.
func (bs *bsendBuffers) detach(op string, o owner, e *pml.Engine) ([]byte, error) {
	b := bs.take(o)
	if b == nil {
		return nil, errorf(ClassBuffer, nil, "%s: %v has no buffer attached", op, o)
	}
	b.drain(e)
	return b.buf, nil
}

// drop detaches o's buffer, if it has one, once its messages have gone:
// CommFree detaches a communicator's as MPI does, a session's finalize
// its scope's.
func (bs *bsendBuffers) drop(o owner, e *pml.Engine) {
	if b := bs.take(o); b != nil {
		b.drain(e)
	}
}

// flushAll waits for the messages of every attached buffer (Finalize).
func (bs *bsendBuffers) flushAll(e *pml.Engine) {
	bs.mu.Lock()
	all := make([]*bsendBuffer, 0, len(bs.comms)+len(bs.scopes)+1)
	if bs.proc != nil {
		all = append(all, bs.proc)
	}
	for _, b := range bs.comms {
		all = append(all, b)
	}
	for _, b := range bs.scopes {
		all = append(all, b)
	}
	bs.mu.Unlock()
	for _, b := range all {
		b.drain(e)
	}
}
