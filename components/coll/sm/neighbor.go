package sm

import "github.com/gompi/gompi/frameworks/coll"

// The neighbourhood collectives of a Cartesian grid, in one epoch: every
// member writes its whole send buffer into its block and raises its word,
// then reads only its neighbours' blocks. A grid's lists are alike on every
// member and hold two neighbours per dimension, so each member's
// contribution has the same length, and what a member receives from its
// neighbour j is that neighbour's block j^1 (what the rank below sends up
// arrives from below; coll.Neighbors.SendOrder). A graph's neighbourhoods
// differ from rank to rank, and a contribution larger than a block goes to
// the next module. Up to a block the segment is at least as fast as
// basic's messages: on 2, 4 and 8 ranks an allgather of 64 or 256 KiB took
// a sixth to a half of their time, an alltoall of 16 or 64 KiB blocks
// 0.3-1.0 of it.

func (m *module) neighborAllgather(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	k := len(send)
	if err := coll.CheckLen("recv", len(recv), len(nb.Sources)*k, "the number of sources times the send buffer's length"); err != nil {
		return m.fail(err)
	}
	if !nb.Cart || !m.fits(k) {
		return m.toNext("neighbor_allgather", noRoot, k, func() error { return m.next.NeighborAllgather(c, nb, send, recv) })
	}
	return m.fail(m.neighbors("neighbor_allgather", nb, send, func(j int, b []byte) {
		copy(recv[j*k:(j+1)*k], b)
	}))
}

func (m *module) neighborAlltoall(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	n := len(nb.Dests)
	if n == 0 {
		return m.toNext("neighbor_alltoall", noRoot, 0, func() error { return m.next.NeighborAlltoall(c, nb, send, recv) })
	}
	k := len(send) / n
	err := coll.CheckLen("send", len(send), n*k, "a whole block per destination")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(nb.Sources)*k, "a block per source, as long as a send block")
	}
	if err != nil {
		return m.fail(err)
	}
	if !nb.Cart || len(nb.Sources) != n || !m.fits(len(send)) {
		return m.toNext("neighbor_alltoall", noRoot, len(send), func() error { return m.next.NeighborAlltoall(c, nb, send, recv) })
	}
	return m.fail(m.neighbors("neighbor_alltoall", nb, send, func(j int, b []byte) {
		i := j ^ 1
		copy(recv[j*k:(j+1)*k], b[i*k:(i+1)*k])
	}))
}

// neighbors runs a neighbourhood collective of a grid whose contribution
// is send: it calls got with each source's index and that source's
// contribution (this rank's own where it is its own neighbour).
func (m *module) neighbors(name string, nb coll.Neighbors, send []byte, got func(j int, b []byte)) error {
	total := len(send)
	m.announce(name, noRoot, total, pathSegment)
	p := m.begin(name)
	if err := m.write(p, total, send); err != nil {
		return err
	}
	m.raise(p)
	for j, r := range nb.Sources {
		switch {
		case r < 0: // not there: its block is left as it is
		case r == m.me:
			got(j, send)
		default:
			b, err := m.read(r, p, total, total)
			if err != nil {
				return err
			}
			got(j, b)
		}
	}
	return nil
}
