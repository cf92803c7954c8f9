package sm

import (
	"github.com/gompi/gompi/frameworks/coll"
)

func (m *module) bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return m.fail(err)
	}
	total := len(buf)
	multi, pc, err := m.route(c, "bcast", total, true)
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("bcast", root, total, func() error { return m.next.Bcast(c, buf, root) }))
	}
	m.announce("bcast", root, total, pathSegment)
	return pc.done(m.fail(inRounds(total, piece(m.limit, multi, total, 1), multi, func(lo, hi int, first bool) error {
		p := m.begin("bcast")
		if m.me == root {
			if err := m.write(p, total, buf[lo:hi]); err != nil {
				return err
			}
			m.raise(p)
			return m.agree(p, total, nil, first)
		}
		if first { // only to say its count (agree)
			if _, err := m.claim(p, total); err != nil {
				return err
			}
			m.raise(p)
			if err := m.agree(p, total, nil, first); err != nil {
				return err
			}
		}
		data, err := m.read(root, p, total, hi-lo)
		if err == nil {
			copy(buf[lo:hi], data)
		}
		if !first {
			m.pass(p, total, err) // even after a mismatch: the root's next write waits for it
		}
		return err
	})))
}
