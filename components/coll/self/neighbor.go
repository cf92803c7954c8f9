package self

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// With one rank, each neighbour of a topology is that rank or not there:
// each block the rank sends itself is copied to the receive that would
// match it, in the order messages match.

func neighborAllgather(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	b, err := nb.AllgatherBlocks(send, recv)
	if err != nil {
		return err
	}
	return copyNeighbors(c, nb, &b)
}

func neighborAllgatherv(c coll.Comm, nb coll.Neighbors, send, recv []byte, counts, displs []int) error {
	b, err := nb.AllgathervBlocks(send, recv, counts, displs)
	if err != nil {
		return err
	}
	return copyNeighbors(c, nb, &b)
}

func neighborAlltoall(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	b, err := nb.AlltoallBlocks(send, recv)
	if err != nil {
		return err
	}
	return copyNeighbors(c, nb, &b)
}

func neighborAlltoallv(c coll.Comm, nb coll.Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	b, err := nb.AlltoallvBlocks(send, scounts, sdispls, recv, rcounts, rdispls)
	if err != nil {
		return err
	}
	return copyNeighbors(c, nb, &b)
}

// copyNeighbors copies each block the rank sends itself to the receive
// that would match it (coll.Neighbors.Self).
func copyNeighbors(c coll.Comm, nb coll.Neighbors, b *coll.Blocks) error {
	if err := coll.CheckNeighbors(c, nb); err != nil {
		return err
	}
	var err error
	sends, recvs := nb.Self(0, func(i, j int) {
		src, dst := b.Send(i), b.Recv(j)
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
