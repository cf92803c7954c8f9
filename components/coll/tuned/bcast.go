package tuned

import (
	"github.com/gompi/gompi/frameworks/coll"
)

func (m *module) bcast(c coll.Comm, buf []byte, root int) error {
	if err := checkRoot(c, root); err != nil {
		return wrap(bcastAlgs, m.cfg.bcast, err)
	}
	ch := m.choose(c, bcastAlgs, m.cfg.bcast, len(buf), decideBcast(c.Size(), len(buf), m.cfg.bcastSegsize, m.oversubscribed))
	m.trace(c, bcastAlgs, ch, len(buf))
	alg := ch.alg
	if c.Size() == 1 || len(buf) == 0 {
		return nil // every rank knows the length: nothing to send
	}
	var err error
	switch alg {
	case bcastLinear:
		err = bcastLinearRun(c, buf, root, coll.TagBcast)
	case bcastPipeline:
		err = bcastPipelineRun(c, buf, root, ch.segsizeOr(m.cfg.bcastSegsize), coll.TagBcast)
	case bcastScatterAllgather:
		err = bcastScatterAllgatherRun(c, buf, root, coll.TagBcast)
	default:
		err = bcastBinomialRun(c, buf, root, coll.TagBcast, nil)
	}
	return wrap(bcastAlgs, alg, err)
}

func bcastLinearRun(c coll.Comm, buf []byte, root, tag int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		return c.Recv(buf, root, tag)
	}
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for i := 1; i < n; i++ {
		reqs = append(reqs, c.Isend(buf, (root+i)%n, tag))
	}
	return waitAll(reqs)
}

// bcastBinomialRun: in virtual ranks rotated so that the root is 0, rank v
// receives from v minus its lowest bit and sends to v+2^k for every 2^k
// below that bit, the largest subtree first. err is the rank's error
// before the call, if any (see payload).
func bcastBinomialRun(c coll.Comm, buf []byte, root, tag int, err error) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	top := pof2Ceil(n)
	if v != 0 {
		top = lowBit(v)
		err = coll.FirstError(err, c.Recv(buf, (v-top+root)%n, tag))
	}
	out := coll.Payload(buf, err)
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for mask := top >> 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			reqs = append(reqs, c.Isend(out, (v+mask+root)%n, tag))
		}
	}
	return coll.FirstError(err, waitAll(reqs))
}

// bcastPipelineRun streams buf down a chain in virtual rank order, in
// segments of segsize: a rank forwards one segment while the next arrives.
func bcastPipelineRun(c coll.Comm, buf []byte, root, segsize, tag int) error {
	n, r := c.Size(), c.Rank()
	if segsize <= 0 || segsize > len(buf) {
		segsize = len(buf)
	}
	v := (r - root + n) % n
	prev, next := (r-1+n)%n, (r+1)%n
	nseg := (len(buf) + segsize - 1) / segsize
	seg := func(k int) []byte { return buf[k*segsize : min((k+1)*segsize, len(buf))] }

	var recvsBuf, sendsBuf [stackReqs]coll.Request
	recvs, sends := recvsBuf[:0], sendsBuf[:0]
	if v != 0 {
		for k := range nseg {
			recvs = append(recvs, c.Irecv(seg(k), prev, tag))
		}
	}
	var err error
	for k := 0; k < nseg; k++ {
		if v != 0 {
			err = coll.FirstError(err, recvs[k].Wait())
		}
		if v != n-1 {
			sends = append(sends, c.Isend(coll.Payload(seg(k), err), next, tag))
		}
	}
	return coll.FirstError(err, waitAll(sends))
}

// bcastScatterAllgatherRun is van de Geijn's bcast: the root scatters n
// blocks down a binomial tree, then a ring allgather completes every rank's
// copy. Each byte crosses about 2 links instead of log2 n.
func bcastScatterAllgatherRun(c coll.Comm, buf []byte, root, tag int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	bs := (len(buf) + n - 1) / n
	blocks := func(a, b int) []byte { // blocks [a, b) of the virtual ranks
		return buf[min(a*bs, len(buf)):min(b*bs, len(buf))]
	}
	real := func(u int) int { return (u + root) % n }

	top := pof2Ceil(n)
	var err error
	if v != 0 {
		top = lowBit(v)
		err = c.Recv(blocks(v, min(v+top, n)), real(v-top), tag)
	}
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for mask := top >> 1; mask > 0; mask >>= 1 {
		if child := v + mask; child < n {
			reqs = append(reqs, c.Isend(coll.Payload(blocks(child, min(child+mask, n)), err), real(child), tag))
		}
	}
	err = coll.FirstError(err, waitAll(reqs))
	left, right := real((v-1+n)%n), real((v+1)%n)
	for s := 0; s < n-1; s++ {
		si, ri := (v-s+n)%n, (v-s-1+n)%n
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(blocks(si, si+1), err), right, blocks(ri, ri+1), left, tag))
	}
	return err
}
