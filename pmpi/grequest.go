package pmpi

import (
	"sync/atomic"

	"github.com/gompi/gompi/internal/pml"
)

// A generalized request's functions (GrequestStart): query fills its
// status, free releases what the program holds for it, cancel is told of
// Cancel and whether the request was completed.
type (
	GrequestQuery  func(st *Status) error
	GrequestFree   func() error
	GrequestCancel func(complete bool) error
)

// grequest is a generalized request's functions (MPI_Grequest_start): an
// operation the program carries out itself, which the completion calls
// wait for and test as any other request.
type grequest struct {
	query  GrequestQuery
	free   GrequestFree
	cancel GrequestCancel
	freed  atomic.Bool // free ran: it runs once
	ends   atomic.Uint32
}

// The ends of a generalized request that RequestFree and GrequestComplete
// mark: whichever of the two comes second retires it and runs free, in
// the program's call, never on a thread of the library's own.
const (
	greqCompleted = 1 << iota
	greqFreed
)

// GrequestStart makes a generalized request: an operation the program
// carries out itself and ends with GrequestComplete. Wait, Test and their
// kin then complete it as any request: they call query for its status
// (it starts empty; query may set its fields, and its error is the
// call's), then free, whose error is the call's if query's is nil. free
// runs once, also for a request freed with RequestFree before it
// completed: then in GrequestComplete. Cancel calls cancel, with complete
// saying whether GrequestComplete was called. Any of the three may be
// nil: no status, nothing to free, nothing to cancel.
func (*realAPI) GrequestStart(query GrequestQuery, free GrequestFree, cancel GrequestCancel) (*Request, error) {
	l, err := running("grequest start")
	if err != nil {
		return nil, err
	}
	r := l.newRequest(l.self, Byte, "grequest", ProcNull, AnyTag, false)
	r.pml = l.engine.StartGeneral(&r.pmlStore)
	if r.ext == nil {
		r.ext = &requestExt{}
	}
	r.kind, r.ext.greq = reqGeneral, &grequest{query: query, free: free, cancel: cancel}
	return r, nil
}

// GrequestComplete says that the generalized request r's operation is
// done: the calls that wait for r return.
func (*realAPI) GrequestComplete(r *Request) error {
	if r == nil {
		return errorf(ClassRequest, nil, "grequest complete: the request is nil")
	}
	if atomic.LoadUint32(&r.gen)%2 == 0 || r.kind != reqGeneral {
		return errorf(ClassRequest, nil, "grequest complete: the request is not an active generalized request (completed, freed, or of another kind)")
	}
	if r.pml.Done() {
		return errorf(ClassRequest, nil, "grequest complete: the request was completed already")
	}
	g := atomic.LoadUint32(&r.gen)
	// Marked before the completion, after which a Wait may retire r and
	// another request take it.
	freed := r.ext.greq.ends.Or(greqCompleted)&greqFreed != 0
	r.lib.engine.CompleteGeneral(r.pml, pml.Status{})
	if freed {
		r.waitQuietly()
		r.recycle(g)
	}
	return nil
}

// status is the status of a completed generalized request: query's. It
// returns the status rather than fill the caller's: passed to query, an
// indirect call, the caller's would escape to the heap on every path.
func (g *grequest) status() (Status, error) {
	st := EmptyStatus()
	if g.query == nil {
		return st, nil
	}
	err := g.query(&st)
	return st, err
}

// settleGeneral gives a completed generalized request's status and runs
// free: the first error of the two is the completion call's, through the
// handler of r's communicator (MPI_COMM_SELF's).
func (r *Request) settleGeneral(dst *Status) error {
	g := r.ext.greq
	st, err := g.status()
	if ferr := g.release(); err == nil {
		err = ferr
	}
	if err != nil {
		st.Err = r.comm.handle(errorf(classOf(err), err, "generalized request"))
		err = st.Err
	}
	*dst = st
	return err
}

// release runs free, once.
func (g *grequest) release() error {
	if g.free == nil || g.freed.Swap(true) {
		return nil
	}
	return g.free()
}

// cancelGeneral is Cancel of a generalized request: its cancel function,
// told whether the operation was completed.
func (r *Request) cancelGeneral() error {
	g := r.ext.greq
	if g.cancel == nil {
		return nil
	}
	if err := g.cancel(r.pml.Done()); err != nil {
		return r.comm.handle(errorf(classOf(err), err, "cancel of a generalized request"))
	}
	return nil
}
