package sm

import (
	"slices"

	"github.com/gompi/gompi/frameworks/coll"
)

// gatherInto copies bytes lo to hi of every rank's contribution of total
// bytes, its block of the current epoch, into recv in rank order; mine is
// this rank's.
func (m *module) gatherInto(p uint64, total, lo, hi int, mine, recv []byte) error {
	for r := range m.n {
		b, err := m.block(r, p, total, mine)
		if err != nil {
			return err
		}
		copy(recv[r*total+lo:r*total+hi], b)
	}
	return nil
}

func (m *module) gather(c coll.Comm, send, recv []byte, root int) error {
	if m.started != "" { // at the root: the others completed at their start
		return m.finish("gather", func() error { return m.gatherInto(m.epoch&1, len(send), 0, len(send), send, recv) })
	}
	err := coll.CheckRoot(c, root)
	if err == nil && m.me == root {
		err = coll.CheckLen("recv", len(recv), m.n*len(send), "the communicator's size times the send buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	total := len(send)
	multi := !m.fits(total)
	if multi && !m.roundsPay("gather", total) {
		return m.toNext("gather", root, total, func() error { return m.next.Gather(c, send, recv, root) })
	}
	m.announce("gather", root, total, pathSegment)
	return m.fail(inRounds(total, piece(m.limit, multi, total, 1), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("gather", total, send[lo:hi], first)
		if err == nil && m.me == root {
			err = m.gatherInto(p, total, lo, hi, send[lo:hi], recv)
		}
		return err
	}))
}

func (m *module) allgather(c coll.Comm, send, recv []byte) error {
	if m.started != "" {
		return m.finish("allgather", func() error { return m.gatherInto(m.epoch&1, len(send), 0, len(send), send, recv) })
	}
	if err := coll.CheckLen("recv", len(recv), m.n*len(send), "the communicator's size times the send buffer's length"); err != nil {
		return m.fail(err)
	}
	total := len(send)
	multi, pc, err := m.route(c, "allgather", total, true)
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("allgather", noRoot, total, func() error { return m.next.Allgather(c, send, recv) }))
	}
	m.announce("allgather", noRoot, total, pathSegment)
	return pc.done(m.fail(inRounds(total, piece(m.limit, multi, total, 1), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("allgather", total, send[lo:hi], first)
		if err == nil {
			err = m.gatherInto(p, total, lo, hi, send[lo:hi], recv)
		}
		return err
	})))
}

// allgatherv: every rank knows every count, so the largest decides alike
// everywhere whether the call fits, and how many rounds it takes.
func (m *module) allgatherv(c coll.Comm, send, recv []byte, counts, displs []int) error {
	err := coll.CheckBlocks(c, "recv", counts, displs, len(recv))
	if err != nil {
		return m.fail(err)
	}
	most := slices.Max(counts)
	multi := !m.fits(most)
	if multi && !m.roundsPay("allgatherv", most) {
		return m.toNext("allgatherv", noRoot, most, func() error { return m.next.Allgatherv(c, send, recv, counts, displs) })
	}
	if err := coll.CheckLen("send", len(send), counts[m.me], "this rank's count"); err != nil {
		return m.fail(err)
	}
	m.announce("allgatherv", noRoot, most, pathSegment)
	return m.fail(inRounds(most, piece(m.limit, multi, most, 1), multi, func(lo, hi int, first bool) error {
		// Every member's count is its own: agree with counts, not len(send).
		p, err := m.contribute("allgatherv", len(send), send[min(lo, len(send)):min(hi, len(send))], false)
		if err == nil {
			err = m.agree(p, 0, counts, first)
		}
		for r := 0; r < m.n && err == nil; r++ {
			a, b := min(lo, counts[r]), min(hi, counts[r])
			var data []byte
			if r == m.me {
				data = send[a:b] // this rank's count is len(send)
			} else {
				data, err = m.read(r, p, counts[r], b-a)
			}
			copy(recv[displs[r]+a:displs[r]+b], data)
		}
		return err
	}))
}
