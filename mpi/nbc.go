package mpi

import (
	"errors"

	"github.com/gompi/gompi/pmpi"
)

// The non-blocking collectives: each starts the blocking call of its name
// and returns its request at once. The call runs while the program goes
// on, computing or calling MPI; Wait, Test and their kin complete it, with
// point-to-point requests alike. The buffers belong to the call until
// then. Every rank starts the collectives of a communicator in the same
// order, blocking and non-blocking alike.

func started(r *pmpi.Request, err error) (Request, error) { return request(r), err }

// Ibcast starts Bcast and returns its request.
func Ibcast[T Elem](buf []T, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return started(api().Ibcast(b, n, dt, root, comm.c))
}

// Ibarrier starts Barrier: its request completes once every rank of comm
// has started it.
func Ibarrier(comm Comm) (Request, error) { return started(api().Ibarrier(comm.c)) }

// Ireduce starts Reduce and returns its request.
func Ireduce[T Elem](send, recv []T, op Op, root int, comm Comm) (Request, error) {
	s, _, dt := typed(send)
	return started(api().Ireduce(s, pmpi.Bytes(recv), rootCount(len(send), len(recv), root), dt, op, root, comm.c))
}

// IreduceInPlace starts ReduceInPlace and returns its request.
func IreduceInPlace[T Elem](buf []T, op Op, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return started(api().Ireduce(pmpi.InPlace, b, n, dt, op, root, comm.c))
	}
	return started(api().Ireduce(b, nil, n, dt, op, root, comm.c))
}

// Iallreduce starts Allreduce and returns its request.
func Iallreduce[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().Iallreduce(s, pmpi.Bytes(recv), n, dt, op, comm.c))
}

// IallreduceInPlace starts AllreduceInPlace and returns its request.
func IallreduceInPlace[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return started(api().Iallreduce(pmpi.InPlace, b, n, dt, op, comm.c))
}

// Iscan starts Scan and returns its request.
func Iscan[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().Iscan(s, pmpi.Bytes(recv), n, dt, op, comm.c))
}

// IscanInPlace starts ScanInPlace and returns its request.
func IscanInPlace[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return started(api().Iscan(pmpi.InPlace, b, n, dt, op, comm.c))
}

// Iexscan starts Exscan and returns its request.
func Iexscan[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().Iexscan(s, pmpi.Bytes(recv), n, dt, op, comm.c))
}

// IexscanInPlace starts ExscanInPlace and returns its request.
func IexscanInPlace[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return started(api().Iexscan(pmpi.InPlace, b, n, dt, op, comm.c))
}

// IreduceScatter starts ReduceScatter and returns its request.
func IreduceScatter[T Elem](send, recv []T, counts []int, op Op, comm Comm) (Request, error) {
	return started(api().IreduceScatter(pmpi.Bytes(send), pmpi.Bytes(recv), counts, pmpi.TypeOf[T](), op, comm.c))
}

// IreduceScatterInPlace starts ReduceScatterInPlace and returns its request.
func IreduceScatterInPlace[T Elem](buf []T, counts []int, op Op, comm Comm) (Request, error) {
	return started(api().IreduceScatter(pmpi.InPlace, pmpi.Bytes(buf), counts, pmpi.TypeOf[T](), op, comm.c))
}

// IreduceScatterBlock starts ReduceScatterBlock and returns its request.
func IreduceScatterBlock[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	r, n, dt := typed(recv)
	return started(api().IreduceScatterBlock(pmpi.Bytes(send), r, n, dt, op, comm.c))
}

// IreduceScatterBlockInPlace starts ReduceScatterBlockInPlace and returns its request.
func IreduceScatterBlockInPlace[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	per, err := blocks("reduce scatter block", n, comm)
	if err != nil {
		return Request{}, err
	}
	return started(api().IreduceScatterBlock(pmpi.InPlace, b, per, dt, op, comm.c))
}

// Igather starts Gather and returns its request.
func Igather[T Elem](send, recv []T, root int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	rn, err := rootBlock("igather", n, len(recv), root, comm)
	if err != nil {
		return Request{}, err
	}
	return started(api().Igather(s, n, dt, pmpi.Bytes(recv), rn, dt, root, comm.c))
}

// IgatherInPlace starts GatherInPlace and returns its request.
func IgatherInPlace[T Elem](buf []T, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		per, err := blocks("gather", n, comm)
		if err != nil {
			return Request{}, err
		}
		return started(api().Igather(pmpi.InPlace, 0, dt, b, per, dt, root, comm.c))
	}
	return started(api().Igather(b, n, dt, nil, n, dt, root, comm.c))
}

// Igatherv starts Gatherv and returns its request.
func Igatherv[T Elem](send, recv []T, counts, displs []int, root int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().Igatherv(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, root, comm.c))
}

// IgathervInPlace starts GathervInPlace and returns its request.
func IgathervInPlace[T Elem](buf []T, counts, displs []int, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return started(api().Igatherv(pmpi.InPlace, 0, dt, b, counts, displs, dt, root, comm.c))
	}
	return started(api().Igatherv(b, n, dt, nil, nil, nil, dt, root, comm.c))
}

// Iscatter starts Scatter and returns its request.
func Iscatter[T Elem](send, recv []T, root int, comm Comm) (Request, error) {
	r, n, dt := typed(recv)
	sn, err := rootBlock("iscatter", n, len(send), root, comm)
	if err != nil {
		return Request{}, err
	}
	return started(api().Iscatter(pmpi.Bytes(send), sn, dt, r, n, dt, root, comm.c))
}

// IscatterInPlace starts ScatterInPlace and returns its request.
func IscatterInPlace[T Elem](buf []T, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		per, err := blocks("scatter", n, comm)
		if err != nil {
			return Request{}, err
		}
		return started(api().Iscatter(b, per, dt, pmpi.InPlace, 0, dt, root, comm.c))
	}
	return started(api().Iscatter(nil, n, dt, b, n, dt, root, comm.c))
}

// Iscatterv starts Scatterv and returns its request.
func Iscatterv[T Elem](send []T, counts, displs []int, recv []T, root int, comm Comm) (Request, error) {
	r, n, dt := typed(recv)
	return started(api().Iscatterv(pmpi.Bytes(send), counts, displs, dt, r, n, dt, root, comm.c))
}

// IscattervInPlace starts ScattervInPlace and returns its request.
func IscattervInPlace[T Elem](buf []T, counts, displs []int, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return started(api().Iscatterv(b, counts, displs, dt, pmpi.InPlace, 0, dt, root, comm.c))
	}
	return started(api().Iscatterv(nil, nil, nil, dt, b, n, dt, root, comm.c))
}

// Iallgather starts Allgather and returns its request.
func Iallgather[T Elem](send, recv []T, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().Iallgather(s, n, dt, pmpi.Bytes(recv), n, dt, comm.c))
}

// IallgatherInPlace starts AllgatherInPlace and returns its request.
func IallgatherInPlace[T Elem](buf []T, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	per, err := blocks("allgather", n, comm)
	if err != nil {
		return Request{}, err
	}
	return started(api().Iallgather(pmpi.InPlace, 0, dt, b, per, dt, comm.c))
}

// Iallgatherv starts Allgatherv and returns its request.
func Iallgatherv[T Elem](send, recv []T, counts, displs []int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return started(api().Iallgatherv(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, comm.c))
}

// IallgathervInPlace starts AllgathervInPlace and returns its request.
func IallgathervInPlace[T Elem](buf []T, counts, displs []int, comm Comm) (Request, error) {
	b, _, dt := typed(buf)
	return started(api().Iallgatherv(pmpi.InPlace, 0, dt, b, counts, displs, dt, comm.c))
}

// Ialltoall starts Alltoall and returns its request.
func Ialltoall[T Elem](send, recv []T, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	sper, err1 := blocks("alltoall", n, comm)
	rper, err2 := blocks("alltoall", len(recv), comm)
	if err := errors.Join(err1, err2); err != nil {
		return Request{}, err
	}
	return started(api().Ialltoall(s, sper, dt, pmpi.Bytes(recv), rper, dt, comm.c))
}

// IalltoallInPlace starts AlltoallInPlace and returns its request.
func IalltoallInPlace[T Elem](buf []T, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	per, err := blocks("alltoall", n, comm)
	if err != nil {
		return Request{}, err
	}
	return started(api().Ialltoall(pmpi.InPlace, 0, dt, b, per, dt, comm.c))
}

// Ialltoallv starts Alltoallv and returns its request.
func Ialltoallv[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, comm Comm) (Request, error) {
	dt := pmpi.TypeOf[T]()
	return started(api().Ialltoallv(pmpi.Bytes(send), scounts, sdispls, dt, pmpi.Bytes(recv), rcounts, rdispls, dt, comm.c))
}

// IalltoallvInPlace starts AlltoallvInPlace and returns its request.
func IalltoallvInPlace[T Elem](buf []T, counts, displs []int, comm Comm) (Request, error) {
	dt := pmpi.TypeOf[T]()
	return started(api().Ialltoallv(pmpi.InPlace, nil, nil, dt, pmpi.Bytes(buf), counts, displs, dt, comm.c))
}
