package sm

import "github.com/gompi/gompi/frameworks/coll"

// The neighbourhood collectives of a Cartesian grid, an epoch a round:
// every member writes its send buffer (a round's piece of it) into its
// block and raises its word, then reads only its neighbours' blocks. An
// alltoall's parts for the member itself (a dimension of one rank) or for
// no neighbour are not written: on 2 ranks, blocks of 256 KiB-1 MiB took
// 0.72-0.81 of the time they took written. A grid's lists are alike on
// every member and hold two neighbours per dimension, so each member's
// contribution has the same length, and what a member receives from its
// neighbour j is that neighbour's block j^1 (what the rank below sends up
// arrives from below; coll.Neighbors.SendOrder). A graph's neighbourhoods
// differ from rank to rank and go to the next module. The segment is at least as fast as
// basic's messages: on 2, 4 and 8 ranks an allgather of 64 or 256 KiB
// took a sixth to a half of their time, an alltoall of 16 or 64 KiB blocks
// 0.3-1.0 of it. A contribution larger than a block goes in rounds
// (rounds.go), an alltoall's with a piece of every destination's block in
// each.

func (m *module) neighborAllgather(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	k := len(send)
	if err := coll.CheckLen("recv", len(recv), len(nb.Sources)*k, "the number of sources times the send buffer's length"); err != nil {
		return m.fail(err)
	}
	multi := !m.fits(k)
	if !nb.Cart || multi && !m.roundsPay("neighbor_allgather", k) {
		return m.toNext("neighbor_allgather", noRoot, k, func() error { return m.next.NeighborAllgather(c, nb, send, recv) })
	}
	m.announce("neighbor_allgather", noRoot, k, pathSegment)
	return m.fail(inRounds(k, piece(m.limit, multi, k, 1), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("neighbor_allgather", k, send[lo:hi], first)
		for j, r := range nb.Sources {
			if err != nil {
				return err
			}
			switch {
			case r < 0: // not there: its block is left as it is
			case r == m.me:
				copy(recv[j*k+lo:j*k+hi], send[lo:hi])
			default:
				var b []byte
				if b, err = m.read(r, p, k, hi-lo); err == nil {
					copy(recv[j*k+lo:j*k+hi], b)
				}
			}
		}
		return err
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
	total := len(send)
	multi := !m.fits(total)
	w := k
	if multi {
		w = m.limit / n &^ (line - 1) // a round's piece of each block: whole lines
	}
	if !nb.Cart || len(nb.Sources) != n || multi && (!m.roundsPay("neighbor_alltoall", total) || w == 0) {
		return m.toNext("neighbor_alltoall", noRoot, total, func() error { return m.next.NeighborAlltoall(c, nb, send, recv) })
	}
	m.announce("neighbor_alltoall", noRoot, total, pathSegment)
	return m.fail(inRounds(k, w, multi, func(lo, hi int, first bool) error {
		p, err := m.writeParts("neighbor_alltoall", send, total, n, k, lo, hi, nb.Dests)
		if err == nil {
			err = m.agree(p, total, nil, first)
		}
		for j, r := range nb.Sources {
			if err != nil {
				return err
			}
			i := j ^ 1 // what source j sends this way
			switch {
			case r < 0:
			case r == m.me:
				copy(recv[j*k+lo:j*k+hi], send[i*k+lo:i*k+hi])
			default:
				var b []byte
				if b, err = m.read(r, p, total, (i+1)*(hi-lo)); err == nil {
					copy(recv[j*k+lo:j*k+hi], b[i*(hi-lo):])
				}
			}
		}
		return err
	}))
}
