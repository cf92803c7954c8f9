package mpi

import "github.com/gompi/gompi/pmpi"

// The collectives with per-rank (or per-neighbour) counts, the scans and
// the reduce-scatters over layouts. Counts are elements of the layout;
// displacements are in the layout's extents, so that block i of a
// receive starts displs[i] extents into recv, as MPI's displacements do.

// GathervLayout is GatherLayout with counts[i] elements of rl from rank i
// at displs[i] of recv at root.
func GathervLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, counts, displs []int, rl Layout[R], root int, comm Comm) error {
	return api().Gatherv(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), counts, displs, rl.dt, root, comm.c)
}

// ScattervLayout is ScatterLayout with counts[i] elements of sl from
// displs[i] of send at root going to rank i.
func ScattervLayout[S, R Elem](send []S, counts, displs []int, sl Layout[S], recv []R, rcount int, rl Layout[R], root int, comm Comm) error {
	return api().Scatterv(pmpi.Bytes(send), counts, displs, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, root, comm.c)
}

// AllgathervLayout is GathervLayout with the result at every rank.
func AllgathervLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, counts, displs []int, rl Layout[R], comm Comm) error {
	return api().Allgatherv(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), counts, displs, rl.dt, comm.c)
}

// AlltoallvLayout sends scounts[i] elements of sl from sdispls[i] of send
// to rank i and receives rcounts[j] elements of rl at rdispls[j] of recv
// from rank j.
func AlltoallvLayout[S, R Elem](send []S, scounts, sdispls []int, sl Layout[S], recv []R, rcounts, rdispls []int, rl Layout[R], comm Comm) error {
	return api().Alltoallv(pmpi.Bytes(send), scounts, sdispls, sl.dt, pmpi.Bytes(recv), rcounts, rdispls, rl.dt, comm.c)
}

// ScanLayout leaves in recv at rank i the reduction of ranks 0 to i's
// count elements of l, as ReduceLayout combines them.
func ScanLayout[T Elem](send, recv []T, count int, l Layout[T], op Op, comm Comm) error {
	return api().Scan(pmpi.Bytes(send), pmpi.Bytes(recv), count, l.dt, op, comm.c)
}

// ExscanLayout is ScanLayout over ranks 0 to i-1; rank 0's recv is left
// as it was.
func ExscanLayout[T Elem](send, recv []T, count int, l Layout[T], op Op, comm Comm) error {
	return api().Exscan(pmpi.Bytes(send), pmpi.Bytes(recv), count, l.dt, op, comm.c)
}

// ReduceScatterLayout reduces the sum of counts elements of l from every
// rank and leaves counts[i] of them, from the sum of counts[:i], in recv
// at rank i.
func ReduceScatterLayout[T Elem](send, recv []T, counts []int, l Layout[T], op Op, comm Comm) error {
	return api().ReduceScatter(pmpi.Bytes(send), pmpi.Bytes(recv), counts, l.dt, op, comm.c)
}

// ReduceScatterBlockLayout is ReduceScatterLayout with count elements for
// every rank.
func ReduceScatterBlockLayout[T Elem](send, recv []T, count int, l Layout[T], op Op, comm Comm) error {
	return api().ReduceScatterBlock(pmpi.Bytes(send), pmpi.Bytes(recv), count, l.dt, op, comm.c)
}

// NeighborAllgatherLayout sends scount elements of sl to every
// destination of comm's topology and receives rcount elements of rl from
// source j into block j of recv.
func NeighborAllgatherLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, rcount int, rl Layout[R], comm Comm) error {
	return api().NeighborAllgather(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, comm.c)
}

// NeighborAllgathervLayout is NeighborAllgatherLayout receiving counts[j]
// elements of rl at displs[j] of recv from source j.
func NeighborAllgathervLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, counts, displs []int, rl Layout[R], comm Comm) error {
	return api().NeighborAllgatherv(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), counts, displs, rl.dt, comm.c)
}

// NeighborAlltoallLayout sends block i of send (scount elements of sl) to
// destination i and receives block j of recv (rcount elements of rl) from
// source j; blocks follow each other at the layout's extent.
func NeighborAlltoallLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, rcount int, rl Layout[R], comm Comm) error {
	return api().NeighborAlltoall(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, comm.c)
}

// NeighborAlltoallvLayout is NeighborAlltoallLayout with per-neighbour
// counts and displacements.
func NeighborAlltoallvLayout[S, R Elem](send []S, scounts, sdispls []int, sl Layout[S], recv []R, rcounts, rdispls []int, rl Layout[R], comm Comm) error {
	return api().NeighborAlltoallv(pmpi.Bytes(send), scounts, sdispls, sl.dt, pmpi.Bytes(recv), rcounts, rdispls, rl.dt, comm.c)
}
