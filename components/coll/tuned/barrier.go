package tuned

import (
	"github.com/gompi/gompi/frameworks/coll"
)

const tagBarrier = coll.TagBarrier

func (m *module) barrier(c coll.Comm) error {
	ch := m.choose(c, barrierAlgs, m.cfg.barrier, 0, decideBarrier(c.Size(), m.oversubscribed))
	m.trace(c, barrierAlgs, ch, 0)
	alg := ch.alg
	var err error
	switch alg {
	case barrierLinear:
		err = barrierLinearRun(c)
	case barrierDissemination:
		err = barrierDisseminationRun(c)
	default:
		err = barrierRecursiveDoublingRun(c)
	}
	return wrap(barrierAlgs, alg, err)
}

// barrierLinearRun: every rank tells rank 0 it arrived; rank 0 answers all
// once it heard from everyone.
func barrierLinearRun(c coll.Comm) error {
	n, r := c.Size(), c.Rank()
	if n == 1 {
		return nil
	}
	if r != 0 {
		err := c.Send(nil, 0, tagBarrier)
		return coll.FirstError(err, c.Recv(nil, 0, tagBarrier))
	}
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for i := 1; i < n; i++ {
		reqs = append(reqs, c.Irecv(nil, i, tagBarrier))
	}
	err := waitAll(reqs)
	reqs = reqs[:0]
	for i := 1; i < n; i++ {
		reqs = append(reqs, c.Isend(coll.Payload(nil, err), i, tagBarrier))
	}
	return coll.FirstError(err, waitAll(reqs))
}

// barrierDisseminationRun: in round k every rank signals rank+2^k and
// waits for rank-2^k; after ceil(log2 n) rounds each has heard, directly or
// not, from all.
func barrierDisseminationRun(c coll.Comm) error {
	n, r := c.Size(), c.Rank()
	var err error
	for k := 1; k < n; k <<= 1 {
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(nil, err), (r+k)%n, nil, (r-k+n)%n, tagBarrier))
	}
	return err
}

// barrierRecursiveDoublingRun: pairwise exchanges over the largest power
// of two; each extra rank r >= pof2 first checks in with r-pof2 and is
// released by it at the end.
func barrierRecursiveDoublingRun(c coll.Comm) error {
	n, r := c.Size(), c.Rank()
	pof2 := pof2Floor(n)
	if r >= pof2 {
		err := c.Send(nil, r-pof2, tagBarrier)
		return coll.FirstError(err, c.Recv(nil, r-pof2, tagBarrier))
	}
	extra := r+pof2 < n
	var err error
	if extra {
		err = c.Recv(nil, r+pof2, tagBarrier)
	}
	for mask := 1; mask < pof2; mask <<= 1 {
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(nil, err), r^mask, nil, r^mask, tagBarrier))
	}
	if extra {
		err = coll.FirstError(err, c.Send(coll.Payload(nil, err), r+pof2, tagBarrier))
	}
	return err
}
