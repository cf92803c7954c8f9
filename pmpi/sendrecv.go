package pmpi

import (
	"errors"
	"sync/atomic"

	"github.com/gompi/gompi/internal/pml"
)

// maxPooledReplace bounds the temporary buffers of the replace calls that
// the library keeps for the next call.
const maxPooledReplace = 1 << 20

// SendrecvReplace sends count elements of dt from buf to dest and
// receives a message from source into the same buf: the outgoing
// message is copied to a pooled temporary buffer first.
func (*realAPI) SendrecvReplace(buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (Status, error) {
	if dest != ProcNull && source != ProcNull && isPredefined(dt) {
		return sendrecvReplacePlain(buf, count, dt, dest, sendtag, source, recvtag, comm)
	}
	r, err := isendrecvReplace("sendrecv replace", buf, count, dt, dest, sendtag, source, recvtag, comm)
	if err != nil {
		return Status{Err: err}, err
	}
	return theAPI.Wait(r)
}

// isPredefined reports whether dt is a predefined type; an invalid one is
// not, and goes the general way, whose checks name it.
func isPredefined(dt Datatype) bool { return dt.t != nil && !dt.t.derived }

// sendrecvPlain is Sendrecv between two ranks with predefined datatypes,
// through exchange; its errors name the irecv and isend that the general
// way starts, as they did.
func sendrecvPlain(sendbuf []byte, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype Datatype, source, recvtag int, comm *Comm) (Status, error) {
	l, rdata, err := p2pArgs("irecv", recvbuf, recvcount, recvtype, source, recvtag, comm, true)
	if err != nil {
		return Status{Err: err}, err
	}
	_, sdata, err := p2pArgs("isend", sendbuf, sendcount, sendtype, dest, sendtag, comm, false)
	if err != nil {
		return Status{Err: err}, err
	}
	return exchange(l, sdata, dest, sendtag, rdata, recvtype, source, recvtag, comm)
}

// sendrecvReplacePlain is SendrecvReplace between two ranks with a
// predefined datatype: the outgoing message is copied to a pooled buffer,
// then exchanged.
func sendrecvReplacePlain(buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (Status, error) {
	l, data, err := replaceArgs("sendrecv replace", buf, count, dt, dest, sendtag, source, recvtag, comm)
	if err != nil {
		return Status{Err: err}, err
	}
	tmp := l.replaceBuf(len(data))
	copy(*tmp, data)
	st, err := exchange(l, *tmp, dest, sendtag, data, dt, source, recvtag, comm)
	l.putReplace(tmp)
	return st, err
}

// exchange sends sdata to dest and receives into rdata from source: the
// receive posted in the engine, a blocking send, then the wait, with no
// request of pmpi's, whose life took a fifth of a 2-rank exchange of empty
// messages over sm. As with requests, the receive is posted before the
// send starts, so that a ring of exchanges cannot deadlock.
func exchange(l *library, sdata []byte, dest, sendtag int, rdata []byte, recvtype Datatype, source, recvtag int, comm *Comm) (s Status, err error) {
	r := l.engine.PostRecv(comm.context, worldSource(comm, source), recvtag, rdata)
	if err := l.engine.SendInExchange(comm.context, comm.group[dest], sendtag, sdata); err != nil {
		_, _ = l.engine.Cancel(r)
		l.engine.WaitRef(r)
		l.engine.Release(r)
		sr := Request{comm: comm, op: "isend", peer: dest, tag: sendtag}
		err = comm.handle(failure(sr.desc(), err))
		return Status{Err: err}, err
	}
	st := *l.engine.WaitRef(r)
	l.engine.Release(r)
	if st.Err == nil && !st.Truncated() {
		statusInto(&s, comm, &st, recvtype)
		return s, nil
	}
	return recvFailed(comm, recvtype, source, recvtag, st)
}

// Isendrecv starts Sendrecv: the request completes when both the send and
// the receive have; its status is the receive's.
func (*realAPI) Isendrecv(sendbuf []byte, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype Datatype, source, recvtag int, comm *Comm) (*Request, error) {
	const op = "isendrecv"
	l, sdata, err := p2pArgs(op, sendbuf, sendcount, sendtype, dest, sendtag, comm, false)
	if err != nil {
		return nil, err
	}
	if _, err := checkArgs(op, comm, recvbuf, recvcount, recvtype, source, recvtag, true); err != nil {
		return nil, comm.handle(err)
	}
	return l.startPair(op, sdata, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, nil)
}

// IsendrecvReplace starts SendrecvReplace.
func (*realAPI) IsendrecvReplace(buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (*Request, error) {
	return isendrecvReplace("isendrecv replace", buf, count, dt, dest, sendtag, source, recvtag, comm)
}

func isendrecvReplace(op string, buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (*Request, error) {
	l, data, err := replaceArgs(op, buf, count, dt, dest, sendtag, source, recvtag, comm)
	if err != nil {
		return nil, err
	}
	tmp := l.replaceBuf(len(data))
	copy(*tmp, data)
	return l.startPair(op, *tmp, count, dt, dest, sendtag, buf, count, dt, source, recvtag, comm, tmp)
}

// replaceArgs checks a replace call's arguments, for its send and its
// receive, and returns the data of buf that goes out.
func replaceArgs(op string, buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (*library, []byte, error) {
	l, data, err := p2pArgs(op, buf, count, dt, dest, sendtag, comm, false)
	if err != nil {
		return nil, nil, err
	}
	if _, err := checkArgs(op, comm, buf, count, dt, source, recvtag, true); err != nil {
		return nil, nil, comm.handle(err)
	}
	return l, data, nil
}

// replaceBuf returns a buffer of n bytes from the library's pool.
func (l *library) replaceBuf(n int) *[]byte {
	p, _ := l.replaceBufs.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return p
}

// startPair starts the receive, then the send, of a pair: the receive
// first so that a message to this rank itself finds it posted. tmp, if
// not nil, is the pooled buffer that sdata lies in.
func (l *library) startPair(op string, sdata []byte, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype Datatype, source, recvtag int, comm *Comm, tmp *[]byte) (*Request, error) {
	rr, err := theAPI.Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm)
	if err != nil {
		l.putReplace(tmp)
		return nil, err
	}
	sr, err := theAPI.Isend(sdata, sendcount, sendtype, dest, sendtag, comm)
	if err != nil {
		_ = theAPI.Cancel(rr)
		_, _ = theAPI.Wait(rr)
		l.putReplace(tmp)
		return nil, err
	}
	r := l.newRequest(comm, recvtype, op, source, recvtag, true)
	if r.ext == nil {
		r.ext = &requestExt{}
	}
	r.kind = reqPair
	x := r.ext
	x.send, x.sendGen, x.recv, x.recvGen, x.tmp = sr, atomic.LoadUint32(&sr.gen), rr, atomic.LoadUint32(&rr.gen), tmp
	return r, nil
}

func (l *library) putReplace(tmp *[]byte) {
	if tmp != nil && cap(*tmp) <= maxPooledReplace {
		l.replaceBufs.Put(tmp)
	}
}

// pairPending returns the engine request of the first of r's halves that
// has not completed, or nil.
func (r *Request) pairPending() *pml.Request {
	x := r.ext
	for _, h := range [2]*Request{x.recv, x.send} {
		if h != nil && h.pml != nil && !h.pml.Done() {
			return h.pml
		}
	}
	return nil
}

// settlePair waits for both halves of r, recycles them, and returns the
// receive's status and the first error.
func (r *Request) settlePair(dst *Status) error {
	x := r.ext
	rerr := waitGen(x.recv, x.recvGen, dst)
	var sst Status
	serr := waitGen(x.send, x.sendGen, &sst)
	x.send, x.recv = nil, nil
	r.lib.putReplace(x.tmp)
	x.tmp = nil
	if rerr != nil {
		return rerr
	}
	return serr
}

// waitGen is waitInto for h, started in generation g, unless some other
// completion recycled it since.
func waitGen(h *Request, g uint32, dst *Status) error {
	if h == nil || atomic.LoadUint32(&h.gen) != g {
		*dst = EmptyStatus()
		return nil
	}
	return waitInto(h, dst)
}

// waitPairQuietly completes a freed pair's halves, dropping their
// statuses and errors.
func (r *Request) waitPairQuietly() {
	x := r.ext
	for _, h := range [2]struct {
		r *Request
		g uint32
	}{{x.recv, x.recvGen}, {x.send, x.sendGen}} {
		if h.r == nil || atomic.LoadUint32(&h.r.gen) != h.g {
			continue
		}
		switch {
		case h.r.pml != nil:
			r.lib.engine.WaitRef(h.r.pml)
		case h.r.posted:
			r.lib.engine.Flush(h.r.comm.group[h.r.peer])
		}
		h.r.recycle(h.g)
	}
	x.send, x.recv = nil, nil
	r.lib.putReplace(x.tmp)
	x.tmp = nil
}

// cancelPair cancels both halves of a pair that are still active.
func (r *Request) cancelPair() error {
	x := r.ext
	var errs []error
	if x.recv != nil && atomic.LoadUint32(&x.recv.gen) == x.recvGen {
		errs = append(errs, theAPI.Cancel(x.recv))
	}
	if x.send != nil && atomic.LoadUint32(&x.send.gen) == x.sendGen {
		errs = append(errs, theAPI.Cancel(x.send))
	}
	return errors.Join(errs...)
}

// pairStatus is the status of a pair whose halves have completed, for
// GetStatus: the receive's, with the first error.
func (r *Request) pairStatus() (Status, error) {
	x := r.ext
	var st, sst Status
	rerr := r.halfStatus(x.recv, &st)
	serr := r.halfStatus(x.send, &sst)
	if rerr != nil {
		return st, rerr
	}
	return st, serr
}

func (r *Request) halfStatus(h *Request, dst *Status) error {
	switch {
	case h.pml != nil:
		return h.resultInto(dst, r.lib.engine.WaitRef(h.pml))
	case h.peer == ProcNull:
		*dst = nullStatus()
	default:
		*dst = Status{}
	}
	return nil
}
