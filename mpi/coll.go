package mpi

import (
	"errors"
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// The collectives. Every rank of the communicator calls each one, in the
// same order. Counts are the slices' lengths; a buffer only the root reads
// or writes may be nil elsewhere. Each *InPlace form is MPI_IN_PLACE: one
// buffer both supplies this rank's data and receives the result.

func typed[T Elem](buf []T) ([]byte, int, pmpi.Datatype) {
	return pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T]()
}

// blocks is n elements cut into one block per rank of comm: an error if
// they do not divide evenly. It reads comm's size below the profiling
// stack (Comm.size), so the call that uses it is all tools see.
func blocks(op string, n int, comm Comm) (int, error) {
	size := comm.peers()
	if size == 0 {
		return 0, nil // the call itself reports the invalid communicator
	}
	if n%size != 0 {
		return 0, &pmpi.Error{Class: pmpi.ClassCount,
			Msg: fmt.Sprintf("%s on %v: a buffer of %d elements does not divide into %d equal blocks", op, comm, n, size)}
	}
	return n / size, nil
}

// rootBlock is the block size of a rooted call's root side: n, the other
// side's, except at an intercommunicator's root, whose other side is not
// read: there its whole buffer of whole elements divides among the remote
// group.
func rootBlock(op string, n, whole, root int, comm Comm) (int, error) {
	if root != Root {
		return n, nil
	}
	return blocks(op, whole, comm)
}

// rootCount is a reduction's count: len(send), except at an
// intercommunicator's root, which sends nothing: len(recv).
func rootCount(send, recv, root int) int {
	if root == Root {
		return recv
	}
	return send
}

// Barrier returns once every rank of comm has entered it.
func Barrier(comm Comm) error { return api().Barrier(comm.c) }

// Bcast copies buf at root into buf at every other rank.
func Bcast[T Elem](buf []T, root int, comm Comm) error {
	b, n, dt := typed(buf)
	return api().Bcast(b, n, dt, root, comm.c)
}

// Reduce combines send from every rank element by element with op and
// leaves the result in recv at root (nil elsewhere).
func Reduce[T Elem](send, recv []T, op Op, root int, comm Comm) error {
	s, _, dt := typed(send)
	return api().Reduce(s, pmpi.Bytes(recv), rootCount(len(send), len(recv), root), dt, op, root, comm.c)
}

// ReduceInPlace is Reduce where buf is the data of each rank and, at root,
// also receives the result.
func ReduceInPlace[T Elem](buf []T, op Op, root int, comm Comm) error {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return api().Reduce(pmpi.InPlace, b, n, dt, op, root, comm.c)
	}
	return api().Reduce(b, nil, n, dt, op, root, comm.c)
}

// Allreduce is Reduce with the result in recv at every rank.
func Allreduce[T Elem](send, recv []T, op Op, comm Comm) error {
	s, n, dt := typed(send)
	return api().Allreduce(s, pmpi.Bytes(recv), n, dt, op, comm.c)
}

// AllreduceInPlace replaces buf at every rank by the reduction of all.
func AllreduceInPlace[T Elem](buf []T, op Op, comm Comm) error {
	b, n, dt := typed(buf)
	return api().Allreduce(pmpi.InPlace, b, n, dt, op, comm.c)
}

// Scan leaves in recv at rank i the reduction of send at ranks 0 to i.
func Scan[T Elem](send, recv []T, op Op, comm Comm) error {
	s, n, dt := typed(send)
	return api().Scan(s, pmpi.Bytes(recv), n, dt, op, comm.c)
}

// ScanInPlace is Scan with buf as both send and recv.
func ScanInPlace[T Elem](buf []T, op Op, comm Comm) error {
	b, n, dt := typed(buf)
	return api().Scan(pmpi.InPlace, b, n, dt, op, comm.c)
}

// Exscan leaves in recv at rank i the reduction of send at ranks 0 to
// i-1; rank 0's recv is left as it was.
func Exscan[T Elem](send, recv []T, op Op, comm Comm) error {
	s, n, dt := typed(send)
	return api().Exscan(s, pmpi.Bytes(recv), n, dt, op, comm.c)
}

// ExscanInPlace is Exscan with buf as both send and recv.
func ExscanInPlace[T Elem](buf []T, op Op, comm Comm) error {
	b, n, dt := typed(buf)
	return api().Exscan(pmpi.InPlace, b, n, dt, op, comm.c)
}

// ReduceScatter reduces send (the sum of counts elements) and leaves
// counts[i] elements of the result, in order, in recv at rank i.
func ReduceScatter[T Elem](send, recv []T, counts []int, op Op, comm Comm) error {
	return api().ReduceScatter(pmpi.Bytes(send), pmpi.Bytes(recv), counts, pmpi.TypeOf[T](), op, comm.c)
}

// ReduceScatterInPlace is ReduceScatter where buf holds the whole vector
// and receives this rank's part at its start.
func ReduceScatterInPlace[T Elem](buf []T, counts []int, op Op, comm Comm) error {
	return api().ReduceScatter(pmpi.InPlace, pmpi.Bytes(buf), counts, pmpi.TypeOf[T](), op, comm.c)
}

// ReduceScatterBlock is ReduceScatter with len(recv) elements for every
// rank: len(send) is comm.Size() times that.
func ReduceScatterBlock[T Elem](send, recv []T, op Op, comm Comm) error {
	r, n, dt := typed(recv)
	return api().ReduceScatterBlock(pmpi.Bytes(send), r, n, dt, op, comm.c)
}

// ReduceScatterBlockInPlace is ReduceScatterBlock where buf holds the
// whole vector and receives this rank's block at its start.
func ReduceScatterBlockInPlace[T Elem](buf []T, op Op, comm Comm) error {
	b, n, dt := typed(buf)
	per, err := blocks("reduce scatter block", n, comm)
	if err != nil {
		return err
	}
	return api().ReduceScatterBlock(pmpi.InPlace, b, per, dt, op, comm.c)
}

// Gather collects send from every rank into recv at root, in rank order:
// len(recv) is comm.Size()*len(send) there, and recv may be nil elsewhere.
func Gather[T Elem](send, recv []T, root int, comm Comm) error {
	s, n, dt := typed(send)
	rn, err := rootBlock("gather", n, len(recv), root, comm)
	if err != nil {
		return err
	}
	return api().Gather(s, n, dt, pmpi.Bytes(recv), rn, dt, root, comm.c)
}

// GatherInPlace is Gather where, at root, buf is the whole receive buffer
// with root's own block already in place; elsewhere buf is what the rank
// sends.
func GatherInPlace[T Elem](buf []T, root int, comm Comm) error {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		per, err := blocks("gather", n, comm)
		if err != nil {
			return err
		}
		return api().Gather(pmpi.InPlace, 0, dt, b, per, dt, root, comm.c)
	}
	return api().Gather(b, n, dt, nil, n, dt, root, comm.c)
}

// Gatherv collects send from every rank into recv at root: counts[i]
// elements from rank i at displs[i] (counts and displs are read at root
// only).
func Gatherv[T Elem](send, recv []T, counts, displs []int, root int, comm Comm) error {
	s, n, dt := typed(send)
	return api().Gatherv(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, root, comm.c)
}

// GathervInPlace is Gatherv where, at root, buf is the receive buffer
// with root's own block in place; elsewhere buf is what the rank sends.
func GathervInPlace[T Elem](buf []T, counts, displs []int, root int, comm Comm) error {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return api().Gatherv(pmpi.InPlace, 0, dt, b, counts, displs, dt, root, comm.c)
	}
	return api().Gatherv(b, n, dt, nil, nil, nil, dt, root, comm.c)
}

// Scatter sends block i of send at root (len(recv) elements each) to rank
// i's recv. send may be nil except at root.
func Scatter[T Elem](send, recv []T, root int, comm Comm) error {
	r, n, dt := typed(recv)
	sn, err := rootBlock("scatter", n, len(send), root, comm)
	if err != nil {
		return err
	}
	return api().Scatter(pmpi.Bytes(send), sn, dt, r, n, dt, root, comm.c)
}

// ScatterInPlace is Scatter where, at root, buf is the whole send buffer
// and root's block stays where it is; elsewhere buf receives.
func ScatterInPlace[T Elem](buf []T, root int, comm Comm) error {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		per, err := blocks("scatter", n, comm)
		if err != nil {
			return err
		}
		return api().Scatter(b, per, dt, pmpi.InPlace, 0, dt, root, comm.c)
	}
	return api().Scatter(nil, n, dt, b, n, dt, root, comm.c)
}

// Scatterv sends counts[i] elements from displs[i] of send at root to
// rank i's recv.
func Scatterv[T Elem](send []T, counts, displs []int, recv []T, root int, comm Comm) error {
	r, n, dt := typed(recv)
	return api().Scatterv(pmpi.Bytes(send), counts, displs, dt, r, n, dt, root, comm.c)
}

// ScattervInPlace is Scatterv where, at root, buf is the send buffer and
// root's block stays in it; elsewhere buf receives.
func ScattervInPlace[T Elem](buf []T, counts, displs []int, root int, comm Comm) error {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return api().Scatterv(b, counts, displs, dt, pmpi.InPlace, 0, dt, root, comm.c)
	}
	return api().Scatterv(nil, nil, nil, dt, b, n, dt, root, comm.c)
}

// Allgather is Gather with the result in recv at every rank.
func Allgather[T Elem](send, recv []T, comm Comm) error {
	s, n, dt := typed(send)
	return api().Allgather(s, n, dt, pmpi.Bytes(recv), n, dt, comm.c)
}

// AllgatherInPlace is Allgather where buf is the whole receive buffer,
// each rank's own block already in place.
func AllgatherInPlace[T Elem](buf []T, comm Comm) error {
	b, n, dt := typed(buf)
	per, err := blocks("allgather", n, comm)
	if err != nil {
		return err
	}
	return api().Allgather(pmpi.InPlace, 0, dt, b, per, dt, comm.c)
}

// Allgatherv is Gatherv with the result in recv at every rank.
func Allgatherv[T Elem](send, recv []T, counts, displs []int, comm Comm) error {
	s, n, dt := typed(send)
	return api().Allgatherv(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, comm.c)
}

// AllgathervInPlace is Allgatherv where buf is the receive buffer, each
// rank's own block already in place.
func AllgathervInPlace[T Elem](buf []T, counts, displs []int, comm Comm) error {
	b, _, dt := typed(buf)
	return api().Allgatherv(pmpi.InPlace, 0, dt, b, counts, displs, dt, comm.c)
}

// Alltoall sends block i of send to rank i and receives block j of recv
// from rank j; blocks are len(send)/comm.Size() elements.
func Alltoall[T Elem](send, recv []T, comm Comm) error {
	s, n, dt := typed(send)
	sper, err1 := blocks("alltoall", n, comm)
	rper, err2 := blocks("alltoall", len(recv), comm)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	return api().Alltoall(s, sper, dt, pmpi.Bytes(recv), rper, dt, comm.c)
}

// AlltoallInPlace is Alltoall where buf's blocks are sent and replaced.
func AlltoallInPlace[T Elem](buf []T, comm Comm) error {
	b, n, dt := typed(buf)
	per, err := blocks("alltoall", n, comm)
	if err != nil {
		return err
	}
	return api().Alltoall(pmpi.InPlace, 0, dt, b, per, dt, comm.c)
}

// Alltoallv sends scounts[i] elements from sdispls[i] of send to rank i
// and receives rcounts[j] elements at rdispls[j] of recv from rank j.
func Alltoallv[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, comm Comm) error {
	dt := pmpi.TypeOf[T]()
	return api().Alltoallv(pmpi.Bytes(send), scounts, sdispls, dt, pmpi.Bytes(recv), rcounts, rdispls, dt, comm.c)
}

// AlltoallvInPlace is Alltoallv where buf's blocks, as counts and displs
// describe them, are sent and replaced.
func AlltoallvInPlace[T Elem](buf []T, counts, displs []int, comm Comm) error {
	dt := pmpi.TypeOf[T]()
	return api().Alltoallv(pmpi.InPlace, nil, nil, dt, pmpi.Bytes(buf), counts, displs, dt, comm.c)
}
