package pmpi

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"sync/atomic"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/internal/pml"
)

// Request is a pending non-blocking operation. As MPI frees a request at
// the Wait or Test that completes it, pmpi recycles it then: the pointer
// names the operation until that call returns, and later calls on it are
// as on MPI_REQUEST_NULL. Gen tells a reused request from the one it was.
// A persistent request (SendInit, RecvInit) is the exception: its
// completion makes it inactive, kept for the next Start, until Free.
type Request struct {
	// gen is odd while the request is active, even once recycled (or, for a
	// persistent one, inactive): bumped at start and at completion, so
	// that only one completion recycles it.
	// Atomic: sync/atomic's functions, and lowlevel.StoreRelease32 at start.
	gen uint32
	// pml is the engine's request, &pmlStore, while the operation runs;
	// nil for operations on ProcNull and for posted eager sends, complete
	// at once. Holding it here makes one cached object per call, not two.
	pml  *pml.Request
	lib  *library
	comm *Comm
	dt   Datatype
	op   string // "send", "isend", "issend", "bsend", "irsend", "isendrecv" ... or "recv"
	peer int    // as the caller gave it: a rank, AnySource or ProcNull
	tag  int
	recv bool
	// mark names the send's eager message to a Cancel (pml.PostSend): the
	// cache's count of the requests it handed out, unique among the
	// messages that may wait unmatched.
	mark uint32
	// posted is set for an eager send that the engine posted with no
	// request of its own (pml.PostEager): complete, with pml nil until a
	// Cancel asks the receiver to drop the message.
	posted bool
	// conv is the packed copy of a non-contiguous derived datatype's
	// buffer until the request completes; nil otherwise.
	conv *conversion
	// kind tells a persistent request, or one of Isendrecv's pairs, from
	// a plain one (0); ext holds their state.
	kind reqKind
	// freeing: Free was called while the request was active; its
	// completion ends it (a persistent request for good).
	freeing bool
	// pmlStore is next to last: what every call reads and writes above it
	// fits two cache lines, and an eager send that goes without it never
	// touches it.
	pmlStore pml.Request
	// ext is last, read only for the kinds that have it. It stays with the
	// request when it is recycled, so that its next such use allocates
	// nothing.
	ext *requestExt
}

// Gen counts the request's starts and completions, odd while it is
// active; with the pointer it names one operation. Tools that remember
// requests across a completing call key them on both, read before the
// call: the request may be started again by another goroutine as soon as
// it is recycled.
func (r *Request) Gen() uint32 { return atomic.LoadUint32(&r.gen) }

// newRequest takes a request from l's cache and starts it. Until it
// returns r, no other goroutine writes r.gen (a stale handle's completion
// finds it even and leaves it), so a release store makes it odd: an
// atomic add would wait for the stores above.
func (l *library) newRequest(comm *Comm, dt Datatype, op string, peer, tag int, recv bool) *Request {
	r := l.cache.get()
	r.lib, r.comm, r.dt, r.op, r.peer, r.tag, r.recv = l, comm, dt, op, peer, tag, recv
	lowlevel.StoreRelease32(&r.gen, atomic.LoadUint32(&r.gen)+1)
	return r
}

// recycle puts r, active in generation g and now completed, back in its
// library's cache, once (a persistent request becomes inactive instead):
// a second, erroneous completion of the same request finds the
// generation moved on and leaves it.
func (r *Request) recycle(g uint32) {
	if c := r.retire(g); c != nil {
		c.put(r)
	}
}

// retire ends r's generation g and clears r for reuse, unless another
// completion did so first; it returns the cache r goes back to, or nil.
func (r *Request) retire(g uint32) *requestCache {
	if !atomic.CompareAndSwapUint32(&r.gen, g, g+1) {
		return nil
	}
	c := &r.lib.cache
	if r.pml != nil {
		r.pmlStore = pml.Request{} // the engine is done with it: its Wait returned the settled status
	}
	if r.conv != nil {
		// Freed while active, or failed as it started: a completion that
		// returns a status has released it already.
		r.releaseConv()
	}
	if r.kind != reqPlain && r.endSpecial() {
		return nil // a persistent request: inactive, kept for the next Start
	}
	r.pml, r.lib, r.comm, r.dt, r.op, r.posted, r.freeing = nil, nil, nil, Datatype{}, "", false, false
	return c
}

// desc describes the operation for an error message: "recv from rank 3 of
// comm world, tag 7", a rank of the communicator (the layers below speak
// of world ranks, and say so). It is built only when needed: formatting
// on every call would cost more than sending a small message.
func (r *Request) desc() string {
	if r.collective() {
		return fmt.Sprintf("%s on %v", r.op, r.comm)
	}
	if r.recv {
		return fmt.Sprintf("recv from %s of %v, %s", rankDesc(r.peer), r.comm, tagDesc(r.tag))
	}
	return fmt.Sprintf("%s to %s of %v, tag %d", r.op, rankDesc(r.peer), r.comm, r.tag)
}

// Send sends count elements of dt from buf to rank dest of comm. It
// returns once buf may be reused.
func (*realAPI) Send(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error {
	return send("send", buf, count, dt, dest, tag, comm, false)
}

// Ssend is Send in synchronous mode: it also waits until the receiver has
// matched the message.
func (*realAPI) Ssend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error {
	return send("ssend", buf, count, dt, dest, tag, comm, true)
}

// send is a blocking send. It uses the engine's pooled requests: the hot
// path of a ping-pong allocates nothing.
func send(op string, buf []byte, count int, dt Datatype, dest, tag int, comm *Comm, sync bool) error {
	l, data, err := p2pArgs(op, buf, count, dt, dest, tag, comm, false)
	if err != nil || dest == ProcNull {
		return err
	}
	if dt.t.packs {
		return sendPacked(op, l, data, count, dt, dest, tag, comm, sync, false)
	}
	if err := l.engine.Send(comm.context, comm.group[dest], tag, data, sync); err != nil {
		r := Request{comm: comm, op: op, peer: dest, tag: tag}
		return comm.handle(failure(r.desc(), err))
	}
	return nil
}

// Isend starts a send; buf must not change until the request completes.
func (*realAPI) Isend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return isend("isend", buf, count, dt, dest, tag, comm, false)
}

// Issend starts a synchronous send.
func (*realAPI) Issend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return isend("issend", buf, count, dt, dest, tag, comm, true)
}

func isend(op string, buf []byte, count int, dt Datatype, dest, tag int, comm *Comm, sync bool) (*Request, error) {
	l, data, err := p2pArgs(op, buf, count, dt, dest, tag, comm, false)
	if err != nil {
		return nil, err
	}
	req := l.newRequest(comm, dt, op, dest, tag, false)
	if dest == ProcNull {
		return req, nil
	}
	if dt.t.packs {
		data, req.conv = streamFor(dt.t, data, count)
	}
	w := comm.group[dest]
	if req.conv != nil {
		req.pml = l.engine.PostSendLayout(&req.pmlStore, comm.context, w, tag, req.conv, sync, false, req.mark)
		return req, nil
	}
	if !sync {
		// An eager message that the transport takes whole at once needs no
		// engine request: the request completes as it starts. Open MPI's
		// ob1 returns its empty request then; gompi keeps one per send, whose
		// mark lets Cancel name the message.
		if sent, err := l.engine.PostEager(comm.context, w, tag, data, req.mark); sent {
			if err != nil {
				err = comm.handle(failure(req.desc(), err))
				req.recycle(atomic.LoadUint32(&req.gen))
				return nil, err
			}
			req.posted = true
			return req, nil
		}
	}
	req.pml = l.engine.PostSend(&req.pmlStore, comm.context, w, tag, data, sync, req.mark)
	return req, nil
}

// p2pArgs checks that MPI runs and validates a point-to-point call's
// arguments (a receive also accepts AnySource and AnyTag); it returns the
// part of buf that count elements occupy.
func p2pArgs(op string, buf []byte, count int, dt Datatype, peer, tag int, comm *Comm, recv bool) (*library, []byte, error) {
	l, err := running(op)
	if err != nil {
		return nil, nil, err
	}
	if err := checkComm(op, comm); err != nil {
		return nil, nil, err
	}
	data, err := checkArgs(op, comm, buf, count, dt, peer, tag, recv)
	if err != nil {
		return nil, nil, comm.handle(err)
	}
	return l, data, nil
}

// Recv receives up to count elements of dt into buf from rank source (or
// AnySource) of comm with tag (or AnyTag). A longer message fills buf and
// fails with ErrTruncate; nothing is written past count elements.
func (*realAPI) Recv(buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (s Status, err error) {
	l, data, err := p2pArgs("recv", buf, count, dt, source, tag, comm, true)
	if err != nil {
		return Status{Err: err}, err
	}
	if source == ProcNull {
		return nullStatus(), nil
	}
	if dt.t.derived {
		return recvDerived(l, data, count, dt, source, tag, comm)
	}
	var st pml.Status
	l.engine.Recv(comm.context, worldSource(comm, source), tag, data, &st)
	if st.Err == nil && !st.Truncated() {
		// Into the result, field by field (see statusInto), and without
		// the request below: zeroing it cost a tenth of a hop.
		statusInto(&s, comm, &st, dt)
		return s, nil
	}
	return recvFailed(comm, dt, source, tag, st)
}

// recvFailed is Recv's result for a status with an error or a truncation.
func recvFailed(comm *Comm, dt Datatype, source, tag int, st pml.Status) (Status, error) {
	r := Request{comm: comm, dt: dt, op: "recv", peer: source, tag: tag, recv: true}
	return r.failed(st)
}

// Irecv starts a receive; buf must not be read until the request completes.
func (*realAPI) Irecv(buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (*Request, error) {
	l, data, err := p2pArgs("recv", buf, count, dt, source, tag, comm, true)
	if err != nil {
		return nil, err
	}
	req := l.newRequest(comm, dt, "recv", source, tag, true)
	if source != ProcNull {
		if dt.t.packs {
			data, req.conv = streamFor(dt.t, data, count)
		}
		if req.conv != nil {
			req.pml = l.engine.StartRecvLayout(&req.pmlStore, comm.context, worldSource(comm, source), tag, req.conv)
		} else {
			req.pml = l.engine.StartRecv(&req.pmlStore, comm.context, worldSource(comm, source), tag, data)
		}
	}
	return req, nil
}

// worldSource translates a receive's source to the engine's world ranks.
func worldSource(comm *Comm, source int) int {
	if source == AnySource {
		return source
	}
	return comm.group[source]
}

// Sendrecv sends and receives at once, so that a ring of ranks that all
// send then receive cannot deadlock.
func (*realAPI) Sendrecv(sendbuf []byte, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype Datatype, source, recvtag int, comm *Comm) (Status, error) {
	if dest != ProcNull && source != ProcNull && isPredefined(sendtype) && isPredefined(recvtype) {
		return sendrecvPlain(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm)
	}
	rr, err := theAPI.Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm)
	if err != nil {
		return Status{Err: err}, err
	}
	sr, err := theAPI.Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm)
	if err != nil {
		_ = theAPI.Cancel(rr)
		_, _ = theAPI.Wait(rr)
		return Status{Err: err}, err
	}
	st, rerr := theAPI.Wait(rr)
	_, serr := theAPI.Wait(sr)
	if rerr != nil {
		return st, rerr
	}
	return st, serr
}

// Probe waits for a message that Recv with these arguments would receive
// and describes it without receiving it. Status.Count is Undefined, as
// a probe receives nothing and knows no datatype; Status.CountOf gives
// the message's length in any.
func (*realAPI) Probe(source, tag int, comm *Comm) (st Status, err error) {
	_, err = probe(&st, source, tag, comm, true)
	return st, err
}

// Iprobe is Probe without waiting: found is false when no such message
// has arrived.
func (*realAPI) Iprobe(source, tag int, comm *Comm) (st Status, found bool, err error) {
	found, err = probe(&st, source, tag, comm, false)
	return st, found, err
}

// probe writes into s, which it leaves zero unless it finds a message: a
// status returned through two calls was copied twice, the most of an
// empty Iprobe's time.
func probe(s *Status, source, tag int, comm *Comm, wait bool) (bool, error) {
	const op = "probe"
	l, err := probeArgs(op, source, tag, comm)
	if err != nil {
		return false, err
	}
	if source == ProcNull {
		*s = nullStatus()
		return true, nil
	}
	src := worldSource(comm, source)
	var (
		st    pml.Status
		found = true
	)
	if wait {
		st, err = l.engine.Probe(comm.context, src, tag)
	} else {
		l.poll()
		found, err = l.engine.Iprobe(comm.context, src, tag, &st)
	}
	if err != nil {
		return false, comm.handle(failure(fmt.Sprintf("probe from %s of %v, %s", rankDesc(source), comm, tagDesc(tag)), err))
	}
	if !found {
		l.engine.Idle()
		return false, nil
	}
	statusInto(s, comm, &st, Byte)
	s.Count = Undefined // received nothing, in no datatype: CountOf gives the length
	return true, nil
}

// probeArgs checks a probe's arguments, matched or not: MPI runs, the
// communicator is valid, and the source and tag may be received from.
func probeArgs(op string, source, tag int, comm *Comm) (*library, error) {
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	if comm.validPeer(source, true) && comm.validTag(tag, true) {
		return l, nil
	}
	return nil, comm.handle(errors.Join(comm.checkRank(op, source, true), comm.checkTag(op, tag, true)))
}

func checkComm(op string, comm *Comm) error {
	if comm == nil {
		return errorf(ClassComm, nil, "%s: the communicator is nil (use CommWorld or CommSelf after Init)", op)
	}
	if comm.freed.Load() {
		switch comm.idup.Load() {
		case idupPending:
			return errorf(ClassComm, nil, "%s: %v is the communicator of an Idup that has not completed (wait on its request first)", op, comm)
		case idupFailed:
			return errorf(ClassComm, nil, "%s: %v is the communicator of an Idup that failed (its request's error says why)", op, comm)
		}
		return errorf(ClassComm, nil, "%s: %v was freed", op, comm)
	}
	return nil
}

// checkArgs validates a point-to-point call's arguments and returns the
// part of buf that count elements occupy (all of buf for a datatype that
// is packed: see derivedArgs).
func checkArgs(op string, comm *Comm, buf []byte, count int, dt Datatype, peer, tag int, recv bool) ([]byte, error) {
	if !comm.validPeer(peer, recv) || !comm.validTag(tag, recv) {
		if err := errors.Join(comm.checkRank(op, peer, recv), comm.checkTag(op, tag, recv)); err != nil {
			return nil, err
		}
	}
	if dt.t == nil || dt.t.derived {
		if data, ok := derivedOK(buf, count, dt); ok {
			return data, nil
		}
		return derivedArgs(op+" on "+comm.String(), buf, count, dt)
	}
	if count < 0 {
		return nil, errorf(ClassCount, nil, "%s on %v: count %d is negative", op, comm, count)
	}
	// A product instead of len(buf)/dt.Size(): a division costs more than
	// the rest of these checks.
	hi, n := bits.Mul64(uint64(count), uint64(dt.Size()))
	if hi != 0 || n > uint64(len(buf)) {
		return nil, errorf(ClassBuffer, nil, "%s on %v: buffer of %d bytes is too small for %d elements of %s",
			op, comm, len(buf), count, dt.Name())
	}
	return buf[:n], nil
}

// failure turns an engine error into an MPI error.
func failure(desc string, err error) error {
	class := ClassOther
	if errors.Is(err, btl.ErrPeerFailed) {
		class = ClassProcFailed
	}
	return errorf(class, err, "%s", desc)
}

func rankDesc(r int) string {
	switch r {
	case AnySource:
		return "any rank"
	case ProcNull:
		return "ProcNull"
	}
	return fmt.Sprintf("rank %d", r)
}

func tagDesc(t int) string {
	if t == AnyTag {
		return "any tag"
	}
	return fmt.Sprintf("tag %d", t)
}

// handle applies the communicator's error handler to a non-nil error.
func (c *Comm) handle(err error) error {
	if err == nil || c.ErrorHandler() != ErrorsAreFatal {
		return err
	}
	code := int(ClassOther)
	var e *Error
	if errors.As(err, &e) {
		code = int(e.Class)
	}
	fmt.Fprintf(os.Stderr, "gompi: fatal error (the error handler of %v is ErrorsAreFatal): %v\n", c, err)
	return abort(code, fmt.Sprintf("error on %v (its handler is ErrorsAreFatal): %v", c, err))
}
