package sm

import (
	"github.com/gompi/gompi/frameworks/coll"
)

// scatter: the root's whole send buffer is its contribution; each rank
// reads its own block of it. Every rank's size is alike (the root's send
// is n times each recv), so all take the same path. In rounds, the root
// writes the next piece of every rank's block.
func (m *module) scatter(c coll.Comm, send, recv []byte, root int) error {
	err := coll.CheckRoot(c, root)
	if err == nil && m.me == root {
		err = coll.CheckLen("send", len(send), m.n*len(recv), "the communicator's size times the receive buffer's length")
	}
	if err != nil {
		return m.fail(err)
	}
	k := len(recv)
	total := m.n * k
	multi := !m.fits(total)
	if multi && !m.roundsPay("scatter", total) {
		return m.toNext("scatter", root, total, func() error { return m.next.Scatter(c, send, recv, root) })
	}
	m.announce("scatter", root, total, pathSegment)
	if m.me == root {
		copy(recv, send[root*k:(root+1)*k])
	}
	return m.fail(inRounds(k, m.share(multi, k), multi, func(lo, hi int, first bool) error {
		p := m.begin("scatter")
		w := hi - lo
		if m.me == root || first {
			b, err := m.claim(p, total)
			if err != nil {
				return err
			}
			if m.me == root {
				for r := range m.n {
					if r != root {
						m.w.Copy(b[r*w:(r+1)*w], send[r*k+lo:r*k+hi])
					}
				}
			}
			m.raise(p)
			if err := m.agree(p, total, nil, first); err != nil || m.me == root {
				return err
			}
		}
		data, err := m.read(root, p, total, m.n*w)
		if err == nil {
			copy(recv[lo:hi], data[m.me*w:(m.me+1)*w])
		}
		if !first {
			m.pass(p, total, err)
		}
		return err
	}))
}
