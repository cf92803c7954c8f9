package pmpi

import (
	"fmt"
	"runtime"
	"time"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/pml"
)

// collComm is a communicator as coll components see it: point-to-point
// on one of the communicator's collective contexts, straight on the
// engine, so that neither package mpi nor a profiling tool sees a
// collective's messages. The blocking collectives use the context next
// to the communicator's; each non-blocking one has its own (nbcContext).
type collComm struct {
	c   *Comm
	ctx uint32
	nb  bool // serves a non-blocking or persistent call's request
}

var (
	_ coll.Comm        = collComm{}
	_ coll.Poller      = collComm{}
	_ coll.NonBlocking = collComm{}
)

func (x collComm) Rank() int    { return x.c.rank }
func (x collComm) Size() int    { return len(x.c.group) }
func (x collComm) Name() string { return x.c.Name() }

func (x collComm) NonBlocking() bool { return x.nb }

func (x collComm) engine() *pml.Engine { return x.c.lib.engine }

// Poll progresses the engine once and names a member of the communicator
// that failed (coll.Poller).
func (x collComm) Poll() error {
	e := x.engine()
	e.Progress()
	for _, w := range e.FailedPeers() {
		if r, ok := x.c.rankOf(w); ok {
			return failure(fmt.Sprintf("rank %d of %v", r, x.c), e.PeerErr(w))
		}
	}
	return nil
}

// Blocked records, for the state report, that this goroutine waits for
// peer inside a collective that moves no message (coll.Poller).
func (x collComm) Blocked(collective string, peer int) func() {
	w := &collWait{comm: x.c, collective: collective, peer: peer, since: time.Now()}
	var pcs [64]uintptr
	w.pcs = append([]uintptr(nil), pcs[:runtime.Callers(2, pcs[:])]...)
	if fc := foreignCaller.Load(); fc != nil {
		w.foreignPC = fc.PC()
	}
	x.c.lib.collWaits.Store(w, struct{}{})
	return func() { x.c.lib.collWaits.Delete(w) }
}

// collWait is a goroutine waiting inside a collective for a member's part,
// with no message pending that the engine could report.
type collWait struct {
	comm       *Comm
	collective string
	peer       int // in comm
	since      time.Time
	pcs        []uintptr
	foreignPC  uintptr
}

func (x collComm) check(op string, peer int) error {
	if peer < 0 || peer >= len(x.c.group) {
		return errorf(ClassRank, nil, "%s on %v: rank %d out of range (0 to %d)", op, x.c, peer, len(x.c.group)-1)
	}
	return nil
}

func (x collComm) Send(buf []byte, dest, tag int) error { return x.send(buf, dest, tag, false) }

// SendInExchange is Send as the send half of coll.Sendrecv.
func (x collComm) SendInExchange(buf []byte, dest, tag int) error {
	return x.send(buf, dest, tag, true)
}

func (x collComm) send(buf []byte, dest, tag int, exchange bool) error {
	if err := x.check("collective send", dest); err != nil {
		return err
	}
	e, to := x.engine(), x.c.group[dest]
	var err error
	if exchange {
		err = e.SendInExchange(x.ctx, to, tag, buf)
	} else {
		err = e.Send(x.ctx, to, tag, buf, false)
	}
	if err != nil {
		return failure(fmt.Sprintf("collective send to rank %d of %v", dest, x.c), err)
	}
	return nil
}

func (x collComm) Recv(buf []byte, src, tag int) error {
	if err := x.check("collective recv", src); err != nil {
		return err
	}
	var st pml.Status
	x.engine().Recv(x.ctx, x.c.group[src], tag, buf, &st)
	return x.result(src, len(buf), &st)
}

// result turns a receive's status into an error: a message of another
// length than expected is a peer's failure mark, or the mark of counts
// that disagree.
func (x collComm) result(src, want int, st *pml.Status) error {
	switch {
	case st.Err != nil:
		return failure(fmt.Sprintf("recv from rank %d of %v", src, x.c), st.Err)
	case coll.IsFailureMark(st.Total, want):
		return errorf(ClassOther, coll.ErrPeerFailed, "recv from rank %d of %v", src, x.c)
	case st.Total > want:
		return errorf(ClassTruncate, nil, "rank %d of %v sent %d bytes where %d were expected: the ranks' counts or datatypes disagree",
			src, x.c, st.Total, want)
	case st.Total < want:
		return errorf(ClassCount, nil, "rank %d of %v sent %d bytes where %d were expected: the ranks' counts or datatypes disagree",
			src, x.c, st.Total, want)
	}
	return nil
}

// collReq is a pending collective send or receive, with the engine's
// request inside it: one allocation, and none once the pool is warm.
type collReq struct {
	x        collComm
	pmlStore pml.Request
	pml      *pml.Request // the engine's request: &pmlStore, once started
	src      int          // for receives; -1 for sends
	want     int
	err      error // an argument error: the request never started
}

func (q *collReq) Done() bool { return q.err != nil || q.pml.Done() }

func (x collComm) request() *collReq {
	if q, ok := x.c.lib.collReqs.Get().(*collReq); ok {
		return q
	}
	return new(collReq)
}

func (x collComm) Isend(buf []byte, dest, tag int) coll.Request {
	if err := x.check("collective isend", dest); err != nil {
		return &collReq{err: err}
	}
	q := x.request()
	q.x, q.src = x, -1
	q.pml = x.engine().StartSend(&q.pmlStore, x.ctx, x.c.group[dest], tag, buf, false)
	return q
}

func (x collComm) Irecv(buf []byte, src, tag int) coll.Request {
	if err := x.check("collective irecv", src); err != nil {
		return &collReq{err: err}
	}
	q := x.request()
	q.x, q.src, q.want = x, src, len(buf)
	q.pml = x.engine().StartRecv(&q.pmlStore, x.ctx, x.c.group[src], tag, buf)
	return q
}

// Wait completes every request, then recycles it: the coll.Comm contract
// is that a request is waited on once.
func (x collComm) Wait(reqs ...coll.Request) error {
	var first error
	for _, q := range reqs {
		var err error
		if r, ok := q.(*collReq); ok {
			err = r.Wait()
		} else {
			err = errorf(ClassRequest, nil, "collective wait on %v: a request of type %T is not this communicator's", x.c, q)
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// Wait completes the request, then recycles it.
func (q *collReq) Wait() error {
	if q.err != nil {
		return q.err
	}
	x := q.x
	var err error
	if q.src < 0 {
		if st := x.engine().WaitRef(q.pml); st.Err != nil {
			err = failure(fmt.Sprintf("collective send on %v", x.c), st.Err)
		}
	} else {
		err = x.result(q.src, q.want, x.engine().WaitRef(q.pml))
	}
	*q = collReq{} // the engine is done with it: Wait returned its settled status
	x.c.lib.collReqs.Put(q)
	return err
}
