package pmpi

import (
	"sync"

	"github.com/gompi/gompi/internal/pml"
)

// Communication with derived datatypes. A contiguous one moves as the
// predefined types do, and so does one whose elements' data is one block
// away from the origin (see typeDesc.direct); any other non-contiguous
// one is packed into a pooled buffer to send, and received into one that
// is unpacked into the user's buffer when the receive completes.

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
// buffer it unpacks into; or, direct, the user's own block.
type conversion struct {
	packed *[]byte
	user   []byte
	count  int
	t      *typeDesc
	// direct is set when packed is the user's own data, one contiguous
	// block (see typeDesc.direct): nothing is copied either way.
	direct bool
	data   []byte // the user's block, when direct
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

// recvFor gives a receive of count elements of t into buf a pooled
// buffer to receive into.
func recvFor(t *typeDesc, buf []byte, count int) *conversion {
	c := conversions.Get().(*conversion)
	c.user, c.t, c.count = buf, t, count
	if data, ok := t.direct(buf, count); ok {
		c.data, c.direct = data, true
		c.packed = &c.data
		return c
	}
	c.packed = getPacked(count * t.size)
	return c
}

// unpack copies the n bytes received into the user's buffer, where they
// already are if the conversion is direct.
func (c *conversion) unpack(n int) {
	if !c.direct {
		c.t.unpack(c.user, (*c.packed)[:n], c.count)
	}
}

// releaseConv gives r's packed copy back.
func (r *Request) releaseConv() {
	r.conv.release()
	r.conv = nil
}

func (c *conversion) release() {
	if !c.direct {
		putPacked(c.packed)
	}
	*c = conversion{}
	conversions.Put(c)
}

// sendPacked is send for a non-contiguous datatype.
func sendPacked(op string, l *library, buf []byte, count int, dt Datatype, dest, tag int, comm *Comm, sync bool) error {
	data, direct := dt.t.direct(buf, count)
	if !direct {
		c := packFor(dt.t, buf, count)
		defer c.release()
		data = *c.packed
	}
	if err := l.engine.Send(comm.context, comm.group[dest], tag, data, sync); err != nil {
		r := Request{comm: comm, op: op, peer: dest, tag: tag}
		return comm.handle(failure(r.desc(), err))
	}
	return nil
}

// recvDerived is Recv for a derived datatype: through a packed buffer
// if the type is not contiguous and its data not one block, and with the
// signature checked.
func recvDerived(l *library, buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (Status, error) {
	r := Request{comm: comm, dt: dt, op: "recv", peer: source, tag: tag, recv: true}
	st, _ := r.receiveInto(buf, count, func(data []byte, st *pml.Status) error {
		l.engine.Recv(comm.context, worldSource(comm, source), tag, data, st)
		return nil
	})
	return r.settled(st)
}

// receiveInto runs recv, a blocking receive of r's, into count elements
// of r.dt in buf: where they lie if the type is contiguous or its data
// one block, else through a packed copy, unpacked when recv returns.
// recv's own error (the receive did not happen) comes back as it is.
func (r *Request) receiveInto(buf []byte, count int, recv func([]byte, *pml.Status) error) (pml.Status, error) {
	var st pml.Status
	if !r.dt.t.packs {
		return st, recv(buf, &st)
	}
	if data, ok := r.dt.t.direct(buf, count); ok {
		return st, recv(data, &st)
	}
	c := recvFor(r.dt.t, buf, count)
	defer c.release()
	if err := recv(*c.packed, &st); err != nil {
		return st, err
	}
	c.unpack(st.Bytes)
	return st, nil
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
	if r.recv {
		r.conv.unpack(st.Bytes)
	}
	r.releaseConv()
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
