package mpi

import "github.com/gompi/gompi/pmpi"

// The w-forms of the all-to-all exchanges give every block its own
// datatype: block i of send is scounts[i] elements of stypes[i] starting
// sdispls[i] bytes into send, and block j of recv is rcounts[j] elements
// of rtypes[j] starting rdispls[j] bytes into recv. The displacements are
// in bytes, not in elements as in the v-forms, since the blocks' types
// differ; a layout's Datatype method gives its datatype, TypeOf a
// predefined one. Every block's datatype must be valid, a block of count
// 0's too (its datatype an int64's will do). A halo exchange with a layout per neighbour (a face of
// a grid as a Subarray or a Vector) is NeighborAlltoallw's typical use.

// Alltoallw sends block i of send to rank i and receives block j of recv
// from rank j.
func Alltoallw[S, R Elem](send []S, scounts, sdispls []int, stypes []Datatype, recv []R, rcounts, rdispls []int, rtypes []Datatype, comm Comm) error {
	return api().Alltoallw(pmpi.Bytes(send), scounts, sdispls, stypes, pmpi.Bytes(recv), rcounts, rdispls, rtypes, comm.c)
}

// AlltoallwInPlace is Alltoallw where buf's blocks, as counts, displs and
// types describe them, are sent and replaced.
func AlltoallwInPlace[T Elem](buf []T, counts, displs []int, types []Datatype, comm Comm) error {
	return api().Alltoallw(pmpi.InPlace, nil, nil, nil, pmpi.Bytes(buf), counts, displs, types, comm.c)
}

// Ialltoallw starts Alltoallw and returns its request.
func Ialltoallw[S, R Elem](send []S, scounts, sdispls []int, stypes []Datatype, recv []R, rcounts, rdispls []int, rtypes []Datatype, comm Comm) (Request, error) {
	return started(api().Ialltoallw(pmpi.Bytes(send), scounts, sdispls, stypes, pmpi.Bytes(recv), rcounts, rdispls, rtypes, comm.c))
}

// IalltoallwInPlace starts AlltoallwInPlace and returns its request.
func IalltoallwInPlace[T Elem](buf []T, counts, displs []int, types []Datatype, comm Comm) (Request, error) {
	return started(api().Ialltoallw(pmpi.InPlace, nil, nil, nil, pmpi.Bytes(buf), counts, displs, types, comm.c))
}

// AlltoallwInit makes a persistent Alltoallw, inactive until Start.
func AlltoallwInit[S, R Elem](send []S, scounts, sdispls []int, stypes []Datatype, recv []R, rcounts, rdispls []int, rtypes []Datatype, comm Comm) (Request, error) {
	return persistent(api().AlltoallwInit(pmpi.Bytes(send), scounts, sdispls, stypes, pmpi.Bytes(recv), rcounts, rdispls, rtypes, comm.c))
}

// AlltoallwInPlaceInit makes a persistent AlltoallwInPlace, inactive
// until Start: each start sends what buf's blocks hold then.
func AlltoallwInPlaceInit[T Elem](buf []T, counts, displs []int, types []Datatype, comm Comm) (Request, error) {
	return persistent(api().AlltoallwInit(pmpi.InPlace, nil, nil, nil, pmpi.Bytes(buf), counts, displs, types, comm.c))
}

// NeighborAlltoallw sends block i of send to destination i of comm's
// topology and receives block j of recv from source j, as the other
// neighbourhood collectives order them (neighbor.go).
func NeighborAlltoallw[S, R Elem](send []S, scounts, sdispls []int, stypes []Datatype, recv []R, rcounts, rdispls []int, rtypes []Datatype, comm Comm) error {
	return api().NeighborAlltoallw(pmpi.Bytes(send), scounts, sdispls, stypes, pmpi.Bytes(recv), rcounts, rdispls, rtypes, comm.c)
}

// IneighborAlltoallw starts NeighborAlltoallw and returns its request.
func IneighborAlltoallw[S, R Elem](send []S, scounts, sdispls []int, stypes []Datatype, recv []R, rcounts, rdispls []int, rtypes []Datatype, comm Comm) (Request, error) {
	return started(api().IneighborAlltoallw(pmpi.Bytes(send), scounts, sdispls, stypes, pmpi.Bytes(recv), rcounts, rdispls, rtypes, comm.c))
}

// NeighborAlltoallwInit makes a persistent NeighborAlltoallw, inactive
// until Start.
func NeighborAlltoallwInit[S, R Elem](send []S, scounts, sdispls []int, stypes []Datatype, recv []R, rcounts, rdispls []int, rtypes []Datatype, comm Comm) (Request, error) {
	return persistent(api().NeighborAlltoallwInit(pmpi.Bytes(send), scounts, sdispls, stypes, pmpi.Bytes(recv), rcounts, rdispls, rtypes, comm.c))
}
