package sm

import (
	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

// alltoall: every rank's whole send buffer is its contribution; each rank
// reads its block of every other's. In rounds, each rank writes the next
// piece of its block for every rank.
func (m *module) alltoall(c coll.Comm, send, recv []byte) error {
	k := len(send) / m.n
	if m.started != "" {
		return m.finish("alltoall", func() error { return m.readAlltoall(recv, len(send), k, 0, k) })
	}
	err := coll.CheckLen("send", len(send), m.n*k, "a whole block per rank")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	total := len(send)
	multi, pc, err := m.route(c, "alltoall", total, true)
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("alltoall", noRoot, total, func() error { return m.next.Alltoall(c, send, recv) }))
	}
	m.announce("alltoall", noRoot, total, pathSegment)
	shm.CopyCached(recv[m.me*k:(m.me+1)*k], send[m.me*k:(m.me+1)*k])
	return pc.done(m.fail(inRounds(k, m.share(multi, k), multi, func(lo, hi int, first bool) error {
		if err := m.writeAlltoall(send, total, k, lo, hi); err != nil {
			return err
		}
		if err := m.agree(m.epoch&1, total, nil, first); err != nil {
			return err
		}
		return m.readAlltoall(recv, total, k, lo, hi)
	})))
}

// writeAlltoall begins an epoch of an alltoall of total bytes a rank in
// parts of k, writes bytes lo to hi of this rank's part for every other
// rank into its block, and raises it.
func (m *module) writeAlltoall(send []byte, total, k, lo, hi int) error {
	_, err := m.writeParts("alltoall", send, total, m.n, k, lo, hi, nil)
	return err
}

// writeParts begins an epoch of collective name whose contribution of
// total bytes is n parts of k, writes bytes lo to hi of each part into
// its place in this rank's block, and raises it. Part d goes to rank
// dests[d], or to rank d if dests is nil; a part for this rank or for no
// rank (a negative one) is not written, since no other rank reads it.
func (m *module) writeParts(name string, send []byte, total, n, k, lo, hi int, dests []int) (uint64, error) {
	p := m.begin(name)
	b, err := m.claim(p, total)
	if err != nil {
		return p, err
	}
	w := hi - lo
	for d := range n {
		to := d
		if dests != nil {
			to = dests[d]
		}
		if to != m.me && to >= 0 {
			m.w.Copy(b[d*w:(d+1)*w], send[d*k+lo:d*k+hi])
		}
	}
	m.raise(p)
	return p, nil
}

// readAlltoall copies bytes lo to hi of every other rank's part for this
// rank out of its block of the current epoch.
func (m *module) readAlltoall(recv []byte, total, k, lo, hi int) error {
	p, w := m.epoch&1, hi-lo
	for r := range m.n {
		if r == m.me {
			continue
		}
		data, err := m.read(r, p, total, m.n*w)
		if err != nil {
			return err
		}
		copy(recv[r*k+lo:r*k+hi], data[m.me*w:(m.me+1)*w])
	}
	return nil
}
