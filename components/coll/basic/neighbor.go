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
	n := len(send)
	if err := coll.CheckLen("recv", len(recv), n*len(nb.Sources), "a block as long as send per source"); err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAllgather,
		func(int) []byte { return send },
		func(j int) []byte { return recv[j*n : (j+1)*n] })
}

func neighborAllgatherv(c coll.Comm, nb coll.Neighbors, send, recv []byte, counts, displs []int) error {
	if err := coll.CheckNeighborBlocks("recv", counts, displs, len(nb.Sources), len(recv)); err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAllgatherv,
		func(int) []byte { return send },
		func(j int) []byte { return block(recv, counts, displs, j) })
}

func neighborAlltoall(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
	n, err := neighborBlock(nb, len(send), len(recv))
	if err != nil {
		return err
	}
	return exchange(c, nb, coll.TagNeighborAlltoall,
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
	return exchange(c, nb, coll.TagNeighborAlltoallv,
		func(i int) []byte { return block(send, scounts, sdispls, i) },
		func(j int) []byte { return block(recv, rcounts, rdispls, j) })
}

// neighborBlock is the size of NeighborAlltoall's blocks: send holds one
// per destination and recv one per source, all of one size.
func neighborBlock(nb coll.Neighbors, send, recv int) (int, error) {
	nd, ns := len(nb.Dests), len(nb.Sources)
	n := 0
	switch {
	case nd > 0:
		n = send / nd
	case ns > 0:
		n = recv / ns
	}
	if send != n*nd || recv != n*ns {
		return 0, fmt.Errorf("send holds %d bytes for %d destinations and recv %d for %d sources, want blocks of one size", send, nd, recv, ns)
	}
	return n, nil
}

// exchange receives block j from each source j and sends block i to each
// destination i, skipping the neighbours that are not there.
func exchange(c coll.Comm, nb coll.Neighbors, tag int, sendBlock, recvBlock func(int) []byte) error {
	if err := coll.CheckNeighbors(c, nb); err != nil {
		return err
	}
	// What the rank sends itself is copied, not sent: the pairs match as
	// messages would.
	me := c.Rank()
	var first error
	sends, recvs := nb.Self(me, func(i, j int) {
		src, dst := sendBlock(i), recvBlock(j)
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
			reqs = append(reqs, c.Irecv(recvBlock(j), r, tag))
		}
	}
	for k := range nb.Dests {
		i := nb.SendOrder(k)
		if r := nb.Dests[i]; r >= 0 && r != me {
			reqs = append(reqs, c.Isend(sendBlock(i), r, tag))
		}
	}
	for _, r := range reqs {
		if err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
