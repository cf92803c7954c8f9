package sm

import (
	"github.com/gompi/gompi/frameworks/coll"
)

// allreduceSplit is a round of an allreduce that splits the reduction:
// every rank reduces its share (an n-th of the piece's elements) of
// every block, in rank order, into recv and into its block of a second
// epoch, then copies every other rank's share out of theirs. The flat
// round has every rank reduce the whole piece from every block: n times
// the reads and the operations, which ranks that share CPUs pay in full.
// The result is the same expression, element by element.
func (m *module) allreduceSplit(total int, mine, recv []byte, op coll.Op, first bool) error {
	p, err := m.contribute("allreduce", total, mine, first)
	if err != nil {
		return err
	}
	es, elems := op.ElemSize(), len(mine)/op.ElemSize()
	share := func(r int) (lo, hi int) { return r * elems / m.n * es, (r + 1) * elems / m.n * es }
	lo, hi := share(m.me)
	if err := m.combine(p, total, mine, recv[lo:hi], op, m.n-1, lo); err != nil {
		return err
	}
	q := m.begin("allreduce")
	b, err := m.claim(q, total)
	if err != nil {
		return err
	}
	m.w.Copy(b[lo:hi], recv[lo:hi]) // lines the others read two epochs ago
	m.raise(q)
	for r := range m.n {
		if r == m.me {
			continue
		}
		lo, hi := share(r)
		data, err := m.read(r, q, total, hi)
		if err != nil {
			return err
		}
		copy(recv[lo:hi], data[lo:hi])
	}
	return nil
}

// contribute writes data, bytes of a contribution of total bytes, as this
// rank's block of a new epoch, a call of collective name, and raises it;
// in a call's first round of several it then checks that every member's
// count is alike (agree).
func (m *module) contribute(name string, total int, data []byte, first bool) (uint64, error) {
	p := m.begin(name)
	if err := m.write(p, total, data); err != nil {
		return p, err
	}
	m.raise(p)
	return p, m.agree(p, total, nil, first)
}

// combine reduces bytes off to off+len(recv) of the blocks of ranks 0 to
// last into recv, in rank order: recv becomes b0 ⊕ b1 ⊕ ... ⊕ b(last),
// the same expression on every rank, so that a non-commutative operation
// gets its operands in order. mine is this rank's block, a contribution of
// total bytes or a piece of it.
func (m *module) combine(p uint64, total int, mine, recv []byte, op coll.Op, last, off int) error {
	hi := off + len(recv)
	b, err := m.block(last, p, total, mine)
	if err != nil {
		return err
	}
	copy(recv, b[off:hi])
	for r := last - 1; r >= 0; r-- {
		if b, err = m.block(r, p, total, mine); err != nil {
			return err
		}
		op.Reduce(b[off:hi], recv)
	}
	return nil
}

// block is rank r's block of the current epoch, as long as mine, this
// rank's: a contribution of total bytes or a piece of it.
func (m *module) block(r int, p uint64, total int, mine []byte) ([]byte, error) {
	if r == m.me {
		return mine, nil
	}
	return m.read(r, p, total, len(mine))
}

func (m *module) reduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	if m.started != "" { // at the root: the others completed at their start
		return m.finish("reduce", func() error { return m.combine(m.epoch&1, len(send), send, recv, op, m.n-1, 0) })
	}
	err := coll.CheckRoot(c, root)
	if err == nil {
		err = coll.CheckOp(op, len(send))
	}
	if err == nil && m.me == root {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	total := len(send)
	// Timed only where tuned combines in rank order too: the same result.
	multi, pc, err := m.route(c, "reduce", total, root == 0 || !op.Commutative())
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("reduce", root, total, func() error { return m.next.Reduce(c, send, recv, op, root) }))
	}
	m.announce("reduce", root, total, pathSegment)
	return pc.done(m.fail(inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("reduce", total, send[lo:hi], first)
		if err == nil && m.me == root {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.n-1, 0)
		}
		return err
	})))
}

func (m *module) allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	if m.started != "" {
		return m.finish("allreduce", func() error { return m.combine(m.epoch&1, len(send), send, recv, op, m.n-1, 0) })
	}
	err := coll.CheckOp(op, len(send))
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	total := len(send)
	multi := !m.fits(total)
	if multi && !m.roundsPay("allreduce", total) {
		return m.toNext("allreduce", noRoot, total, func() error { return m.next.Allreduce(c, send, recv, op) })
	}
	m.announce("allreduce", noRoot, total, pathSegment)
	if m.splitPays(total) {
		return m.fail(inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
			return m.allreduceSplit(total, send[lo:hi], recv[lo:hi], op, first)
		}))
	}
	return m.fail(inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("allreduce", total, send[lo:hi], first)
		if err == nil {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.n-1, 0)
		}
		return err
	}))
}
