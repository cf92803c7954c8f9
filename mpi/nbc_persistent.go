package mpi

import (
	"errors"

	"github.com/gompi/gompi/pmpi"
)

// The persistent collectives: each Init call checks the arguments of the
// blocking call of its name once and returns an inactive Request; every
// Start runs the collective again with what the buffers hold then, and
// Wait or Test completes it until Free. Every rank makes and starts them
// in the same order.

// BarrierInit makes a persistent Barrier, inactive until Start.
func BarrierInit(comm Comm) (Request, error) { return persistent(api().BarrierInit(comm.c)) }

// BcastInit makes a persistent Bcast, inactive until Start.
func BcastInit[T Elem](buf []T, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return persistent(api().BcastInit(b, n, dt, root, comm.c))
}

// ReduceInit makes a persistent Reduce, inactive until Start.
func ReduceInit[T Elem](send, recv []T, op Op, root int, comm Comm) (Request, error) {
	s, _, dt := typed(send)
	return persistent(api().ReduceInit(s, pmpi.Bytes(recv), rootCount(len(send), len(recv), root), dt, op, root, comm.c))
}

// ReduceInPlaceInit makes a persistent ReduceInPlace, inactive until Start.
func ReduceInPlaceInit[T Elem](buf []T, op Op, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return persistent(api().ReduceInit(pmpi.InPlace, b, n, dt, op, root, comm.c))
	}
	return persistent(api().ReduceInit(b, nil, n, dt, op, root, comm.c))
}

// AllreduceInit makes a persistent Allreduce, inactive until Start.
func AllreduceInit[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().AllreduceInit(s, pmpi.Bytes(recv), n, dt, op, comm.c))
}

// AllreduceInPlaceInit makes a persistent AllreduceInPlace, inactive until Start.
func AllreduceInPlaceInit[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return persistent(api().AllreduceInit(pmpi.InPlace, b, n, dt, op, comm.c))
}

// ScanInit makes a persistent Scan, inactive until Start.
func ScanInit[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().ScanInit(s, pmpi.Bytes(recv), n, dt, op, comm.c))
}

// ScanInPlaceInit makes a persistent ScanInPlace, inactive until Start.
func ScanInPlaceInit[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return persistent(api().ScanInit(pmpi.InPlace, b, n, dt, op, comm.c))
}

// ExscanInit makes a persistent Exscan, inactive until Start.
func ExscanInit[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().ExscanInit(s, pmpi.Bytes(recv), n, dt, op, comm.c))
}

// ExscanInPlaceInit makes a persistent ExscanInPlace, inactive until Start.
func ExscanInPlaceInit[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	return persistent(api().ExscanInit(pmpi.InPlace, b, n, dt, op, comm.c))
}

// ReduceScatterInit makes a persistent ReduceScatter, inactive until Start.
func ReduceScatterInit[T Elem](send, recv []T, counts []int, op Op, comm Comm) (Request, error) {
	return persistent(api().ReduceScatterInit(pmpi.Bytes(send), pmpi.Bytes(recv), counts, pmpi.TypeOf[T](), op, comm.c))
}

// ReduceScatterInPlaceInit makes a persistent ReduceScatterInPlace, inactive until Start.
func ReduceScatterInPlaceInit[T Elem](buf []T, counts []int, op Op, comm Comm) (Request, error) {
	return persistent(api().ReduceScatterInit(pmpi.InPlace, pmpi.Bytes(buf), counts, pmpi.TypeOf[T](), op, comm.c))
}

// ReduceScatterBlockInit makes a persistent ReduceScatterBlock, inactive until Start.
func ReduceScatterBlockInit[T Elem](send, recv []T, op Op, comm Comm) (Request, error) {
	r, n, dt := typed(recv)
	return persistent(api().ReduceScatterBlockInit(pmpi.Bytes(send), r, n, dt, op, comm.c))
}

// ReduceScatterBlockInPlaceInit makes a persistent ReduceScatterBlockInPlace, inactive until Start.
func ReduceScatterBlockInPlaceInit[T Elem](buf []T, op Op, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	per, err := blocks("reduce scatter block", n, comm)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().ReduceScatterBlockInit(pmpi.InPlace, b, per, dt, op, comm.c))
}

// GatherInit makes a persistent Gather, inactive until Start.
func GatherInit[T Elem](send, recv []T, root int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	rn, err := rootBlock("gather", n, len(recv), root, comm)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().GatherInit(s, n, dt, pmpi.Bytes(recv), rn, dt, root, comm.c))
}

// GatherInPlaceInit makes a persistent GatherInPlace, inactive until Start.
func GatherInPlaceInit[T Elem](buf []T, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		per, err := blocks("gather", n, comm)
		if err != nil {
			return Request{}, err
		}
		return persistent(api().GatherInit(pmpi.InPlace, 0, dt, b, per, dt, root, comm.c))
	}
	return persistent(api().GatherInit(b, n, dt, nil, n, dt, root, comm.c))
}

// GathervInit makes a persistent Gatherv, inactive until Start.
func GathervInit[T Elem](send, recv []T, counts, displs []int, root int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().GathervInit(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, root, comm.c))
}

// GathervInPlaceInit makes a persistent GathervInPlace, inactive until Start.
func GathervInPlaceInit[T Elem](buf []T, counts, displs []int, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return persistent(api().GathervInit(pmpi.InPlace, 0, dt, b, counts, displs, dt, root, comm.c))
	}
	return persistent(api().GathervInit(b, n, dt, nil, nil, nil, dt, root, comm.c))
}

// ScatterInit makes a persistent Scatter, inactive until Start.
func ScatterInit[T Elem](send, recv []T, root int, comm Comm) (Request, error) {
	r, n, dt := typed(recv)
	sn, err := rootBlock("scatter", n, len(send), root, comm)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().ScatterInit(pmpi.Bytes(send), sn, dt, r, n, dt, root, comm.c))
}

// ScatterInPlaceInit makes a persistent ScatterInPlace, inactive until Start.
func ScatterInPlaceInit[T Elem](buf []T, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		per, err := blocks("scatter", n, comm)
		if err != nil {
			return Request{}, err
		}
		return persistent(api().ScatterInit(b, per, dt, pmpi.InPlace, 0, dt, root, comm.c))
	}
	return persistent(api().ScatterInit(nil, n, dt, b, n, dt, root, comm.c))
}

// ScattervInit makes a persistent Scatterv, inactive until Start.
func ScattervInit[T Elem](send []T, counts, displs []int, recv []T, root int, comm Comm) (Request, error) {
	r, n, dt := typed(recv)
	return persistent(api().ScattervInit(pmpi.Bytes(send), counts, displs, dt, r, n, dt, root, comm.c))
}

// ScattervInPlaceInit makes a persistent ScattervInPlace, inactive until Start.
func ScattervInPlaceInit[T Elem](buf []T, counts, displs []int, root int, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	if comm.rank() == root {
		return persistent(api().ScattervInit(b, counts, displs, dt, pmpi.InPlace, 0, dt, root, comm.c))
	}
	return persistent(api().ScattervInit(nil, nil, nil, dt, b, n, dt, root, comm.c))
}

// AllgatherInit makes a persistent Allgather, inactive until Start.
func AllgatherInit[T Elem](send, recv []T, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().AllgatherInit(s, n, dt, pmpi.Bytes(recv), n, dt, comm.c))
}

// AllgatherInPlaceInit makes a persistent AllgatherInPlace, inactive until Start.
func AllgatherInPlaceInit[T Elem](buf []T, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	per, err := blocks("allgather", n, comm)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().AllgatherInit(pmpi.InPlace, 0, dt, b, per, dt, comm.c))
}

// AllgathervInit makes a persistent Allgatherv, inactive until Start.
func AllgathervInit[T Elem](send, recv []T, counts, displs []int, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	return persistent(api().AllgathervInit(s, n, dt, pmpi.Bytes(recv), counts, displs, dt, comm.c))
}

// AllgathervInPlaceInit makes a persistent AllgathervInPlace, inactive until Start.
func AllgathervInPlaceInit[T Elem](buf []T, counts, displs []int, comm Comm) (Request, error) {
	b, _, dt := typed(buf)
	return persistent(api().AllgathervInit(pmpi.InPlace, 0, dt, b, counts, displs, dt, comm.c))
}

// AlltoallInit makes a persistent Alltoall, inactive until Start.
func AlltoallInit[T Elem](send, recv []T, comm Comm) (Request, error) {
	s, n, dt := typed(send)
	sper, err1 := blocks("alltoall", n, comm)
	rper, err2 := blocks("alltoall", len(recv), comm)
	if err := errors.Join(err1, err2); err != nil {
		return Request{}, err
	}
	return persistent(api().AlltoallInit(s, sper, dt, pmpi.Bytes(recv), rper, dt, comm.c))
}

// AlltoallInPlaceInit makes a persistent AlltoallInPlace, inactive until Start.
func AlltoallInPlaceInit[T Elem](buf []T, comm Comm) (Request, error) {
	b, n, dt := typed(buf)
	per, err := blocks("alltoall", n, comm)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().AlltoallInit(pmpi.InPlace, 0, dt, b, per, dt, comm.c))
}

// AlltoallvInit makes a persistent Alltoallv, inactive until Start.
func AlltoallvInit[T Elem](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int, comm Comm) (Request, error) {
	dt := pmpi.TypeOf[T]()
	return persistent(api().AlltoallvInit(pmpi.Bytes(send), scounts, sdispls, dt, pmpi.Bytes(recv), rcounts, rdispls, dt, comm.c))
}

// AlltoallvInPlaceInit makes a persistent AlltoallvInPlace, inactive until Start.
func AlltoallvInPlaceInit[T Elem](buf []T, counts, displs []int, comm Comm) (Request, error) {
	dt := pmpi.TypeOf[T]()
	return persistent(api().AlltoallvInit(pmpi.InPlace, nil, nil, dt, pmpi.Bytes(buf), counts, displs, dt, comm.c))
}
