package tuned

import (
	"fmt"
	"math/bits"

	"github.com/gompi/gompi/frameworks/coll"
)

func (m *module) reduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	alg := m.cfg.reduce
	if err := checkReduce(c, send, recv, op, root); err != nil {
		return wrap(reduceAlgs, alg, err)
	}
	ch := m.choose(c, reduceAlgs, alg, len(send), decideReduce(c.Size(), len(send), op.Commutative(), m.oversubscribed))
	m.trace(c, reduceAlgs, ch, len(send))
	alg = ch.alg
	if c.Size() == 1 {
		copy(recv, send)
		return nil
	}
	var err error
	switch alg {
	case reduceLinear:
		err = m.reduceLinearRun(c, send, recv, op, root)
	case reduceRabenseifner:
		err = m.reduceRabenseifnerRun(c, send, recv, op, root)
	default:
		err = m.reduceBinomialRun(c, send, recv, op, root, coll.TagReduce)
	}
	return wrap(reduceAlgs, alg, err)
}

func checkReduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	if err := checkRoot(c, root); err != nil {
		return err
	}
	if es := op.ElemSize(); es <= 0 || len(send)%es != 0 {
		return fmt.Errorf("%d bytes are not whole elements of %d bytes", len(send), es)
	}
	if c.Rank() == root && len(recv) != len(send) {
		return fmt.Errorf("receive buffer of %d bytes for %d bytes sent", len(recv), len(send))
	}
	return nil
}

// reduceLinearRun: the root takes every rank's operand, from the highest
// down, and combines each as the lower operand into the running result.
func (m *module) reduceLinearRun(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	n, r := c.Size(), c.Rank()
	const tag = coll.TagReduce
	if r != root {
		return c.Send(send, root, tag)
	}
	tmp := m.pool.get(len(send))
	defer m.pool.put(tmp)
	var err error
	if root == n-1 {
		copy(recv, send)
	} else {
		err = c.Recv(recv, n-1, tag)
	}
	for i := n - 2; i >= 0; i-- {
		in := send
		if i != root {
			err = coll.FirstError(err, c.Recv(tmp, i, tag))
			in = tmp
		}
		if err == nil {
			op.Reduce(in, recv)
		}
	}
	return err
}

// reduceBinomialRun: in virtual ranks, rank v takes the partial results of
// the subtrees v+1, v+2, v+4... in turn; each covers the virtual ranks just
// above what v holds, so v's result is the lower operand. A commutative
// operation uses the tree rotated to the root; another one the tree of rank
// 0, whose virtual ranks are the real ones, and rank 0 then sends the result
// to the root.
func (m *module) reduceBinomialRun(c coll.Comm, send, recv []byte, op coll.Op, root, tag int) error {
	n, r := c.Size(), c.Rank()
	treeRoot := root
	if !op.Commutative() {
		treeRoot = 0
	}
	v := (r - treeRoot + n) % n
	acc := send // read-only until the first child's result arrives
	var tmp, spare []byte
	var owned [2][]byte // the scratch buffers, whichever role they play
	defer func() {
		m.pool.put(owned[0])
		m.pool.put(owned[1])
	}()
	var err error
	for mask := 1; mask < n; mask <<= 1 {
		if v&mask != 0 {
			err = coll.FirstError(err, c.Send(coll.Payload(acc, err), (v-mask+treeRoot)%n, tag))
			if r != root {
				return err
			}
			return coll.FirstError(err, c.Recv(recv, treeRoot, tag)) // a root other than 0, of a non-commutative operation
		}
		child := v + mask
		if child >= n {
			continue
		}
		if v == 0 && treeRoot == root && 2*mask >= n {
			// The root's last partial result goes straight into recv, the
			// higher operand there: recv = acc ⊕ recv, with no copy after
			// (a 2-rank reduce of 1 MiB: a third of its time).
			err = coll.FirstError(err, c.Recv(recv, (child+treeRoot)%n, tag))
			if err == nil {
				op.Reduce(acc, recv)
			}
			return err
		}
		if tmp == nil {
			tmp = m.pool.get(len(send))
			owned[0] = tmp
		}
		err = coll.FirstError(err, c.Recv(tmp, (child+treeRoot)%n, tag))
		if err != nil {
			continue
		}
		op.Reduce(acc, tmp)
		if spare == nil { // acc was send: take a second buffer
			spare = m.pool.get(len(send))
			owned[1] = spare
			acc, tmp = tmp, spare
		} else {
			acc, tmp = tmp, acc
		}
	}
	// v == 0: acc is the result.
	if treeRoot == root {
		copy(recv, acc)
		return err
	}
	return coll.FirstError(err, c.Send(coll.Payload(acc, err), root, tag))
}

// reduceRabenseifnerRun reduce-scatters by recursive halving, then gathers
// the pieces to the root along the same pairs in reverse. The operands stay
// in rank order throughout, so it serves non-commutative operations too.
func (m *module) reduceRabenseifnerRun(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	r := c.Rank()
	const tag = coll.TagReduce
	f := newFold(c.Size())
	// A root that sits out gets the result from the rank it folded into.
	holder := root
	if f.vrank(root) < 0 {
		holder = root + 1
	}
	if r == root && holder != root {
		err := c.Send(send, root+1, tag)
		return coll.FirstError(err, c.Recv(recv, holder, tag))
	}
	acc, tmp := m.pool.get(len(send)), m.pool.get(len(send))
	defer func() {
		m.pool.put(acc)
		m.pool.put(tmp)
	}()
	copy(acc, send)
	v, err := foldIn(c, f, acc, tmp, op, tag)
	if v < 0 {
		return err
	}
	var steps [bits.UintSize]window
	parents, w, err := halving(c, f, v, acc, f.unfolded(r, send), tmp, op, tag, steps[:0], err)
	es, vh := op.ElemSize(), f.vrank(holder)
	for i := len(parents) - 1; i >= 0; i-- {
		mask := 1 << i
		p := f.rank(v ^ mask)
		if v&mask != vh&mask {
			return coll.FirstError(err, c.Send(coll.Payload(w.bytes(acc, es), err), p, tag))
		}
		lower, upper := parents[i].halves()
		other := upper
		if v&mask != 0 {
			other = lower
		}
		err = coll.FirstError(err, c.Recv(other.bytes(acc, es), p, tag))
		w = parents[i]
	}
	if holder != root {
		return coll.FirstError(err, c.Send(coll.Payload(acc, err), root, tag))
	}
	copy(recv, acc)
	return err
}

// foldIn hands the data of the ranks that sit out (see fold) to their odd
// neighbour, which combines it as the lower operand into acc. It returns
// the rank's survivor number, -1 if it sits out, and its error: a rank
// goes on after one (see payload).
func foldIn(c coll.Comm, f fold, acc, tmp []byte, op coll.Op, tag int) (int, error) {
	r := c.Rank()
	v := f.vrank(r)
	if r < 2*f.rem {
		if v < 0 {
			return v, c.Send(acc, r+1, tag)
		}
		if err := c.Recv(tmp[:len(acc)], r-1, tag); err != nil {
			return v, err
		}
		op.Reduce(tmp[:len(acc)], acc)
	}
	return v, nil
}

// foldOut gives the ranks that sat out the result of their odd neighbour,
// or poison once err is set.
func foldOut(c coll.Comm, f fold, acc []byte, tag int, err error) error {
	r := c.Rank()
	if r >= 2*f.rem {
		return nil
	}
	if r%2 == 1 {
		return c.Send(coll.Payload(acc, err), r-1, tag)
	}
	return c.Recv(acc, r+1, tag)
}

// halving is the reduce-scatter by recursive halving among the survivors:
// at distance 1, 2, 4... partners split their current window, the one
// whose bit is clear keeping the lower half, and combine the half they
// keep. Partners at each step hold adjacent, aligned groups of ranks, the
// lower group being the lower operand, so rank order holds. It returns the
// window before each step (appended to parents, which the caller may
// keep on its stack) and the survivor's final window, whose elements of acc
// hold the reduction over all ranks. src, if not nil, is the caller's
// buffer that acc is a copy of: the first step sends from it, as
// ownBlockFirst explains. It takes and returns the rank's first error.
func halving(c coll.Comm, f fold, v int, acc, src, tmp []byte, op coll.Op, tag int, parents []window, err error) ([]window, window, error) {
	es := op.ElemSize()
	w := window{0, len(acc) / es}
	for mask := 1; mask < f.pof2; mask <<= 1 {
		p := f.rank(v ^ mask)
		keep, give := w.halves()
		if v&mask != 0 {
			keep, give = give, keep
		}
		parents = append(parents, w)
		theirs, mine := keep.bytes(tmp, es), keep.bytes(acc, es)
		out := give.bytes(acc, es)
		if mask == 1 && src != nil {
			out = give.bytes(src, es)
		}
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(out, err), p, theirs, p, tag))
		if err == nil {
			if v&mask != 0 || op.Commutative() {
				op.Reduce(theirs, mine)
			} else {
				op.Reduce(mine, theirs)
				copy(mine, theirs)
			}
		}
		w = keep
	}
	return parents, w, err
}

// doubling is the allgather that undoes halving: partners swap the halves
// of each parent window, the last split first. It takes and returns the
// rank's first error.
func doubling(c coll.Comm, f fold, v int, acc []byte, parents []window, w window, es, tag int, err error) error {
	for i := len(parents) - 1; i >= 0; i-- {
		mask := 1 << i
		p := f.rank(v ^ mask)
		lower, upper := parents[i].halves()
		other := upper
		if v&mask != 0 {
			other = lower
		}
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(w.bytes(acc, es), err), p, other.bytes(acc, es), p, tag))
		w = parents[i]
	}
	return err
}
