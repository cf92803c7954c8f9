package mpi

import (
	"sync"

	"github.com/gompi/gompi/pmpi"
)

// Request is a pending non-blocking operation. The zero Request is
// inactive, like MPI_REQUEST_NULL: waiting on it returns at once. As in
// MPI, the Wait or Test that completes a request frees it: that Request,
// and every copy of it, is inactive from then on, and waiting on it again
// returns the empty status. A persistent request (SendInit, RecvInit) is
// only made inactive, to be started again, until Free.
type Request struct {
	r   *pmpi.Request
	gen uint32 // r's generation when this operation started
	// persistent: r lives across its starts until Free, and pmpi tells
	// whether it is active.
	persistent bool
}

func request(r *pmpi.Request) Request {
	if r == nil {
		return Request{}
	}
	return Request{r: r, gen: r.Gen()}
}

// live is the request if this operation has not completed yet, else nil;
// a persistent request always, active or not.
func (r Request) live() *pmpi.Request {
	if r.r == nil || (!r.persistent && r.r.Gen() != r.gen) {
		return nil
	}
	return r.r
}

// Wait blocks until the request completes and frees it.
func (r Request) Wait() (Status, error) {
	p := r.live()
	if p == nil {
		return pmpi.EmptyStatus(), nil
	}
	return api().Wait(p)
}

// Test reports whether the request has completed, with its status if so;
// a completed request is freed as by Wait.
func (r Request) Test() (Status, bool, error) {
	p := r.live()
	if p == nil {
		return pmpi.EmptyStatus(), true, nil
	}
	return api().Test(p)
}

// Cancel cancels a receive, or a send, that has not matched yet; its status
// then says Cancelled. One that matched completes normally (see pmpi.Cancel).
func (r Request) Cancel() error {
	p := r.live()
	if p == nil {
		return nil
	}
	return api().Cancel(p)
}

// Active reports whether the request has started and not been freed yet
// by the Wait or Test that completes it; a persistent request, whether it
// was started and not completed since.
func (r Request) Active() bool {
	if r.persistent {
		return r.r.Gen()%2 != 0
	}
	return r.gen%2 != 0 && r.live() != nil
}

// WaitAll waits for every request and frees it. Failures give
// ErrInStatus, joining each request's error; WaitAllStatus also says which.
func WaitAll(reqs ...Request) error {
	p := unwrap(reqs)
	err := api().WaitAll(*p, nil)
	release(p)
	return err
}

// WaitAllStatus is WaitAll that puts each request's status into sts at
// its index; sts must be at least as long as reqs. Reusing sts, a loop of
// non-blocking calls allocates nothing.
func WaitAllStatus(reqs []Request, sts []Status) error {
	p := unwrap(reqs)
	err := api().WaitAll(*p, asked(sts))
	release(p)
	return err
}

// asked is sts as pmpi must see it: a nil slice from a caller who asked
// for statuses is too short, not MPI_STATUSES_IGNORE.
func asked(sts []Status) []Status {
	if sts == nil {
		return []Status{}
	}
	return sts
}

// TestAll reports whether every request has completed; if so they are
// completed and freed as by WaitAll.
func TestAll(reqs ...Request) (bool, error) {
	p := unwrap(reqs)
	done, err := api().TestAll(*p, nil)
	release(p)
	return done, err
}

// TestAllStatus is TestAll with each status put into sts, as WaitAllStatus.
func TestAllStatus(reqs []Request, sts []Status) (bool, error) {
	p := unwrap(reqs)
	done, err := api().TestAll(*p, asked(sts))
	release(p)
	return done, err
}

// WaitAny waits until one request completes, makes it the zero Request (a
// persistent one stays, inactive) and returns its index, or Undefined when
// every entry is the zero Request, one that a call completed before, or an
// inactive persistent one. A small send whose message left as Isend
// returned is returned at once, as complete.
func WaitAny(reqs []Request) (int, Status, error) {
	p := unwrap(reqs)
	i, st, err := api().WaitAny(*p)
	rewrap(reqs, p)
	return i, st, err
}

// TestAny is WaitAny without waiting; found is false when none has completed.
func TestAny(reqs []Request) (int, Status, bool, error) {
	p := unwrap(reqs)
	i, st, found, err := api().TestAny(*p)
	rewrap(reqs, p)
	return i, st, found, err
}

// WaitSome waits until at least one request completes, then completes
// every one that has: it writes their indices into indices and their
// statuses into sts (nil ignores them), makes each the zero Request (a
// persistent request stays, inactive) and returns how many, or Undefined
// when no request is active. indices and sts hold one entry per request,
// so that a loop of WaitSome allocates nothing.
func WaitSome(reqs []Request, indices []int, sts []Status) (int, error) {
	p := unwrap(reqs)
	n, err := api().WaitSome(*p, indices, sts)
	rewrap(reqs, p)
	return n, err
}

// scratch holds the slices that carry requests down to pmpi, so that a
// call on several requests allocates none.
var scratch = sync.Pool{New: func() any { return new([]*pmpi.Request) }}

// unwrap lists reqs for pmpi, nil for the inactive ones, in a slice from
// scratch: the caller gives it back.
func unwrap(reqs []Request) *[]*pmpi.Request {
	p := scratch.Get().(*[]*pmpi.Request)
	s := (*p)[:0]
	for _, r := range reqs {
		s = append(s, r.live())
	}
	*p = s
	return p
}

// rewrap makes inactive the entries that completed: pmpi set them to nil.
// It gives p back to scratch.
func rewrap(reqs []Request, p *[]*pmpi.Request) {
	for i, q := range *p {
		if q == nil {
			reqs[i] = Request{}
		}
	}
	release(p)
}

// release gives p back to scratch, holding no request.
func release(p *[]*pmpi.Request) {
	clear(*p)
	scratch.Put(p)
}
