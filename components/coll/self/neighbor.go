package self

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// With one rank, each neighbour of a topology is that rank or not there:
// each block the rank sends itself is copied to the receive that would
// match it, in the order messages match.

func neighborAllgather(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	n := len(send)
	if err := coll.CheckLen("recv", len(recv), n*len(nb.Sources), "a block as long as send per source"); err != nil {
		return err
	}
	return copyNeighbors(c, nb,
		func(int) []byte { return send },
		func(j int) []byte { return recv[j*n : (j+1)*n] })
}

func neighborAllgatherv(c coll.Comm, nb coll.Neighbors, send, recv []byte, counts, displs []int) error {
	if err := coll.CheckNeighborBlocks("recv", counts, displs, len(nb.Sources), len(recv)); err != nil {
		return err
	}
	return copyNeighbors(c, nb,
		func(int) []byte { return send },
		func(j int) []byte { return recv[displs[j] : displs[j]+counts[j]] })
}

func neighborAlltoall(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	nd, ns := len(nb.Dests), len(nb.Sources)
	if nd != ns || len(send) != len(recv) || (nd > 0 && len(send)%nd != 0) {
		return fmt.Errorf("send holds %d bytes for %d destinations and recv %d for %d sources, want blocks of one size", len(send), nd, len(recv), ns)
	}
	n := 0
	if nd > 0 {
		n = len(send) / nd
	}
	return copyNeighbors(c, nb,
		func(i int) []byte { return send[i*n : (i+1)*n] },
		func(j int) []byte { return recv[j*n : (j+1)*n] })
}

func neighborAlltoallv(c coll.Comm, nb coll.Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if err := coll.CheckNeighborBlocks("send", scounts, sdispls, len(nb.Dests), len(send)); err != nil {
		return err
	}
	if err := coll.CheckNeighborBlocks("recv", rcounts, rdispls, len(nb.Sources), len(recv)); err != nil {
		return err
	}
	return copyNeighbors(c, nb,
		func(i int) []byte { return send[sdispls[i] : sdispls[i]+scounts[i]] },
		func(j int) []byte { return recv[rdispls[j] : rdispls[j]+rcounts[j]] })
}

// copyNeighbors copies each block the rank sends itself to the receive
// that would match it (coll.Neighbors.Self).
func copyNeighbors(c coll.Comm, nb coll.Neighbors, sendBlock, recvBlock func(int) []byte) error {
	if err := coll.CheckNeighbors(c, nb); err != nil {
		return err
	}
	var err error
	sends, recvs := nb.Self(0, func(i, j int) {
		src, dst := sendBlock(i), recvBlock(j)
		if len(src) != len(dst) && err == nil {
			err = fmt.Errorf("destination %d's block of %d bytes goes to source %d's of %d: the sizes differ", i, len(src), j, len(dst))
		}
		copy(dst, src)
	})
	if sends != recvs {
		return fmt.Errorf("rank 0 sends itself %d blocks but receives %d: the topology's sources and destinations disagree", sends, recvs)
	}
	return err
}
