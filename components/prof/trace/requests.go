package trace

import (
	"slices"

	"github.com/gompi/gompi/pmpi"
)

// track remembers a started operation until it completes.
func (t *Tracer) track(r *pmpi.Request, p pending) {
	if r == nil {
		return
	}
	t.mu.Lock()
	t.reqs[r] = p
	t.mu.Unlock()
}

// completed forgets r, which has completed with st, and returns the end of
// its message's arrow if it was a receive. A request completed before, or
// never seen, gives nothing: a second Wait returns the same status but
// receives no second message.
func (t *Tracer) completed(r *pmpi.Request, st pmpi.Status) (pending, []flow, bool) {
	if r == nil {
		return pending{}, nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.reqs[r]
	if !ok {
		return pending{}, nil, false
	}
	delete(t.reqs, r)
	if !p.recv {
		return p, nil, true
	}
	if id := t.m.recvOn(p.comm, st); id != 0 {
		return p, []flow{{id: id, in: true}}, true
	}
	return p, nil, true
}

// describe is the arguments of a call that completed one request.
func (t *Tracer) describe(p pending, st pmpi.Status, err error) args {
	if p.comm == nil {
		return args{err: err}
	}
	if p.recv {
		return t.received(p.comm, p.peer, p.tag, st, err)
	}
	return t.commArgs(p.comm).withPeer(p.peer, p.tag).withBytes(p.bytes).withErr(err)
}

// Wait records MPI_Wait; a receive's arrow ends here.
func (t *Tracer) Wait(r *pmpi.Request) (pmpi.Status, error) {
	sp := t.begin()
	st, err := t.Next.Wait(r)
	p, flows, _ := t.completed(r, st)
	t.end(sp, "MPI_Wait", t.describe(p, st, err), flows...)
	return st, err
}

// Test records MPI_Test; a receive's arrow ends at the Test that finds it
// complete.
func (t *Tracer) Test(r *pmpi.Request) (pmpi.Status, bool, error) {
	sp := t.begin()
	st, done, err := t.Next.Test(r)
	var p pending
	var flows []flow
	if done {
		p, flows, _ = t.completed(r, st)
	}
	t.end(sp, "MPI_Test", t.describe(p, st, err), flows...)
	return st, done, err
}

// completedAll ends the arrows of every request in reqs (a copy taken
// before the call), completed with sts.
func (t *Tracer) completedAll(reqs []*pmpi.Request, sts []pmpi.Status) []flow {
	var flows []flow
	for i, r := range reqs {
		if i < len(sts) {
			_, f, _ := t.completed(r, sts[i])
			flows = append(flows, f...)
		}
	}
	return flows
}

// WaitAll records MPI_WaitAll; the arrows of all its receives end here.
func (t *Tracer) WaitAll(reqs []*pmpi.Request) ([]pmpi.Status, error) {
	sp := t.begin()
	before := slices.Clone(reqs)
	sts, err := t.Next.WaitAll(reqs)
	flows := t.completedAll(before, sts)
	t.end(sp, "MPI_WaitAll", args{err: err}.withCount(len(reqs)), flows...)
	return sts, err
}

// TestAll records MPI_Testall; when all are complete, their arrows end here.
func (t *Tracer) TestAll(reqs []*pmpi.Request) ([]pmpi.Status, bool, error) {
	sp := t.begin()
	before := slices.Clone(reqs)
	sts, done, err := t.Next.TestAll(reqs)
	var flows []flow
	if done {
		flows = t.completedAll(before, sts)
	}
	t.end(sp, "MPI_TestAll", args{err: err}.withCount(len(reqs)), flows...)
	return sts, done, err
}

// completedOne handles the request at index i of before.
func (t *Tracer) completedOne(before []*pmpi.Request, i int, st pmpi.Status, err error) (args, []flow) {
	if i < 0 || i >= len(before) {
		return args{err: err}, nil
	}
	p, flows, _ := t.completed(before[i], st)
	a := t.describe(p, st, err)
	a.index, a.set = i, a.set|hasIndex
	return a, flows
}

// WaitAny records MPI_Waitany.
func (t *Tracer) WaitAny(reqs []*pmpi.Request) (int, pmpi.Status, error) {
	sp := t.begin()
	before := slices.Clone(reqs)
	i, st, err := t.Next.WaitAny(reqs)
	a, flows := t.completedOne(before, i, st, err)
	t.end(sp, "MPI_WaitAny", a, flows...)
	return i, st, err
}

// TestAny records MPI_Testany.
func (t *Tracer) TestAny(reqs []*pmpi.Request) (int, pmpi.Status, bool, error) {
	sp := t.begin()
	before := slices.Clone(reqs)
	i, st, found, err := t.Next.TestAny(reqs)
	a, flows := args{err: err}, []flow(nil)
	if found {
		a, flows = t.completedOne(before, i, st, err)
	}
	t.end(sp, "MPI_TestAny", a, flows...)
	return i, st, found, err
}

// WaitSome records MPI_Waitsome; the arrows of the receives it completed
// end here.
func (t *Tracer) WaitSome(reqs []*pmpi.Request) ([]int, []pmpi.Status, error) {
	sp := t.begin()
	before := slices.Clone(reqs)
	idx, sts, err := t.Next.WaitSome(reqs)
	var flows []flow
	for k, i := range idx {
		if i >= 0 && i < len(before) && k < len(sts) {
			_, f, _ := t.completed(before[i], sts[k])
			flows = append(flows, f...)
		}
	}
	t.end(sp, "MPI_WaitSome", args{err: err}.withCount(len(idx)), flows...)
	return idx, sts, err
}
