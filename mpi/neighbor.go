package mpi

import (
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// The neighbourhood collectives exchange along comm's topology (CartCreate,
// GraphCreate, DistGraphCreate): each rank receives a block from each of
// its sources and sends to each of its destinations, in the topology's
// order. In a Cartesian grid both lists are, for each dimension, the
// neighbour below and the neighbour above (the ranks CartShift(d, 1)
// gives); past the edge of a non-periodic dimension there is none, and its
// block of recv is left as it was. In a graph both are the rank's
// neighbours; in a distributed graph, the sources of its in-edges and the
// destinations of its out-edges. A communicator without a topology fails
// with ErrTopology. Every rank of comm calls them in the same order as its
// other collectives.

// NeighborAllgather sends send to every destination and receives
// len(send) elements from source j into block j of recv, which holds a
// block per source.
func NeighborAllgather[T Elem](send, recv []T, comm Comm) error {
	s, n, dt := typed(send)
	return api().NeighborAllgather(s, n, dt, pmpi.Bytes(recv), n, dt, comm.c)
}

// NeighborAllgatherv sends send to every destination and receives
// counts[j] elements from source j at displs[j] of recv (nil displs: the
// blocks end to end).
func NeighborAllgatherv[T Elem](send, recv []T, counts, displs []int, comm Comm) error {
	s, n, dt := typed(send)
	return api().NeighborAllgatherv(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, comm.c)
}

// NeighborAlltoall sends block i of send to destination i and receives
// block j of recv from source j: send holds a block per destination and
// recv one per source, every block the same length.
func NeighborAlltoall[T Elem](send, recv []T, comm Comm) error {
	sper, rper, err := neighborBlocks("neighbor alltoall", len(send), len(recv), comm)
	if err != nil {
		return err
	}
	dt := pmpi.TypeOf[T]()
	return api().NeighborAlltoall(pmpi.Bytes(send), sper, dt, pmpi.Bytes(recv), rper, dt, comm.c)
}

// NeighborAlltoallv sends scounts[i] elements from sdispls[i] of send to
// destination i and receives rcounts[j] elements at rdispls[j] of recv
// from source j (nil displacements: the blocks end to end).
func NeighborAlltoallv[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, comm Comm) error {
	dt := pmpi.TypeOf[T]()
	return api().NeighborAlltoallv(pmpi.Bytes(send), scounts, sdispls, dt, pmpi.Bytes(recv), rcounts, rdispls, dt, comm.c)
}

// IneighborAllgather starts NeighborAllgather and returns its request.
func IneighborAllgather[T Elem](send, recv []T, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().IneighborAllgather(s, n, dt, pmpi.Bytes(recv), n, dt, comm.c))
}

// IneighborAllgatherv starts NeighborAllgatherv and returns its request.
func IneighborAllgatherv[T Elem](send, recv []T, counts, displs []int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().IneighborAllgatherv(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, comm.c))
}

// IneighborAlltoall starts NeighborAlltoall and returns its request.
func IneighborAlltoall[T Elem](send, recv []T, comm Comm) (Request, error) {
	sper, rper, err := neighborBlocks("ineighbor alltoall", len(send), len(recv), comm)
	if err != nil {
		return Request{}, err
	}
	dt := pmpi.TypeOf[T]()
	return started(api().IneighborAlltoall(pmpi.Bytes(send), sper, dt, pmpi.Bytes(recv), rper, dt, comm.c))
}

// IneighborAlltoallv starts NeighborAlltoallv and returns its request.
func IneighborAlltoallv[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, comm Comm) (Request, error) {
	dt := pmpi.TypeOf[T]()
	return started(api().IneighborAlltoallv(pmpi.Bytes(send), scounts, sdispls, dt, pmpi.Bytes(recv), rcounts, rdispls, dt, comm.c))
}

// NeighborAllgatherInit makes a persistent NeighborAllgather: inactive
// until Start.
func NeighborAllgatherInit[T Elem](send, recv []T, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().NeighborAllgatherInit(s, n, dt, pmpi.Bytes(recv), n, dt, comm.c))
}

// NeighborAllgathervInit makes a persistent NeighborAllgatherv.
func NeighborAllgathervInit[T Elem](send, recv []T, counts, displs []int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().NeighborAllgathervInit(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, comm.c))
}

// NeighborAlltoallInit makes a persistent NeighborAlltoall.
func NeighborAlltoallInit[T Elem](send, recv []T, comm Comm) (Request, error) {
	sper, rper, err := neighborBlocks("neighbor alltoall init", len(send), len(recv), comm)
	if err != nil {
		return Request{}, err
	}
	dt := pmpi.TypeOf[T]()
	return persistent(api().NeighborAlltoallInit(pmpi.Bytes(send), sper, dt, pmpi.Bytes(recv), rper, dt, comm.c))
}

// NeighborAlltoallvInit makes a persistent NeighborAlltoallv.
func NeighborAlltoallvInit[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, comm Comm) (Request, error) {
	dt := pmpi.TypeOf[T]()
	return persistent(api().NeighborAlltoallvInit(pmpi.Bytes(send), scounts, sdispls, dt, pmpi.Bytes(recv), rcounts, rdispls, dt, comm.c))
}

// neighborBlocks cuts ns send and nr receive elements into a block per
// destination and per source of comm, read below the profiling stack
// (pmpi.Comm.Degrees): an error if they do not divide evenly. A side
// with no neighbours sends or receives nothing, whatever its buffer, and
// takes the other side's block length, as a rank at a pipeline's end
// passes MPI one count for both.
func neighborBlocks(op string, ns, nr int, comm Comm) (sper, rper int, err error) {
	in, out := comm.c.Degrees()
	if out > 0 {
		sper = ns / out
	}
	if in > 0 {
		rper = nr / in
	}
	if (out > 0 && sper*out != ns) || (in > 0 && rper*in != nr) {
		return 0, 0, &pmpi.Error{Class: pmpi.ClassCount,
			Msg: fmt.Sprintf("%s on %v: %d send elements for %d destinations and %d receive elements for %d sources do not divide into equal blocks", op, comm, ns, out, nr, in)}
	}
	switch {
	case out == 0:
		sper = rper
	case in == 0:
		rper = sper
	}
	return sper, rper, nil
}
