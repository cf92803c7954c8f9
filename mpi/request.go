package mpi

import "github.com/gompi/gompi/pmpi"

// Request is a pending non-blocking operation. The zero Request is
// inactive, like MPI_REQUEST_NULL: waiting on it returns at once.
type Request struct{ r *pmpi.Request }

// Wait blocks until the request completes. Waiting again returns the same result.
func (r Request) Wait() (Status, error) {
	if r.r == nil {
		return Status{Source: AnySource, Tag: AnyTag}, nil
	}
	return api().Wait(r.r)
}

// Test reports whether the request has completed, with its status if so.
func (r Request) Test() (Status, bool, error) {
	if r.r == nil {
		return Status{Source: AnySource, Tag: AnyTag}, true, nil
	}
	return api().Test(r.r)
}

// Cancel cancels a receive, or a send, that has not matched yet; its status
// then says Cancelled. One that matched completes normally (see pmpi.Cancel).
func (r Request) Cancel() error {
	if r.r == nil {
		return nil
	}
	return api().Cancel(r.r)
}

// Active reports whether the request is not the zero Request.
func (r Request) Active() bool { return r.r != nil }

// WaitAll waits for every request; failures give ErrInStatus, with each
// status carrying its own error.
func WaitAll(reqs ...Request) ([]Status, error) { return api().WaitAll(unwrap(reqs)) }

// TestAll reports whether every request has completed.
func TestAll(reqs ...Request) ([]Status, bool, error) { return api().TestAll(unwrap(reqs)) }

// WaitAny waits until one request completes, makes it the zero Request and
// returns its index, or Undefined when none is active.
func WaitAny(reqs []Request) (int, Status, error) {
	p := unwrap(reqs)
	i, st, err := api().WaitAny(p)
	rewrap(reqs, p)
	return i, st, err
}

// TestAny is WaitAny without waiting; found is false when none has completed.
func TestAny(reqs []Request) (int, Status, bool, error) {
	p := unwrap(reqs)
	i, st, found, err := api().TestAny(p)
	rewrap(reqs, p)
	return i, st, found, err
}

// WaitSome waits until at least one request completes and returns every
// completed one, making each the zero Request.
func WaitSome(reqs []Request) ([]int, []Status, error) {
	p := unwrap(reqs)
	idx, sts, err := api().WaitSome(p)
	rewrap(reqs, p)
	return idx, sts, err
}

func unwrap(reqs []Request) []*pmpi.Request {
	p := make([]*pmpi.Request, len(reqs))
	for i, r := range reqs {
		p[i] = r.r
	}
	return p
}

// rewrap copies back the entries that completed: pmpi set them to nil.
func rewrap(reqs []Request, p []*pmpi.Request) {
	for i := range reqs {
		reqs[i].r = p[i]
	}
}
