package basic

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// The neighbourhood collectives post a receive from every source, then
// send to every destination, then wait for all: what Open MPI's basic
// component does, and all a neighbourhood needs, since each rank talks
// only to its few neighbours.

func neighborAllgather(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	b, err := nb.AllgatherBlocks(send, recv)
	if err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAllgather, &b)
}

func neighborAllgatherv(c coll.Comm, nb coll.Neighbors, send, recv []byte, counts, displs []int) error {
	b, err := nb.AllgathervBlocks(send, recv, counts, displs)
	if err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAllgatherv, &b)
}

func neighborAlltoall(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	b, err := nb.AlltoallBlocks(send, recv)
	if err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAlltoall, &b)
}

func neighborAlltoallv(c coll.Comm, nb coll.Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	b, err := nb.AlltoallvBlocks(send, scounts, sdispls, recv, rcounts, rdispls)
	if err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAlltoallv, &b)
}

// exchange receives block j from each source j and sends block i to each
// destination i, skipping the neighbours that are not there.
func exchange(c coll.Comm, nb coll.Neighbors, tag int, b *coll.Blocks) error {
	if err := coll.CheckNeighbors(c, nb); err != nil {
		return err
	}
	// What the rank sends itself is copied, not sent: the pairs match as
	// messages would.
	me := c.Rank()
	var first error
	sends, recvs := nb.Self(me, func(i, j int) {
		src, dst := b.Send(i), b.Recv(j)
		if len(src) != len(dst) && first == nil {
			first = fmt.Errorf("destination %d's block of %d bytes goes to source %d's of %d: the sizes differ", i, len(src), j, len(dst))
		}
		copy(dst, src[:min(len(src), len(dst))])
	})
	if sends != recvs && first == nil {
		first = fmt.Errorf("rank %d sends itself %d blocks but receives %d: the topology's sources and destinations disagree", me, sends, recvs)
	}
	// A 3-D grid's 12 requests stay on the stack; each is waited for
	// alone, since a slice handed to Wait would escape to the heap.
	var buf [12]coll.Request
	reqs := buf[:0]
	for j, r := range nb.Sources {
		if r >= 0 && r != me {
			reqs = append(reqs, c.Irecv(b.Recv(j), r, tag))
		}
	}
	for k := range nb.Dests {
		i := nb.SendOrder(k)
		if r := nb.Dests[i]; r >= 0 && r != me {
			reqs = append(reqs, c.Isend(b.Send(i), r, tag))
		}
	}
	for _, r := range reqs {
		if err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
