package self

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// alltoallw copies the rank's one block to itself.
func alltoallw(c coll.Comm, send, recv [][]byte) error {
	if len(send) != 1 || len(recv) != 1 {
		return fmt.Errorf("%d send blocks and %d receive blocks, want one of each (one rank)", len(send), len(recv))
	}
	if err := coll.CheckOwnBlock(0, len(send[0]), len(recv[0])); err != nil {
		return err
	}
	copy(recv[0], send[0])
	return nil
}

func neighborAlltoallw(c coll.Comm, nb coll.Neighbors, send, recv [][]byte) error {
	b, err := nb.AlltoallwBlocks(send, recv)
	if err != nil {
		return err
	}
	return copyNeighbors(c, nb, &b)
}
