package pmpi

import (
	"errors"
	"sync/atomic"
)

// RequestFree frees a request. An inactive persistent request is gone at once.
// An active one completes on its own, its status and error dropped, and
// is recycled then (a persistent one is then gone): as in MPI, a freed
// send's message is still delivered. Free on a request already
// completed or freed is an error, as on MPI_REQUEST_NULL, and so is
// free on an active collective or partitioned request, which MPI forbids.
func (*realAPI) RequestFree(r *Request) error {
	if r == nil {
		return errorf(ClassRequest, nil, "request free: the request is nil")
	}
	g := atomic.LoadUint32(&r.gen)
	if g%2 == 0 {
		if r.kind == reqPersistent && !r.ext.freed {
			r.ext.free(r.lib)
			return nil
		}
		return errorf(ClassRequest, nil, "request free: the request was completed or freed already (it is MPI_REQUEST_NULL now)")
	}
	if r.freeing {
		return errorf(ClassRequest, nil, "request free: %v was freed already", r)
	}
	if r.collective() {
		return r.comm.handle(errorf(ClassRequest, nil, "request free: %s is running: MPI frees no active collective's request; wait for it or test it to the end", r.desc()))
	}
	if r.kind == reqPersistent && r.ext.part != nil {
		// Freed, a send whose partitions are not all ready would never go,
		// and its receiver would wait for ever.
		return r.comm.handle(errorf(ClassRequest, nil, "request free: %s is active: MPI frees no partitioned request before its round completes; wait for it or test it to the end", r.desc()))
	}
	r.freeing = true
	if r.kind != reqPair && r.pml == nil {
		// Complete already: a posted eager send, a buffered one, ProcNull.
		if r.posted {
			r.lib.engine.Flush(r.comm.group[r.peer])
		}
		r.recycle(g)
		return nil
	}
	if r.kind == reqGeneral {
		if r.ext.greq.ends.Or(greqFreed)&greqCompleted != 0 {
			r.waitQuietly()
			r.recycle(g)
		}
		return nil
	}
	if r.pending() == nil {
		r.waitQuietly()
		r.recycle(g)
		return nil
	}
	// Completion needs progress, which this caller may never make again.
	go func() {
		r.waitQuietly()
		r.recycle(g)
	}()
	return nil
}

// waitQuietly waits until r's engine requests complete, dropping their
// statuses: r was freed.
func (r *Request) waitQuietly() {
	if r.kind == reqPair {
		r.waitPairQuietly()
		return
	}
	if r.kind == reqPersistent && r.ext.part != nil {
		r.ext.part.wait(r)
	}
	r.lib.engine.WaitRef(r.pml)
	if r.kind == reqGeneral {
		_ = r.ext.greq.release() // nobody is told its error: the request was freed
	}
}

// RequestGetStatus reports whether r has completed, with its status if so,
// without freeing it or making it inactive (MPI_Request_get_status): a
// Wait or Test must still complete it. On an inactive request (completed
// before, or persistent and not started) it reports true and the empty
// status.
func (*realAPI) RequestGetStatus(r *Request) (Status, bool, error) {
	if r == nil {
		return Status{}, false, errorf(ClassRequest, nil, "request get status: the request is nil")
	}
	if atomic.LoadUint32(&r.gen)%2 == 0 {
		return EmptyStatus(), true, nil
	}
	if r.pending() != nil {
		r.lib.poll()
		if r.pending() != nil {
			r.lib.engine.Idle()
			return Status{}, false, nil
		}
	}
	var st Status
	var err error
	switch {
	case r.kind == reqPair:
		st, err = r.pairStatus()
	case r.kind == reqGeneral:
		st, err = r.ext.greq.status() // not freed: a completion call still ends it
	case r.pml != nil:
		err = r.resultInto(&st, r.lib.engine.WaitRef(r.pml))
	case r.peer == ProcNull:
		st = nullStatus()
	}
	return st, true, err
}

// TestSome completes every request of reqs that has completed, without
// waiting: it writes their indices into indices and their statuses into
// sts (when not nil), sets each completed entry to nil (a persistent
// request stays, inactive) and returns how many it wrote, 0 when none
// has completed, or Undefined when no entry is active. Both slices must
// hold len(reqs) entries, so that the call allocates nothing. If some
// failed, the error has class ErrInStatus and joins each one.
func (*realAPI) TestSome(reqs []*Request, indices []int, sts []Status) (int, error) {
	if len(indices) < len(reqs) || (sts != nil && len(sts) < len(reqs)) {
		return Undefined, errorf(ClassArg, nil, "testsome: %d indices and %d statuses for %d requests; each must hold one per request",
			len(indices), len(sts), len(reqs))
	}
	var errs []error
	var l *library
	n, active, progressed := 0, false, false
	for i, r := range reqs {
		if r == nil || atomic.LoadUint32(&r.gen)%2 == 0 {
			continue
		}
		active, l = true, r.lib
		if r.pending() != nil && !progressed {
			r.lib.poll()
			progressed = true
		}
		if r.pending() != nil {
			continue
		}
		_, st, err := finish(reqs, i)
		indices[n] = i
		if sts != nil {
			sts[n] = st
		}
		n++
		if err != nil {
			errs = append(errs, err)
		}
	}
	if !active {
		return Undefined, nil
	}
	if n == 0 {
		l.engine.Idle()
	}
	if len(errs) > 0 {
		return n, errorf(ClassInStatus, errors.Join(errs...), "testsome: %d of %d completed requests failed", len(errs), n)
	}
	return n, nil
}
