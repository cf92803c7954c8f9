package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// The neighbourhood collectives. Their buffers hold a block per source
// (receive) or destination (send) of the communicator's topology, not per
// rank; a communicator without one has no neighbours, and gompi says so.

// nbBlocks are a neighbourhood collective's arguments: the receive buffer
// holds rcount elements per source; the send buffer scount, or scount per
// destination (sMany).
func nbBlocks(s unsafe.Pointer, scount int, sdt Datatype, sMany bool, r unsafe.Pointer, rcount int, rdt Datatype, h Comm) (coll, error) {
	c, err := h.comm()
	if err != nil {
		return coll{}, err
	}
	in, out := c.Degrees()
	if sMany {
		scount *= out
	}
	return pairArgs(s, scount, sdt, r, rcount*in, rdt, h)
}

// nbVectors are the v-forms' arguments: counts and displacements, of
// int or (for the _c forms) MPI_Count and MPI_Aint, per source for the
// receive side and per destination for the send side; a nil scounts
// means one block of scount.
type nbVectors struct {
	coll
	scounts, sdispls, rcounts, rdispls []int
}

func nbVargs[N, D ~int32 | ~int64](op string, s unsafe.Pointer, scount int, scounts *N, sdispls *D, sdt Datatype,
	r unsafe.Pointer, rcounts *N, rdispls *D, rdt Datatype, h Comm) (*nbVectors, error) {
	c, err := h.comm()
	if err != nil {
		return nil, err
	}
	in, out := c.Degrees()
	v := &nbVectors{}
	if scounts != nil {
		if v.scounts, err = cInts(op, "sendcounts", scounts, out); err != nil {
			return nil, err
		}
		if v.sdispls, err = cInts(op, "sdispls", sdispls, out); err != nil {
			return nil, err
		}
		s = lowered(s, v.scounts, v.sdispls, sdt)
		scount = extentOf(v.scounts, v.sdispls)
	}
	if v.rcounts, err = cInts(op, "recvcounts", rcounts, in); err != nil {
		return nil, err
	}
	if v.rdispls, err = cInts(op, "rdispls", rdispls, in); err != nil {
		return nil, err
	}
	r = lowered(r, v.rcounts, v.rdispls, rdt)
	v.coll, err = pairArgs(s, scount, sdt, r, extentOf(v.rcounts, v.rdispls), rdt, h)
	return v, err
}

func nbAll(f blockFunc, sMany bool, s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm) error {
	a, err := nbBlocks(s, sc, sdt, sMany, r, rc, rdt, h)
	if err != nil {
		return err
	}
	return f(a.send, sc, a.sd, a.recv, rc, a.rd, a.e.c)
}

func inbAll(f iblockFunc, persistent, sMany bool, s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, req *Request) error {
	a, err := nbBlocks(s, sc, sdt, sMany, r, rc, rdt, h)
	if err != nil {
		return err
	}
	pr, err := f(a.send, sc, a.sd, a.recv, rc, a.rd, a.e.c)
	return a.started(req, persistent, pr, err)
}

func mpiNeighborAllgather(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm) error {
	return nbAll(api().NeighborAllgather, false, s, sc, sdt, r, rc, rdt, h)
}

func mpiIneighborAllgather(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, req *Request) error {
	return inbAll(api().IneighborAllgather, false, false, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiNeighborAllgatherInit(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, info Info, req *Request) error {
	return inbAll(api().NeighborAllgatherInit, true, false, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiNeighborAlltoall(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm) error {
	return nbAll(api().NeighborAlltoall, true, s, sc, sdt, r, rc, rdt, h)
}

func mpiIneighborAlltoall(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, req *Request) error {
	return inbAll(api().IneighborAlltoall, false, true, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiNeighborAlltoallInit(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, info Info, req *Request) error {
	return inbAll(api().NeighborAlltoallInit, true, true, s, sc, sdt, r, rc, rdt, h, req)
}

type (
	allgathervFunc func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error)
	alltoallvFunc  func(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error)
)

// blockingAllgatherv and blockingAlltoallv give a blocking v-form the
// shape of its non-blocking twin, so that one function serves the three
// forms.
func blockingAllgatherv(f func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) error) allgathervFunc {
	return func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
		return nil, f(send, scount, sdt, recv, counts, displs, rdt, comm)
	}
}

func blockingAlltoallv(f func(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) error) alltoallvFunc {
	return func(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
		return nil, f(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	}
}

// finish stores the request of a non-blocking or persistent form; a
// blocking one (req nil) has none.
func (v *nbVectors) finish(req *Request, persistent bool, r *pmpi.Request, err error) error {
	if req == nil {
		return err
	}
	return v.started(req, persistent, r, err)
}

func nbAllgatherv[N, D ~int32 | ~int64](op string, f allgathervFunc, persistent bool, s unsafe.Pointer, sc int, sdt Datatype,
	r unsafe.Pointer, rcounts *N, displs *D, rdt Datatype, h Comm, req *Request) error {
	v, err := nbVargs[N, D](op, s, sc, nil, nil, sdt, r, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	pr, err := f(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
	return v.finish(req, persistent, pr, err)
}

func nbAlltoallv[N, D ~int32 | ~int64](op string, f alltoallvFunc, persistent bool, s unsafe.Pointer, scounts *N, sdispls *D, sdt Datatype,
	r unsafe.Pointer, rcounts *N, rdispls *D, rdt Datatype, h Comm, req *Request) error {
	if scounts == nil {
		return errorf(pmpi.ClassArg, "%s: sendcounts is NULL", op)
	}
	v, err := nbVargs(op, s, 0, scounts, sdispls, sdt, r, rcounts, rdispls, rdt, h)
	if err != nil {
		return err
	}
	pr, err := f(v.send, v.scounts, v.sdispls, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
	return v.finish(req, persistent, pr, err)
}

func mpiNeighborAllgatherv[N, D cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts *N, displs *D, rdt Datatype, h Comm) error {
	return nbAllgatherv("neighbor allgatherv", blockingAllgatherv(api().NeighborAllgatherv), false, s, sc, sdt, r, rcounts, displs, rdt, h, nil)
}

func mpiIneighborAllgatherv[N, D cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts *N, displs *D, rdt Datatype, h Comm, req *Request) error {
	return nbAllgatherv("ineighbor allgatherv", api().IneighborAllgatherv, false, s, sc, sdt, r, rcounts, displs, rdt, h, req)
}

func mpiNeighborAllgathervInit[N, D cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts *N, displs *D, rdt Datatype, h Comm, info Info, req *Request) error {
	return nbAllgatherv("neighbor allgatherv init", api().NeighborAllgathervInit, true, s, sc, sdt, r, rcounts, displs, rdt, h, req)
}

func mpiNeighborAlltoallv[N, D cInt](s unsafe.Pointer, scounts *N, sdispls *D, sdt Datatype, r unsafe.Pointer, rcounts *N, rdispls *D, rdt Datatype, h Comm) error {
	return nbAlltoallv("neighbor alltoallv", blockingAlltoallv(api().NeighborAlltoallv), false, s, scounts, sdispls, sdt, r, rcounts, rdispls, rdt, h, nil)
}

func mpiIneighborAlltoallv[N, D cInt](s unsafe.Pointer, scounts *N, sdispls *D, sdt Datatype, r unsafe.Pointer, rcounts *N, rdispls *D, rdt Datatype, h Comm, req *Request) error {
	return nbAlltoallv("ineighbor alltoallv", api().IneighborAlltoallv, false, s, scounts, sdispls, sdt, r, rcounts, rdispls, rdt, h, req)
}

func mpiNeighborAlltoallvInit[N, D cInt](s unsafe.Pointer, scounts *N, sdispls *D, sdt Datatype, r unsafe.Pointer, rcounts *N, rdispls *D, rdt Datatype, h Comm, info Info, req *Request) error {
	return nbAlltoallv("neighbor alltoallv init", api().NeighborAlltoallvInit, true, s, scounts, sdispls, sdt, r, rcounts, rdispls, rdt, h, req)
}
