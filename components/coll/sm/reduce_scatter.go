package sm

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// reduceScatter: rank i's part of the result is counts[i] bytes from the
// sum of the counts before it; each rank reduces its part of every block.
func (m *module) reduceScatter(c coll.Comm, send, recv []byte, counts []int, op coll.Op) error {
	if len(counts) != m.n {
		return m.fail(fmt.Errorf("%d counts, want one per rank (%d)", len(counts), m.n))
	}
	if err := coll.CheckOp(op, 0); err != nil {
		return m.fail(err)
	}
	total, off := 0, 0
	for r, k := range counts {
		if k < 0 || k%op.ElemSize() != 0 {
			return m.fail(fmt.Errorf("the count of rank %d is %d bytes, want a whole number of %d-byte elements", r, k, op.ElemSize()))
		}
		if r == m.me {
			off = total
		}
		total += k
	}
	if !m.fits(total) && !m.roundsPay("reduce_scatter", total) {
		return m.toNext("reduce_scatter", noRoot, total, func() error { return m.next.ReduceScatter(c, send, recv, counts, op) })
	}
	err := coll.CheckLen("send", len(send), total, "the sum of the counts")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), counts[m.me], "this rank's count")
	}
	if err != nil {
		return m.fail(err)
	}
	m.announce("reduce_scatter", noRoot, total, pathSegment)
	return m.fail(m.reduceParts("reduce_scatter", send, recv, op, off))
}

func (m *module) reduceScatterBlock(c coll.Comm, send, recv []byte, op coll.Op) error {
	if !m.fits(m.n*len(recv)) && !m.roundsPay("reduce_scatter_block", m.n*len(recv)) {
		return m.toNext("reduce_scatter_block", noRoot, m.n*len(recv), func() error { return m.next.ReduceScatterBlock(c, send, recv, op) })
	}
	err := coll.CheckOp(op, len(recv))
	if err == nil {
		err = coll.CheckLen("send", len(send), m.n*len(recv), "the communicator's size times the receive buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	m.announce("reduce_scatter_block", noRoot, m.n*len(recv), pathSegment)
	return m.fail(m.reduceParts("reduce_scatter_block", send, recv, op, m.me*len(recv)))
}

// reduceParts is the reduce-scatters: every rank contributes its whole
// vector send, and reduces into recv its part, which starts at byte off,
// of everyone's.
func (m *module) reduceParts(name string, send, recv []byte, op coll.Op, off int) error {
	total := len(send)
	multi := !m.fits(total)
	return inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute(name, total, send[lo:hi], first)
		if a, b := max(lo, off), min(hi, off+len(recv)); err == nil && a < b {
			err = m.combine(p, total, send[lo:hi], recv[a-off:b-off], op, m.n-1, a-lo)
		}
		return err
	})
}
