package sm

import (
	"github.com/gompi/gompi/frameworks/coll"
)

// scan leaves at rank i the reduction of the blocks of ranks 0 to i.
func (m *module) scan(c coll.Comm, send, recv []byte, op coll.Op) error {
	multi := !m.fits(len(send))
	if multi && !m.roundsPay("scan", len(send)) {
		return m.toNext("scan", noRoot, len(send), func() error { return m.next.Scan(c, send, recv, op) })
	}
	err := coll.CheckOp(op, len(send))
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	m.announce("scan", noRoot, len(send), pathSegment)
	total := len(send)
	return m.fail(inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("scan", total, send[lo:hi], first)
		if err == nil {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.me, 0)
		}
		return err
	}))
}

// exscan leaves at rank i the reduction of ranks 0 to i-1; rank 0's recv
// is left as it was.
func (m *module) exscan(c coll.Comm, send, recv []byte, op coll.Op) error {
	multi := !m.fits(len(send))
	if multi && !m.roundsPay("exscan", len(send)) {
		return m.toNext("exscan", noRoot, len(send), func() error { return m.next.Exscan(c, send, recv, op) })
	}
	err := coll.CheckOp(op, len(send))
	if err == nil && m.me > 0 {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	m.announce("exscan", noRoot, len(send), pathSegment)
	total := len(send)
	return m.fail(inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("exscan", total, send[lo:hi], first)
		if err == nil && m.me > 0 {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.me-1, 0)
		}
		return err
	}))
}
