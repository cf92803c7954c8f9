package pmpi

import (
	"sync"

	"github.com/gompi/gompi/internal/pml"
)

// Communication with derived datatypes. A contiguous one moves as the
// predefined types do, and so does one whose elements' data is one block
// away from the origin (see typeDesc.direct). Point-to-point hands any
// other non-contiguous one to the engine as a pml.Layout, which packs it
// fragment by fragment as it leaves and unpacks each fragment as it
// arrives; collectives pack it whole into a pooled buffer.

// derivedArgs is checkArgs for a derived (or invalid) datatype: the type
// must be committed and not freed, and count elements must lie inside
// buf. It returns the part of buf they occupy when the type is
// contiguous, and all of buf otherwise, for packing. where names the call
// for errors: "recv on comm world".
func derivedArgs(where string, buf []byte, count int, dt Datatype) ([]byte, error) {
	t, err := usable(where, dt)
	if err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, errorf(ClassCount, nil, "%s: count %d is negative", where, count)
	}
	if err := t.span(where, len(buf), count); err != nil {
		return nil, err
	}
	if !t.packs {
		return buf[:count*t.size], nil
	}
	return buf, nil
}

// derivedOK is derivedArgs without its errors, for the calls' fast
// path: the part of buf the elements occupy (all of it for a type that
// packs), and false if any check fails, when the caller formats the
// error with derivedArgs. It builds no string: naming the call on every
// one cost more than the rest of a small message's checks.
func derivedOK(buf []byte, count int, dt Datatype) ([]byte, bool) {
	t := dt.t
	if !ready(t) || count < 0 || !t.fits(len(buf), count) {
		return nil, false
	}
	if !t.packs {
		return buf[:count*t.size], true
	}
	return buf, true
}

// conversion is a request's packed copy of a non-contiguous buffer: the
// data a send posted, or the buffer a receive fills, with the user's
// buffer it unpacks into; or, direct, the user's own block; or, streamed,
// no copy at all: the engine packs and unpacks the user's buffer through
// it (pml.Layout).
type conversion struct {
	packed *[]byte
	user   []byte
	count  int
	t      *typeDesc
	// direct is set when packed is the user's own data, one contiguous
	// block (see typeDesc.direct): nothing is copied either way.
	direct   bool
	streamed bool
	data     []byte // the user's block, when direct
	// bc and bd, when set, are the blocks a v-form collective receives
	// (bc[i] bytes at bd[i] of packed): only they are unpacked.
	bc, bd []int
}

// Size, Pack and Unpack make a streamed conversion a pml.Layout.
func (c *conversion) Size() int                  { return c.count * c.t.size }
func (c *conversion) Pack(dst []byte, off int)   { c.t.copySpan(dst, c.user, c.count, off, true) }
func (c *conversion) Unpack(src []byte, off int) { c.t.copySpan(src, c.user, c.count, off, false) }

// streamFor prepares count elements of t in buf for the engine: the bytes
// they occupy when they are one block, or else a pooled conversion that
// the engine packs from or unpacks into as the fragments go.
func streamFor(t *typeDesc, buf []byte, count int) ([]byte, *conversion) {
	if data, ok := t.direct(buf, count); ok {
		return data, nil
	}
	c := conversions.Get().(*conversion)
	c.user, c.t, c.count, c.streamed = buf, t, count, true
	return nil, c
}

var conversions = sync.Pool{New: func() any { return new(conversion) }}

// packFor packs count elements of t from buf into a pooled conversion.
func packFor(t *typeDesc, buf []byte, count int) *conversion {
	c := conversions.Get().(*conversion)
	c.t, c.count = t, count
	if data, ok := t.direct(buf, count); ok {
		c.data, c.direct = data, true
		c.packed = &c.data
		return c
	}
	c.packed = getPacked(count * t.size)
	t.pack(*c.packed, buf, count)
	return c
}

// unpack copies the n bytes received into the user's buffer, where they
// already are if the conversion is direct.
func (c *conversion) unpack(n int) {
	if !c.direct && !c.streamed {
		c.t.unpack(c.user, (*c.packed)[:n], c.count)
	}
}

// unpackBlocks is unpack for a buffer that received only its blocks: the
// elements between them keep what they hold, though their bytes may
// share an extent with a received element's (a resized type's, such as
// the columns of a grid gathered by Gatherv), which packing them back
// would overwrite with what was there before the call.
func (c *conversion) unpackBlocks() {
	if c.direct || c.streamed {
		return
	}
	for i, n := range c.bc {
		if n > 0 {
			c.t.copySpan((*c.packed)[c.bd[i]:c.bd[i]+n], c.user, c.count, c.bd[i], false)
		}
	}
}

// releaseConv gives r's packed copy back.
func (r *Request) releaseConv() {
	r.conv.release()
	r.conv = nil
}

func (c *conversion) release() {
	if c.packed != nil && !c.direct {
		putPacked(c.packed)
	}
	*c = conversion{}
	conversions.Put(c)
}

// sendPacked is send for a non-contiguous datatype, Rsend's when ready
// is set.
func sendPacked(op string, l *library, buf []byte, count int, dt Datatype, dest, tag int, comm *Comm, sync, ready bool) error {
	data, c := streamFor(dt.t, buf, count)
	var err error
	switch w := comm.group[dest]; {
	case c != nil:
		err = l.engine.SendLayout(comm.context, w, tag, c, sync, ready)
		c.release()
	case ready:
		err = l.engine.SendReady(comm.context, w, tag, data)
	default:
		err = l.engine.Send(comm.context, w, tag, data, sync)
	}
	if err != nil {
		r := Request{comm: comm, op: op, peer: dest, tag: tag}
		return comm.handle(failure(r.desc(), err))
	}
	return nil
}

// recvDerived is Recv for a derived datatype: where the elements lie if
// the type is contiguous or its data one block, else through a layout the
// engine unpacks fragments into; with the signature checked. As Recv, it
// makes no Request unless the receive failed: zeroing one cost a tenth of
// a hop.
func recvDerived(l *library, buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (Status, error) {
	var st pml.Status
	data, c := buf, (*conversion)(nil)
	if dt.t.packs {
		data, c = streamFor(dt.t, buf, count)
	}
	if c != nil {
		l.engine.RecvLayout(comm.context, worldSource(comm, source), tag, c, &st)
		c.release()
	} else {
		l.engine.Recv(comm.context, worldSource(comm, source), tag, data, &st)
	}
	if st.Err == nil && !st.Truncated() && dt.t.elements(st.Bytes) != Undefined {
		var s Status
		statusInto(&s, comm, &st, dt)
		return s, nil
	}
	r := Request{comm: comm, dt: dt, op: "recv", peer: source, tag: tag, recv: true}
	return r.settled(st)
}

// settled is a blocking receive's result: its status and error, with the
// signature of a derived datatype checked.
func (r *Request) settled(st pml.Status) (Status, error) {
	if st.Err != nil || st.Truncated() {
		return r.failed(st)
	}
	var s Status
	statusInto(&s, r.comm, &st, r.dt)
	if r.dt.t.derived {
		return s, r.checkSignature(&s, &st)
	}
	return s, nil
}

// finishConv ends r's packed copy as the engine completes r: a receive
// unpacks what arrived (a truncated message fills what it reaches), and
// the copy goes back to the pool.
func (r *Request) finishConv(st *pml.Status) {
	r.conv.finish(r.recv, st.Bytes)
	r.conv = nil
}

// finish ends c's operation: a receive's n bytes are unpacked, and c goes
// back to the pool.
func (c *conversion) finish(recv bool, n int) {
	if recv {
		c.unpack(n)
	}
	c.release()
}

// received finishes a receive with a derived datatype that the engine
// completed without error: its signature is checked.
func (r *Request) received(dst *Status, st *pml.Status) error {
	return r.checkSignature(dst, st)
}

// checkSignature fails a receive whose bytes end inside a basic element
// of its datatype: the sender's type map cannot match the receiver's.
func (r *Request) checkSignature(dst *Status, st *pml.Status) error {
	t := r.dt.t
	if t.elements(st.Bytes) != Undefined {
		return nil
	}
	err := errorf(ClassType, nil, "%s: a message of %d bytes does not end on a basic element of the receive's datatype %s: the sender's datatype does not match it",
		r.desc(), st.Bytes, t.describe())
	dst.Err = err
	return r.comm.handle(err)
}

// GetElements returns how many basic elements (predefined types) of dt
// the message holds, Undefined if it ends inside one (MPI_Get_elements):
// for a derived type whose count is Undefined, how far a partial element
// got.
func (s Status) GetElements(dt Datatype) int { return dt.Elements(s.bytes) }
