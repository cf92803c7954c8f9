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

// blocks are the gather family's arguments: each side's buffer holds
// count elements, or count for each rank (many).
func blocks(s unsafe.Pointer, scount int, sdt Datatype, sMany bool, r unsafe.Pointer, rcount int, rdt Datatype, rMany bool, h Comm) (coll, error) {
	c, err := h.comm()
	if err != nil {
		return coll{}, err
	}
	sn, rn := scount, rcount
	if sMany {
		sn *= c.Peers()
	}
	if rMany {
		rn *= c.Peers()
	}
	return pairArgs(s, sn, sdt, r, rn, rdt, h)
}

// vblocks are the v-forms' arguments: counts and displacements for one
// side or both.
type vblocks struct {
	coll
	scounts, sdispls, rcounts, rdispls []int
}

func vargs[N cInt](s unsafe.Pointer, scount int, scounts, sdispls *N, sdt Datatype,
	r unsafe.Pointer, rcount int, rcounts, rdispls *N, rdt Datatype, h Comm) (*vblocks, error) {
	c, err := h.comm()
	if err != nil {
		return nil, err
	}
	n := c.Peers()
	v := &vblocks{scounts: ints(scounts, n), sdispls: ints(sdispls, n), rcounts: ints(rcounts, n), rdispls: ints(rdispls, n)}
	if scounts != nil {
		s = lowered(s, v.scounts, v.sdispls, sdt)
		scount = extentOf(v.scounts, v.sdispls)
	}
	if rcounts != nil {
		r = lowered(r, v.rcounts, v.rdispls, rdt)
		rcount = extentOf(v.rcounts, v.rdispls)
	}
	v.coll, err = pairArgs(s, scount, sdt, r, rcount, rdt, h)
	return v, err
}

// rootOnly forgets the side of a rooted call that a rank does not read
// (Gather's receive, Scatter's send, the root side): its buffer, count and
// datatype are not significant there, and C passes anything, often NULL
// and MPI_DATATYPE_NULL. On an intracommunicator only the root reads the
// root side. On an intercommunicator the root (MPI_ROOT) reads only the
// root side, the other ranks of its group (MPI_PROC_NULL) neither, and the
// other group only the other side.
func rootOnly(h Comm, root int, p *unsafe.Pointer, dt *Datatype, other *unsafe.Pointer, otherDt *Datatype) {
	c, err := h.comm()
	if err != nil {
		return
	}
	forget := func(p *unsafe.Pointer, dt *Datatype) { *p, *dt = nil, MPI_BYTE }
	r := rank(root)
	switch {
	case !c.IsInter():
		if c.Rank() != r {
			forget(p, dt)
		}
	case r == pmpi.Root:
		forget(other, otherDt)
	case r == pmpi.ProcNull:
		forget(p, dt)
		forget(other, otherDt)
	default:
		forget(p, dt)
	}
}

type (
	blockFunc  func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) error
	iblockFunc func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error)
	rootFunc   func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) error
	irootFunc  func(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error)
)

// The gather family without a root: Allgather (recv many) and Alltoall
// (both many).
func allBlocks(f blockFunc, sMany bool, s unsafe.Pointer, scount int, sdt Datatype, r unsafe.Pointer, rcount int, rdt Datatype, h Comm) error {
	a, err := blocks(s, scount, sdt, sMany, r, rcount, rdt, true, h)
	if err != nil {
		return err
	}
	return f(a.send, scount, a.sd, a.recv, rcount, a.rd, a.e.c)
}

func iallBlocks(f iblockFunc, persistent, sMany bool, s unsafe.Pointer, scount int, sdt Datatype, r unsafe.Pointer, rcount int, rdt Datatype, h Comm, req *Request) error {
	a, err := blocks(s, scount, sdt, sMany, r, rcount, rdt, true, h)
	if err != nil {
		return err
	}
	pr, err := f(a.send, scount, a.sd, a.recv, rcount, a.rd, a.e.c)
	return a.started(req, persistent, pr, err)
}

// The rooted ones: Gather (recv many) and Scatter (send many).
func rootBlocks(f rootFunc, gather bool, s unsafe.Pointer, scount int, sdt Datatype, r unsafe.Pointer, rcount int, rdt Datatype, root int, h Comm) error {
	if gather {
		rootOnly(h, root, &r, &rdt, &s, &sdt)
	} else {
		rootOnly(h, root, &s, &sdt, &r, &rdt)
	}
	a, err := blocks(s, scount, sdt, !gather, r, rcount, rdt, gather, h)
	if err != nil {
		return err
	}
	return f(a.send, scount, a.sd, a.recv, rcount, a.rd, rank(root), a.e.c)
}

func irootBlocks(f irootFunc, persistent, gather bool, s unsafe.Pointer, scount int, sdt Datatype, r unsafe.Pointer, rcount int, rdt Datatype, root int, h Comm, req *Request) error {
	if gather {
		rootOnly(h, root, &r, &rdt, &s, &sdt)
	} else {
		rootOnly(h, root, &s, &sdt, &r, &rdt)
	}
	a, err := blocks(s, scount, sdt, !gather, r, rcount, rdt, gather, h)
	if err != nil {
		return err
	}
	pr, err := f(a.send, scount, a.sd, a.recv, rcount, a.rd, rank(root), a.e.c)
	return a.started(req, persistent, pr, err)
}

func mpiAllgather(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm) error {
	return allBlocks(api().Allgather, false, s, sc, sdt, r, rc, rdt, h)
}

func mpiIallgather(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, req *Request) error {
	return iallBlocks(api().Iallgather, false, false, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiAllgatherInit(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, info Info, req *Request) error {
	return iallBlocks(api().AllgatherInit, true, false, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiAlltoall(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm) error {
	return allBlocks(api().Alltoall, true, s, sc, sdt, r, rc, rdt, h)
}

func mpiIalltoall(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, req *Request) error {
	return iallBlocks(api().Ialltoall, false, true, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiAlltoallInit(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, h Comm, info Info, req *Request) error {
	return iallBlocks(api().AlltoallInit, true, true, s, sc, sdt, r, rc, rdt, h, req)
}

func mpiGather(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm) error {
	return rootBlocks(api().Gather, true, s, sc, sdt, r, rc, rdt, root, h)
}

func mpiIgather(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm, req *Request) error {
	return irootBlocks(api().Igather, false, true, s, sc, sdt, r, rc, rdt, root, h, req)
}

func mpiGatherInit(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm, info Info, req *Request) error {
	return irootBlocks(api().GatherInit, true, true, s, sc, sdt, r, rc, rdt, root, h, req)
}

func mpiScatter(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm) error {
	return rootBlocks(api().Scatter, false, s, sc, sdt, r, rc, rdt, root, h)
}

func mpiIscatter(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm, req *Request) error {
	return irootBlocks(api().Iscatter, false, false, s, sc, sdt, r, rc, rdt, root, h, req)
}

func mpiScatterInit(s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm, info Info, req *Request) error {
	return irootBlocks(api().ScatterInit, true, false, s, sc, sdt, r, rc, rdt, root, h, req)
}

func mpiGatherv[N cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts, displs *N, rdt Datatype, root int, h Comm) error {
	rootOnly(h, root, &r, &rdt, &s, &sdt)
	v, err := vargs(s, sc, nil, nil, sdt, r, 0, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	return api().Gatherv(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, rank(root), v.e.c)
}

func mpiIgatherv[N cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts, displs *N, rdt Datatype, root int, h Comm, req *Request) error {
	rootOnly(h, root, &r, &rdt, &s, &sdt)
	v, err := vargs(s, sc, nil, nil, sdt, r, 0, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().Igatherv(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, rank(root), v.e.c)
	return v.started(req, false, pr, err)
}

func mpiGathervInit[N cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts, displs *N, rdt Datatype, root int, h Comm, info Info, req *Request) error {
	rootOnly(h, root, &r, &rdt, &s, &sdt)
	v, err := vargs(s, sc, nil, nil, sdt, r, 0, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().GathervInit(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, rank(root), v.e.c)
	return v.started(req, true, pr, err)
}

func mpiAllgatherv[N cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts, displs *N, rdt Datatype, h Comm) error {
	v, err := vargs(s, sc, nil, nil, sdt, r, 0, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	return api().Allgatherv(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
}

func mpiIallgatherv[N cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts, displs *N, rdt Datatype, h Comm, req *Request) error {
	v, err := vargs(s, sc, nil, nil, sdt, r, 0, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().Iallgatherv(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
	return v.started(req, false, pr, err)
}

func mpiAllgathervInit[N cInt](s unsafe.Pointer, sc int, sdt Datatype, r unsafe.Pointer, rcounts, displs *N, rdt Datatype, h Comm, info Info, req *Request) error {
	v, err := vargs(s, sc, nil, nil, sdt, r, 0, rcounts, displs, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().AllgathervInit(v.send, sc, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
	return v.started(req, true, pr, err)
}

func mpiScatterv[N cInt](s unsafe.Pointer, scounts, displs *N, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm) error {
	rootOnly(h, root, &s, &sdt, &r, &rdt)
	v, err := vargs(s, 0, scounts, displs, sdt, r, rc, nil, nil, rdt, h)
	if err != nil {
		return err
	}
	return api().Scatterv(v.send, v.scounts, v.sdispls, v.sd, v.recv, rc, v.rd, rank(root), v.e.c)
}

func mpiIscatterv[N cInt](s unsafe.Pointer, scounts, displs *N, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm, req *Request) error {
	rootOnly(h, root, &s, &sdt, &r, &rdt)
	v, err := vargs(s, 0, scounts, displs, sdt, r, rc, nil, nil, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().Iscatterv(v.send, v.scounts, v.sdispls, v.sd, v.recv, rc, v.rd, rank(root), v.e.c)
	return v.started(req, false, pr, err)
}

func mpiScattervInit[N cInt](s unsafe.Pointer, scounts, displs *N, sdt Datatype, r unsafe.Pointer, rc int, rdt Datatype, root int, h Comm, info Info, req *Request) error {
	rootOnly(h, root, &s, &sdt, &r, &rdt)
	v, err := vargs(s, 0, scounts, displs, sdt, r, rc, nil, nil, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().ScattervInit(v.send, v.scounts, v.sdispls, v.sd, v.recv, rc, v.rd, rank(root), v.e.c)
	return v.started(req, true, pr, err)
}

func mpiAlltoallv[N cInt](s unsafe.Pointer, scounts, sdispls *N, sdt Datatype, r unsafe.Pointer, rcounts, rdispls *N, rdt Datatype, h Comm) error {
	v, err := vargs(s, 0, scounts, sdispls, sdt, r, 0, rcounts, rdispls, rdt, h)
	if err != nil {
		return err
	}
	return api().Alltoallv(v.send, v.scounts, v.sdispls, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
}

func mpiIalltoallv[N cInt](s unsafe.Pointer, scounts, sdispls *N, sdt Datatype, r unsafe.Pointer, rcounts, rdispls *N, rdt Datatype, h Comm, req *Request) error {
	v, err := vargs(s, 0, scounts, sdispls, sdt, r, 0, rcounts, rdispls, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().Ialltoallv(v.send, v.scounts, v.sdispls, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
	return v.started(req, false, pr, err)
}

func mpiAlltoallvInit[N cInt](s unsafe.Pointer, scounts, sdispls *N, sdt Datatype, r unsafe.Pointer, rcounts, rdispls *N, rdt Datatype, h Comm, info Info, req *Request) error {
	v, err := vargs(s, 0, scounts, sdispls, sdt, r, 0, rcounts, rdispls, rdt, h)
	if err != nil {
		return err
	}
	pr, err := api().AlltoallvInit(v.send, v.scounts, v.sdispls, v.sd, v.recv, v.rcounts, v.rdispls, v.rd, v.e.c)
	return v.started(req, true, pr, err)
}
