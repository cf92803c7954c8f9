package basic

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// alltoallw posts a receive from every other rank, then a send to every
// other rank, then waits for all, as alltoallvLinear does and as Open
// MPI's basic component does; the block to itself is a copy. Each block
// is a slice of its own, pmpi having resolved the datatypes.
func alltoallw(c coll.Comm, send, recv [][]byte) error {
	n, me := c.Size(), c.Rank()
	if len(send) != n || len(recv) != n {
		return fmt.Errorf("%d send blocks and %d receive blocks, want one of each per rank (%d)", len(send), len(recv), n)
	}
	// As in alltoallv, a rank whose own block disagrees still exchanges.
	err := coll.CheckOwnBlock(me, len(send[me]), len(recv[me]))
	reqs := make([]coll.Request, 0, 2*(n-1))
	for i := 1; i < n; i++ {
		r := (me - i + n) % n
		reqs = append(reqs, c.Irecv(recv[r], r, coll.TagAlltoallw))
	}
	for i := 1; i < n; i++ {
		r := (me + i) % n
		reqs = append(reqs, c.Isend(coll.Payload(send[r], err), r, coll.TagAlltoallw))
	}
	if err == nil {
		copy(recv[me], send[me])
	}
	return coll.FirstError(err, c.Wait(reqs...))
}

func neighborAlltoallw(c coll.Comm, nb coll.Neighbors, send, recv [][]byte) error {
	b, err := nb.AlltoallwBlocks(send, recv)
	if err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAlltoallw, &b)
}
