package trace

import (
	"github.com/gompi/gompi/pmpi"
)

// reqID names one operation: pmpi recycles a request once a call completes
// it, and another goroutine may start a new one in it before that call's
// record is written, so the generation is read before the call.
type reqID struct {
	r   *pmpi.Request
	gen uint32
}

func idOf(r *pmpi.Request) reqID {
	if r == nil {
		return reqID{}
	}
	return reqID{r, r.Gen()}
}

// idsOf names each of reqs, before a call that may complete them.
func idsOf(reqs []*pmpi.Request) []reqID {
	ids := make([]reqID, len(reqs))
	for i, r := range reqs {
		ids[i] = idOf(r)
	}
	return ids
}

// track remembers a started operation until it completes. A request that
// is not active has nothing to remember: the Wait on it shows no peer.
func (t *Tracer) track(r *pmpi.Request, p pending) {
	if r == nil || r.Gen()%2 == 0 {
		return
	}
	t.mu.Lock()
	t.reqs[idOf(r)] = p
	t.mu.Unlock()
}

// completed forgets id, which has completed with st and err, and returns
// what it was and, for a receive, the end of its message's arrow. A
// request completed before, or never seen, gives nothing.
func (t *Tracer) completed(id reqID, st pmpi.Status, err error) (pending, flowEnd) {
	if id.r == nil {
		return pending{}, 0
	}
	t.mu.Lock()
	p, ok := t.reqs[id]
	delete(t.reqs, id)
	t.mu.Unlock()
	switch {
	case !ok || !p.recv:
		return p, 0
	case p.stream == partStream:
		// A partitioned receive names its source and tag; its status
		// may not.
		return p, t.recvFlowIn(p.comm, p.stream, p.peer, p.tag, st, err)
	}
	return p, t.recvFlow(p.comm, st, err)
}

// describe is the arguments of a call that completed one request.
func (t *Tracer) describe(sp span, p pending, st pmpi.Status, err error) args {
	if p.comm == nil {
		return args{}.withErr(err)
	}
	if p.recv {
		return t.received(sp, p.comm, p.peer, p.tag, st, err)
	}
	return t.commArgs(sp, p.comm).withPeer(p.peer, p.tag).withBytes(p.bytes).withErr(err)
}

// Wait records MPI_Wait; a receive's arrow ends here.
func (t *Tracer) Wait(r *pmpi.Request) (pmpi.Status, error) {
	sp := t.begin()
	id := idOf(r)
	st, err := t.Next.Wait(r)
	sp = t.stop(sp)
	p, f := t.completed(id, st, err)
	t.end(sp, "MPI_Wait", t.describe(sp, p, st, err).withFlow(f))
	return st, err
}

// Test records MPI_Test; a receive's arrow ends at the Test that finds it
// complete.
func (t *Tracer) Test(r *pmpi.Request) (pmpi.Status, bool, error) {
	sp := t.begin()
	id := idOf(r)
	st, done, err := t.Next.Test(r)
	sp = t.stop(sp)
	var p pending
	var f flowEnd
	if done {
		p, f = t.completed(id, st, err)
	}
	t.end(sp, "MPI_Test", t.describe(sp, p, st, err).withFlow(f))
	return st, done, err
}

// completedAll ends the arrows of every request in reqs (named before the
// call), completed with sts; each status carries its error. Too few
// statuses means the call refused its arguments and completed nothing.
func (t *Tracer) completedAll(a args, reqs []reqID, sts []pmpi.Status) args {
	if len(sts) < len(reqs) {
		return a
	}
	for i, r := range reqs {
		_, f := t.completed(r, sts[i], sts[i].Err)
		a = a.withFlow(f)
	}
	return a
}

// statusesFor is sts, or the tool's own slice when the caller ignores
// statuses: the arrows need the receives' sources and tags.
func statusesFor(sts []pmpi.Status, n int) []pmpi.Status {
	if sts == nil {
		return make([]pmpi.Status, n)
	}
	return sts
}

// WaitAll records MPI_WaitAll; the arrows of all its receives end here.
func (t *Tracer) WaitAll(reqs []*pmpi.Request, sts []pmpi.Status) error {
	sp := t.begin()
	before := idsOf(reqs)
	own := statusesFor(sts, len(reqs))
	err := t.Next.WaitAll(reqs, own)
	sp = t.stop(sp)
	t.end(sp, "MPI_WaitAll", t.completedAll(args{}.withCount(len(reqs)).withErr(err), before, own))
	return err
}

// TestAll records MPI_TestAll; when all are complete, their arrows end here.
func (t *Tracer) TestAll(reqs []*pmpi.Request, sts []pmpi.Status) (bool, error) {
	sp := t.begin()
	before := idsOf(reqs)
	own := statusesFor(sts, len(reqs))
	done, err := t.Next.TestAll(reqs, own)
	sp = t.stop(sp)
	a := args{}.withCount(len(reqs)).withErr(err)
	if done {
		a = t.completedAll(a, before, own)
	}
	t.end(sp, "MPI_TestAll", a)
	return done, err
}

// completedOne handles the request at index i of before.
func (t *Tracer) completedOne(sp span, before []reqID, i int, st pmpi.Status, err error) args {
	if i < 0 || i >= len(before) {
		return args{}.withErr(err)
	}
	p, f := t.completed(before[i], st, err)
	return t.describe(sp, p, st, err).withIndex(i).withFlow(f)
}

// WaitAny records MPI_WaitAny.
func (t *Tracer) WaitAny(reqs []*pmpi.Request) (int, pmpi.Status, error) {
	sp := t.begin()
	before := idsOf(reqs)
	i, st, err := t.Next.WaitAny(reqs)
	sp = t.stop(sp)
	t.end(sp, "MPI_WaitAny", t.completedOne(sp, before, i, st, err))
	return i, st, err
}

// TestAny records MPI_TestAny.
func (t *Tracer) TestAny(reqs []*pmpi.Request) (int, pmpi.Status, bool, error) {
	sp := t.begin()
	before := idsOf(reqs)
	i, st, found, err := t.Next.TestAny(reqs)
	sp = t.stop(sp)
	a := args{}.withErr(err)
	if found {
		a = t.completedOne(sp, before, i, st, err)
	}
	t.end(sp, "MPI_TestAny", a)
	return i, st, found, err
}

// WaitSome records MPI_WaitSome; the arrows of the receives it completed
// end here.
func (t *Tracer) WaitSome(reqs []*pmpi.Request, indices []int, sts []pmpi.Status) (int, error) {
	return t.some("MPI_WaitSome", reqs, indices, sts, t.Next.WaitSome)
}

// TestSome records MPI_TestSome, as WaitSome.
func (t *Tracer) TestSome(reqs []*pmpi.Request, indices []int, sts []pmpi.Status) (int, error) {
	return t.some("MPI_TestSome", reqs, indices, sts, t.Next.TestSome)
}

func (t *Tracer) some(name string, reqs []*pmpi.Request, indices []int, sts []pmpi.Status,
	call func([]*pmpi.Request, []int, []pmpi.Status) (int, error)) (int, error) {
	sp := t.begin()
	before := idsOf(reqs)
	own := statusesFor(sts, len(reqs))
	n, err := call(reqs, indices, own)
	sp = t.stop(sp)
	a := args{}.withCount(max(n, 0)).withErr(err)
	for k := range max(n, 0) {
		if i := indices[k]; i >= 0 && i < len(before) && k < len(own) {
			_, f := t.completed(before[i], own[k], own[k].Err)
			a = a.withFlow(f)
		}
	}
	t.end(sp, name, a)
	return n, err
}
