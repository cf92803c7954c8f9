package tuned

import (
	"fmt"
	"math/bits"

	"github.com/gompi/gompi/frameworks/coll"
)

const tagAllreduce = coll.TagAllreduce

func (m *module) allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	forced := m.cfg.allreduce
	es := op.ElemSize()
	if es <= 0 || len(send)%es != 0 || len(recv) != len(send) {
		return wrap(allreduceAlgs, forced, fmt.Errorf("%d bytes sent, %d received: want the same whole elements of %d bytes",
			len(send), len(recv), es))
	}
	builtin := decideAllreduce(c.Size(), len(send), len(send)/es, op.Commutative(), m.oversubscribed)
	ch := m.choose(c, allreduceAlgs, forced, len(send), builtin)
	if ch.alg == allreduceRing && !op.Commutative() {
		ch = m.fallback(c, allreduceAlgs, ch, allreduceAlgs.algName(ch.alg), builtin, "the operation is not commutative")
	}
	m.trace(c, allreduceAlgs, ch, len(send))
	alg := ch.alg
	copy(recv, send)
	if c.Size() == 1 {
		return nil
	}
	var err error
	switch alg {
	case allreduceReduceBcast:
		err = m.allreduceReduceBcastRun(c, send, recv, op)
	case allreduceRabenseifner:
		err = m.allreduceRabenseifnerRun(c, send, recv, op)
	case allreduceRing:
		err = m.allreduceRingRun(c, send, recv, op, ch.segsizeOr(m.cfg.allreduceSegsize))
	default:
		err = m.allreduceRecursiveDoublingRun(c, recv, op)
	}
	return wrap(allreduceAlgs, alg, err)
}

// allreduceReduceBcastRun is a binomial reduce to rank 0 and a binomial
// bcast from it.
func (m *module) allreduceReduceBcastRun(c coll.Comm, send, recv []byte, op coll.Op) error {
	err := m.reduceBinomialRun(c, send, recv, op, 0, tagAllreduce)
	if len(recv) == 0 {
		return err
	}
	return bcastBinomialRun(c, recv, 0, tagAllreduce, err)
}

// allreduceRecursiveDoublingRun: survivors (see fold) exchange whole
// vectors at distance 1, 2, 4...; the partners' groups are adjacent, so
// combining with the lower group's data as the lower operand keeps rank
// order, and both partners compute the very same expression.
func (m *module) allreduceRecursiveDoublingRun(c coll.Comm, recv []byte, op coll.Op) error {
	f := newFold(c.Size())
	tmp := m.pool.get(len(recv))
	spare := tmp
	defer m.pool.put(spare)
	v, err := foldIn(c, f, recv, tmp, op, tagAllreduce)
	if v >= 0 {
		acc := recv
		for mask := 1; mask < f.pof2; mask <<= 1 {
			p := f.rank(v ^ mask)
			err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(acc, err), p, tmp, p, tagAllreduce))
			if err != nil {
				continue
			}
			if v&mask != 0 {
				op.Reduce(tmp, acc)
			} else {
				op.Reduce(acc, tmp)
				acc, tmp = tmp, acc
			}
		}
		if len(acc) > 0 && &acc[0] != &recv[0] {
			copy(recv, acc)
		}
	}
	return coll.FirstError(err, foldOut(c, f, recv, tagAllreduce, err))
}

// allreduceRabenseifnerRun reduce-scatters by recursive halving and
// allgathers by recursive doubling: about 2 vectors move per rank whatever
// the size, in 2 log2 n steps. Rank order holds (see halving).
func (m *module) allreduceRabenseifnerRun(c coll.Comm, send, recv []byte, op coll.Op) error {
	f := newFold(c.Size())
	tmp := m.pool.get(len(recv))
	defer m.pool.put(tmp)
	v, err := foldIn(c, f, recv, tmp, op, tagAllreduce)
	if v >= 0 {
		var steps [bits.UintSize]window
		var parents []window
		var w window
		parents, w, err = halving(c, f, v, recv, f.unfolded(c.Rank(), send), tmp, op, tagAllreduce, steps[:0], err)
		err = doubling(c, f, v, recv, parents, w, op.ElemSize(), tagAllreduce, err)
	}
	return coll.FirstError(err, foldOut(c, f, recv, tagAllreduce, err))
}

// allreduceRingRun cuts the vector into n chunks at element boundaries;
// n-1 steps around the ring reduce-scatter them, n-1 more allgather them.
// Within a step a chunk travels in segments of segsize, so that
// reducing one overlaps receiving the next. Chunk i is combined starting
// from rank i around the ring, not in rank order: commutative operations
// only.
func (m *module) allreduceRingRun(c coll.Comm, send, recv []byte, op coll.Op, segsize int) error {
	n, r := c.Size(), c.Rank()
	es := op.ElemSize()
	count := len(recv) / es
	chunkOf := func(b []byte, i int) []byte { return b[i*count/n*es : (i+1)*count/n*es] }
	chunk := func(i int) []byte { return chunkOf(recv, i) }
	seg := segsize / es * es
	tmp := m.pool.get((count + n - 1) / n * es)
	defer m.pool.put(tmp)
	left, right := (r-1+n)%n, (r+1)%n

	var err error
	for s := 0; s < n-1; s++ {
		out, in := chunk((r-s+n)%n), chunk((r-s-1+n)%n)
		if s == 0 {
			out = chunkOf(send, r) // see ownBlockFirst
		}
		err = ringReduceStep(c, out, in, tmp[:len(in)], seg, left, right, op, err)
	}
	for s := 0; s < n-1; s++ {
		out, in := chunk((r+1-s+n)%n), chunk((r-s+n)%n)
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(out, err), right, in, left, tagAllreduce))
	}
	return err
}

// ringReduceStep sends out to the right and combines the chunk from the
// left into in, segment by segment as they arrive. It takes and returns
// the rank's first error.
func ringReduceStep(c coll.Comm, out, in, tmp []byte, seg, left, right int, op coll.Op, err error) error {
	pieces := func(b []byte) [][]byte {
		// An empty chunk is one empty message, not none: where the
		// ranks' counts disagree, a rank whose chunk is empty then
		// still matches its peer's message.
		if seg <= 0 || seg >= len(b) {
			return [][]byte{b}
		}
		var ps [][]byte
		for off := 0; off < len(b); off += seg {
			ps = append(ps, b[off:min(off+seg, len(b))])
		}
		return ps
	}
	ins, tins := pieces(in), pieces(tmp)
	recvs := make([]coll.Request, len(tins))
	for k, t := range tins {
		recvs[k] = c.Irecv(t, left, tagAllreduce)
	}
	var sendsBuf [stackReqs]coll.Request
	sends := sendsBuf[:0]
	for _, o := range pieces(out) {
		sends = append(sends, c.Isend(coll.Payload(o, err), right, tagAllreduce))
	}
	for k := range recvs {
		err = coll.FirstError(err, recvs[k].Wait())
		if err == nil {
			op.Reduce(tins[k], ins[k])
		}
	}
	return coll.FirstError(err, waitAll(sends))
}
