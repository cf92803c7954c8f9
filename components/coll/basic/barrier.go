package basic

import "github.com/gompi/gompi/frameworks/coll"

// barrier fans in to rank 0 and out again: every rank sends 0 an empty
// message, and 0 answers all once it has every one.
func barrier(c coll.Comm) error {
	n, me := c.Size(), c.Rank()
	if n == 1 {
		return nil
	}
	if me != 0 {
		err := c.Send(nil, 0, coll.TagBarrier)
		return coll.FirstError(err, c.Recv(nil, 0, coll.TagBarrier))
	}
	reqs := make([]coll.Request, 0, n-1)
	for r := 1; r < n; r++ {
		reqs = append(reqs, c.Irecv(nil, r, coll.TagBarrier))
	}
	err := c.Wait(reqs...)
	reqs = reqs[:0]
	for r := 1; r < n; r++ {
		reqs = append(reqs, c.Isend(coll.Payload(nil, err), r, coll.TagBarrier))
	}
	return coll.FirstError(err, c.Wait(reqs...))
}
