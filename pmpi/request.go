package pmpi

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gompi/gompi/internal/pml"
)

// Undefined is the index WaitAny and TestAny, and the count TestSome,
// return when no request is active; the color of a rank that wants no
// communicator from a split; the rank of a process outside a group. Its
// value is the MPI standard ABI's MPI_UNDEFINED, so that C programs'
// values cross the C library unchanged.
const Undefined = -32766

// Wait blocks until the request completes and returns its status and
// error. The request is then recycled: waiting on it again is waiting on
// MPI_REQUEST_NULL, an empty status at once; a persistent one is inactive,
// and waiting on it returns the same.
func (*realAPI) Wait(r *Request) (Status, error) {
	var st Status
	err := waitInto(r, &st)
	return st, err
}

// waitInto is Wait writing the status into dst: WaitAll's statuses are
// written once, where the caller wants them, not copied at every return.
func waitInto(r *Request, dst *Status) error {
	g, err := settleInto(r, dst)
	if g%2 != 0 {
		r.recycle(g)
	}
	return err
}

// settleInto is waitInto without the recycling: it returns the generation
// in which r was active, for the caller to retire, or an even one when r
// was not.
func settleInto(r *Request, dst *Status) (uint32, error) {
	if r == nil {
		*dst = Status{}
		return 0, errorf(ClassRequest, nil, "wait: the request is nil")
	}
	g := atomic.LoadUint32(&r.gen)
	if g%2 == 0 {
		*dst = EmptyStatus() // completed before: MPI_REQUEST_NULL
		return g, nil
	}
	var err error
	switch {
	case r.kind == reqColl:
		r.ext.coll.claim(r.lib) // run here if its goroutine has not begun: no hand-off
		err = r.resultInto(dst, r.lib.engine.WaitRef(r.pml))
	case r.kind == reqGeneral:
		r.lib.engine.WaitRef(r.pml)
		err = r.settleGeneral(dst)
	case r.kind == reqIdup:
		r.ext.idup.claim() // run here if its goroutine has not begun: no hand-off
		r.lib.engine.RunDeferred()
		err = r.resultInto(dst, r.lib.engine.WaitRef(r.pml))
	case r.kind == reqPersistent && r.ext.coll != nil:
		r.ext.coll.claimStart(r.lib)
		err = r.resultInto(dst, r.lib.engine.WaitRef(r.pml))
	case r.kind == reqPersistent && r.ext.part != nil && r.pml != nil:
		r.ext.part.wait(r)
		err = r.resultInto(dst, r.lib.engine.WaitRef(r.pml))
	case r.pml != nil:
		err = r.resultInto(dst, r.lib.engine.WaitRef(r.pml))
	case r.posted:
		// Waiting on a send means wanting it gone: the module may hold it back.
		r.lib.engine.Flush(r.comm.group[r.peer])
		*dst = Status{}
	case r.kind == reqPair:
		err = r.settlePair(dst)
	case r.peer == ProcNull:
		*dst = nullStatus()
	default:
		*dst = Status{} // a buffered send: complete once its message was copied
	}
	return g, err
}

// Test reports whether the request has completed, with its status if so;
// a completed request is recycled as by Wait.
func (*realAPI) Test(r *Request) (Status, bool, error) {
	if r == nil {
		return Status{}, false, errorf(ClassRequest, nil, "test: the request is nil")
	}
	if atomic.LoadUint32(&r.gen)%2 != 0 && r.pending() != nil {
		j := r.begun()
		if j == nil || !j.k.comm.nbc.order.finishReady(r.lib, j) {
			r.poll(j)
		}
		if r.pending() != nil {
			r.lib.engine.Idle()
			return Status{}, false, nil
		}
	}
	st, err := theAPI.Wait(r)
	return st, true, err
}

// begun is the job of r if r is the request of an in-order collective
// that its provider began at its start (nbcJob.begun), or nil.
func (r *Request) begun() *nbcJob {
	if r.kind != reqColl {
		return nil
	}
	if j := r.ext.coll; j.slot < 0 && j.begun {
		return j
	}
	return nil
}

// poll is a Test's progress; j, r's begun collective if not nil, stays
// deferred through it (nbcJob.RunDeferred), as the Test runs it once it is
// ready (orderQueue.finishReady).
func (r *Request) poll(j *nbcJob) {
	if j == nil {
		r.lib.poll()
		return
	}
	j.testing.Store(true)
	r.lib.poll()
	j.testing.Store(false)
}

// collective reports whether r is a non-blocking or persistent
// collective's request, which MPI neither cancels nor frees while active:
// a non-blocking one's peer is collPeer, also when its start completed it.
func (r *Request) collective() bool {
	return r.peer == collPeer || r.kind == reqPersistent && r.ext.coll != nil
}

// Cancel cancels a receive that has not matched a message yet, or a send
// that no receive has matched yet; the request's status then says
// Cancelled. A request that already matched completes normally. Wait
// tells which happened: for a send, once the receiver has answered, which
// it does from its own progress (any of its MPI calls, Finalize
// included), as for the send's message itself. For Isendrecv's request,
// both halves are cancelled.
func (*realAPI) Cancel(r *Request) error {
	if r == nil {
		return errorf(ClassRequest, nil, "cancel: the request is nil")
	}
	if atomic.LoadUint32(&r.gen)%2 == 0 {
		return nil
	}
	var err error
	switch {
	case r.kind == reqGeneral:
		return r.cancelGeneral()
	case r.kind == reqPersistent && r.ext.part != nil:
		return r.comm.handle(errorf(ClassRequest, nil, "cancel of %s: a partitioned request cannot be cancelled", r.desc()))
	case r.collective():
		return r.comm.handle(errorf(ClassRequest, nil, "cancel of %s: a collective cannot be cancelled", r.desc()))
	case r.pml != nil:
		_, err = r.lib.engine.Cancel(r.pml)
	case r.posted:
		r.pml, err = r.lib.engine.CancelPosted(&r.pmlStore, r.comm.context, r.comm.group[r.peer], r.tag, r.mark)
	case r.kind == reqPair:
		return r.cancelPair()
	}
	if err != nil {
		return r.comm.handle(errorf(ClassRequest, err, "cancel of %s", r.desc()))
	}
	return nil
}

// resultInto turns the engine's status into the caller's, in dst, and
// returns the error that the communicator's handler lets through.
func (r *Request) resultInto(dst *Status, st *pml.Status) error {
	if r.conv != nil {
		r.finishConv(st)
	}
	if st.Err == nil && !st.Truncated() {
		if r.recv {
			statusInto(dst, r.comm, st, r.dt)
			if r.dt.t.derived {
				return r.received(dst, st)
			}
		} else {
			dst.Source, dst.Tag, dst.Count, dst.Cancelled, dst.Err, dst.bytes = 0, 0, 0, st.Cancelled, nil, 0
		}
		return nil
	}
	var err error
	*dst, err = r.failed(*st)
	return err
}

// failed is result for a status with an error or a truncation.
func (r *Request) failed(st pml.Status) (Status, error) {
	s := Status{Cancelled: st.Cancelled}
	if r.recv {
		s = statusOf(r.comm, st, r.dt)
	}
	var err error
	var early *pml.EarlyReadyError
	var coll *collFailed
	var named *Error
	switch {
	case errors.As(st.Err, &coll):
		err = coll.err // a collective's, named already (nbc.go)
	case errors.As(st.Err, &named):
		err = st.Err // named and classed already: a partitioned request's mismatch
	case errors.As(st.Err, &early):
		// The engine names the sender's world rank; the status has its rank in comm.
		err = errorf(ClassOther, nil, "%s: ready send from rank %d, tag %d arrived before its receive was posted", r.desc(), s.Source, s.Tag)
	case st.Err != nil:
		err = failure(r.desc(), st.Err)
	case r.recv && st.Truncated():
		err = errorf(ClassTruncate, nil, "recv from rank %d of %v, tag %d: message of %d bytes truncated to %d",
			s.Source, r.comm, s.Tag, st.Total, st.Bytes)
	}
	s.Err = err
	return s, r.comm.handle(err)
}

// WaitAll waits for every request. sts, when not nil, receives each
// request's status at its index (len(sts) >= len(reqs)); nil ignores
// them, as MPI_STATUSES_IGNORE does, and spares the caller a slice per
// call. If some fail, the error has class ErrInStatus and joins each one.
func (*realAPI) WaitAll(reqs []*Request, sts []Status) error {
	if sts != nil && len(sts) < len(reqs) {
		return errorf(ClassArg, nil, "waitall: %d statuses for %d requests", len(sts), len(reqs))
	}
	var errs []error
	var done retired // the requests go back to the cache together
	for i, r := range reqs {
		if r == nil {
			if sts != nil {
				sts[i] = EmptyStatus() // MPI_REQUEST_NULL
			}
			continue
		}
		var g uint32
		var err error
		if sts != nil {
			g, err = settleInto(r, &sts[i])
		} else {
			var st Status
			g, err = settleInto(r, &st)
		}
		if g%2 != 0 {
			done.add(r, g)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	done.flush()
	if len(errs) > 0 {
		return errorf(ClassInStatus, errors.Join(errs...), "waitall: %d of %d requests failed", len(errs), len(reqs))
	}
	return nil
}

// TestAll reports whether every request has completed; if so it completes
// them as WaitAll does, statuses into sts when not nil.
func (*realAPI) TestAll(reqs []*Request, sts []Status) (bool, error) {
	if sts != nil && len(sts) < len(reqs) {
		return false, errorf(ClassArg, nil, "testall: %d statuses for %d requests", len(sts), len(reqs))
	}
	progressed := false
	for _, r := range reqs {
		if r == nil || atomic.LoadUint32(&r.gen)%2 == 0 {
			continue
		}
		if r.pending() != nil && !progressed {
			r.lib.poll()
			progressed = true
		}
		if r.pending() != nil {
			r.lib.engine.Idle()
			return false, nil
		}
	}
	return true, theAPI.WaitAll(reqs, sts)
}

// WaitAny waits until one of reqs completes, sets that entry to nil (MPI's
// MPI_REQUEST_NULL; a persistent request stays, inactive) and returns its
// index and status. With no active request (nil ones and inactive
// persistent ones are ignored) it returns Undefined and the empty status.
func (*realAPI) WaitAny(reqs []*Request) (int, Status, error) {
	for {
		eng, pending, done, err := engineRequests("waitany", reqs)
		switch {
		case err != nil:
			return Undefined, Status{}, err
		case done >= 0:
			return finish(reqs, done)
		case eng == nil:
			return Undefined, EmptyStatus(), nil
		}
		// A pair whose first half completed waits on its other half now.
		if i := eng.WaitAny(pending); i < 0 || reqs[i].pending() == nil {
			return finish(reqs, i)
		}
	}
}

// TestAny is WaitAny without waiting: found is false when none has completed.
func (*realAPI) TestAny(reqs []*Request) (int, Status, bool, error) {
	progressed := false
	for {
		eng, pending, done, err := engineRequests("testany", reqs)
		if err != nil {
			return Undefined, Status{}, false, err
		}
		if eng != nil && done < 0 && !progressed {
			eng.Progress()
			progressed = true
		}
		i, active := done, true
		if i < 0 {
			i, active = pml.TestAny(pending)
		}
		switch {
		case !active:
			return Undefined, EmptyStatus(), true, nil
		case i < 0:
			eng.Idle()
			return Undefined, Status{}, false, nil
		case reqs[i].pending() != nil:
			continue // a pair with a half left: its other half is looked at now
		}
		idx, st, err := finish(reqs, i)
		return idx, st, true, err
	}
}

// WaitSome waits until at least one of reqs completes, then completes
// every one that has, as TestSome does: their indices go into indices,
// their statuses into sts (when not nil), each entry becomes nil (a
// persistent request stays, inactive), and it returns how many, or
// Undefined when no entry is active. Both slices hold len(reqs) entries,
// so that a loop of WaitSome allocates nothing beyond WaitAny's wait.
func (*realAPI) WaitSome(reqs []*Request, indices []int, sts []Status) (int, error) {
	if len(indices) < len(reqs) || (sts != nil && len(sts) < len(reqs)) {
		return Undefined, errorf(ClassArg, nil, "waitsome: %d indices and %d statuses for %d requests; each must hold one per request",
			len(indices), len(sts), len(reqs))
	}
	for {
		if n, err := theAPI.TestSome(reqs, indices, sts); n != 0 || err != nil {
			return n, err
		}
		eng, pending, done, err := engineRequests("waitsome", reqs)
		switch {
		case err != nil:
			return Undefined, err
		case done >= 0:
			continue // complete without the engine: TestSome takes it
		case eng == nil:
			return Undefined, nil
		}
		eng.WaitAny(pending) // TestSome completes it, and whatever else has
	}
}

// engineRequests maps reqs to the engine's requests: for a pair, the
// first half still pending. done is the index of a request that is
// complete without one (on ProcNull, a posted eager or buffered send, a
// pair whose halves are), or -1. Nil entries and inactive requests
// (completed, or persistent and not started) are left out, as MPI
// ignores MPI_REQUEST_NULL and inactive persistent requests.
func engineRequests(op string, reqs []*Request) (eng *pml.Engine, pending []*pml.Request, done int, err error) {
	pending = make([]*pml.Request, len(reqs))
	for i, r := range reqs {
		if r == nil || atomic.LoadUint32(&r.gen)%2 == 0 {
			continue
		}
		p := r.pml
		if r.kind == reqPair || r.kind == reqPersistent && r.ext.part != nil {
			p = r.pending()
		}
		if p == nil {
			return nil, nil, i, nil
		}
		if eng != nil && eng != r.lib.engine {
			return nil, nil, -1, errorf(ClassRequest, nil, "%s: requests from different initialisations", op)
		}
		pending[i], eng = p, r.lib.engine
	}
	return eng, pending, -1, nil
}

// finish completes reqs[i] and sets the entry to nil, MPI's
// MPI_REQUEST_NULL; a persistent request stays, inactive.
func finish(reqs []*Request, i int) (int, Status, error) {
	if i < 0 {
		return Undefined, EmptyStatus(), nil
	}
	r := reqs[i]
	if r.kind != reqPersistent {
		reqs[i] = nil
	}
	st, err := theAPI.Wait(r)
	return i, st, err
}

func (r *Request) String() string { return fmt.Sprintf("request(%s)", r.desc()) }
