package coll

import "fmt"

// Neighbors is a rank's neighbourhood in a communicator's process
// topology, as the neighbourhood collectives take it: the ranks it
// receives from and sends to, in the topology's order. A rank appears as
// often as the topology names it; a negative rank (MPI_PROC_NULL) is a
// neighbour that is not there, whose block is neither sent nor received.
type Neighbors struct {
	Sources []int
	Dests   []int
	// Cart says that the lists are a Cartesian grid's: for each dimension
	// the rank below, then the rank above, alike in Sources and Dests.
	Cart bool
}

// SendOrder gives, for the k-th send of a neighbourhood collective, the
// index in Dests to send to. Messages between two ranks on one tag match
// in the order they are sent and their receives posted, which is the
// order of Dests and Sources; but in a grid that wraps round a dimension
// of one or two ranks, one rank is the neighbour below and above, and
// what a rank sends up arrives from below. So a grid's ranks send each
// dimension's upper block first, and the receiver, posting its lower
// source first, matches it there.
func (nb Neighbors) SendOrder(k int) int {
	if nb.Cart {
		return k ^ 1
	}
	return k
}

// Self pairs the blocks that rank me sends itself with the blocks it
// receives from itself, in the order messages would match: the k-th send
// to me in SendOrder fills the k-th source that is me. It calls f with
// each pair's destination and source indexes, and returns the numbers of
// sends and of receives that name me, which a consistent topology makes
// equal (f is called for as many pairs as the smaller).
func (nb Neighbors) Self(me int, f func(dest, source int)) (sends, recvs int) {
	next := 0 // the index in Sources after the last source paired
	for k := range nb.Dests {
		i := nb.SendOrder(k)
		if nb.Dests[i] != me {
			continue
		}
		sends++
		for next < len(nb.Sources) && nb.Sources[next] != me {
			next++
		}
		if next < len(nb.Sources) {
			f(i, next)
			next++
		}
	}
	for _, r := range nb.Sources {
		if r == me {
			recvs++
		}
	}
	return sends, recvs
}

// CheckNeighbors fails unless every neighbour in nb is a rank of c or
// not there, and a grid's lists hold two neighbours per dimension.
func CheckNeighbors(c Comm, nb Neighbors) error {
	for _, l := range []struct {
		what string
		list []int
	}{{"source", nb.Sources}, {"destination", nb.Dests}} {
		if nb.Cart && len(l.list)%2 != 0 {
			return fmt.Errorf("%d %ss in a grid, want two per dimension", len(l.list), l.what)
		}
		for i, r := range l.list {
			if r >= c.Size() {
				return fmt.Errorf("%s %d is rank %d, not a rank (the communicator has %d)", l.what, i, r, c.Size())
			}
		}
	}
	return nil
}

// Blocks are a neighbourhood collective's buffers cut by neighbour:
// Send(i) is what goes to destination i, Recv(j) where source j's block
// lands. The methods below check the buffers against the neighbourhood
// and make them; a component moves the blocks as it will.
type Blocks struct {
	send, recv []byte
	// Without counts, the blocks are end to end, sn and rn bytes each
	// (sn 0 with whole: every destination gets all of send).
	sn, rn                             int
	whole                              bool
	scounts, sdispls, rcounts, rdispls []int
	// sb and rb, when set, are the blocks themselves (NeighborAlltoallw).
	sb, rb [][]byte
}

// Send is the block for destination i.
func (b *Blocks) Send(i int) []byte {
	switch {
	case b.sb != nil:
		return b.sb[i]
	case b.whole:
		return b.send
	case b.scounts != nil:
		return b.send[b.sdispls[i] : b.sdispls[i]+b.scounts[i]]
	}
	return b.send[i*b.sn : (i+1)*b.sn]
}

// Recv is the block for source j.
func (b *Blocks) Recv(j int) []byte {
	if b.rb != nil {
		return b.rb[j]
	}
	if b.rcounts != nil {
		return b.recv[b.rdispls[j] : b.rdispls[j]+b.rcounts[j]]
	}
	return b.recv[j*b.rn : (j+1)*b.rn]
}

// AllgatherBlocks: send to every destination, a block as long in recv
// per source.
func (nb Neighbors) AllgatherBlocks(send, recv []byte) (Blocks, error) {
	n := len(send)
	err := CheckLen("recv", len(recv), n*len(nb.Sources), "a block as long as send per source")
	return Blocks{send: send, recv: recv, whole: true, rn: n}, err
}

// AllgathervBlocks: send to every destination, counts[j] bytes at
// displs[j] of recv from source j.
func (nb Neighbors) AllgathervBlocks(send, recv []byte, counts, displs []int) (Blocks, error) {
	err := CheckNeighborBlocks("recv", counts, displs, len(nb.Sources), len(recv))
	return Blocks{send: send, recv: recv, whole: true, rcounts: counts, rdispls: displs}, err
}

// AlltoallBlocks: a block of send per destination and of recv per
// source, all of one size.
func (nb Neighbors) AlltoallBlocks(send, recv []byte) (Blocks, error) {
	nd, ns := len(nb.Dests), len(nb.Sources)
	n := 0
	switch {
	case nd > 0:
		n = len(send) / nd
	case ns > 0:
		n = len(recv) / ns
	}
	if len(send) != n*nd || len(recv) != n*ns {
		return Blocks{}, fmt.Errorf("send holds %d bytes for %d destinations and recv %d for %d sources, want blocks of one size", len(send), nd, len(recv), ns)
	}
	return Blocks{send: send, recv: recv, sn: n, rn: n}, nil
}

// AlltoallvBlocks: per-neighbour counts and displacements on both sides.
func (nb Neighbors) AlltoallvBlocks(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (Blocks, error) {
	if err := CheckNeighborBlocks("send", scounts, sdispls, len(nb.Dests), len(send)); err != nil {
		return Blocks{}, err
	}
	err := CheckNeighborBlocks("recv", rcounts, rdispls, len(nb.Sources), len(recv))
	return Blocks{send: send, recv: recv, scounts: scounts, sdispls: sdispls, rcounts: rcounts, rdispls: rdispls}, err
}

// AlltoallwBlocks: the blocks themselves, one per destination in send
// and one per source in recv.
func (nb Neighbors) AlltoallwBlocks(send, recv [][]byte) (Blocks, error) {
	if len(send) != len(nb.Dests) || len(recv) != len(nb.Sources) {
		return Blocks{}, fmt.Errorf("%d send blocks for %d destinations and %d receive blocks for %d sources, want one per neighbour", len(send), len(nb.Dests), len(recv), len(nb.Sources))
	}
	// A nil list has no neighbour to ask Send or Recv about.
	return Blocks{sb: send, rb: recv}, nil
}
