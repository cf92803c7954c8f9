package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// The w-forms of the all-to-all exchanges: a count, a displacement in
// bytes and a datatype per peer on each side (per rank for Alltoallw,
// per destination and source of the topology for Neighbor_alltoallw).
// A side's C buffer reaches as far as its farthest block: the largest
// displacement plus the span of its count elements of its type. Every
// datatype is resolved, a block of count 0's too: MPI_DATATYPE_NULL is
// an error there, as in Open MPI and MPICH. pmpi checks the rest.

// wSide is one side of a w-form, as pmpi takes it.
type wSide struct {
	buf            []byte
	counts, displs []int
	types          []pmpi.Datatype
}

// wSideOf reads n counts, displacements and datatypes from C and makes
// the buffer at p that their blocks reach. side is "send" or "recv", as
// the standard names the arrays.
func wSideOf[N, D ~int32 | ~int64](op, side string, p unsafe.Pointer, counts *N, displs *D, types *Datatype, n int) (wSide, error) {
	var w wSide
	var err error
	if w.counts, err = cInts(op, side+"counts", counts, n); err != nil {
		return w, err
	}
	if w.displs, err = cInts(op, side[:1]+"displs", displs, n); err != nil {
		return w, err
	}
	if n > 0 && types == nil {
		return w, errorf(pmpi.ClassArg, "%s: the array of %d %stypes is NULL", op, n, side)
	}
	w.types = make([]pmpi.Datatype, n)
	lo, end := 0, 0
	if p == nil {
		// MPI_BOTTOM: the types' displacements are addresses, and the
		// buffer starts at the lowest block.
		lo = math.MaxInt
	}
	for i, h := range unsafe.Slice(types, n) {
		d, err := h.get()
		if err != nil {
			d, err = noData(h, w.counts[i], err)
		}
		if err != nil {
			return w, errorf(pmpi.ClassType, "%s: %stypes[%d]: %v", op, side, i, err)
		}
		w.types[i] = d
		c := w.counts[i]
		if c <= 0 {
			continue // nothing to move; pmpi names a negative count
		}
		_, ext := d.Extent()
		tlb, text := d.TrueExtent()
		if (tlb < 0 || p == nil && tlb > 0) && ext >= 0 {
			// Data before the block's address, or from MPI_BOTTOM: the
			// block starts at its first byte of data, as buffer's do.
			if s, ok := shifted(d, -tlb); ok {
				w.types[i], w.displs[i], tlb = s, w.displs[i]+tlb, 0
			}
		}
		lo = min(lo, w.displs[i])
		end = max(end, w.displs[i]+(c-1)*ext+tlb+text)
	}
	if end-lo <= 0 {
		return w, nil
	}
	if lo != 0 {
		// Blocks before p (C allows negative displacements), or from
		// MPI_BOTTOM: the buffer starts at the lowest. An empty block's
		// displacement, which may lie anywhere, becomes 0.
		p, end = unsafe.Add(p, lo), end-lo
		for i := range w.displs {
			if w.counts[i] > 0 {
				w.displs[i] -= lo
			} else {
				w.displs[i] = 0
			}
		}
	}
	if p == nil {
		// MPI_BOTTOM with a block that could not be shifted to its data:
		// no buffer, which pmpi finds too short.
		return w, nil
	}
	w.buf = unsafe.Slice((*byte)(p), end)
	return w, nil
}

// wArgs are a w-form's arguments: the communicator and both sides.
type wArgs struct {
	coll
	s, r wSide
}

// wArgsOf reads a w-form's arguments; neighbor says that the sides hold
// a block per destination and source of the topology, not per rank. An
// in-place send side is not read: pmpi takes the receive side's blocks.
func wArgsOf[N, D ~int32 | ~int64](op string, neighbor bool, s unsafe.Pointer, scounts *N, sdispls *D, stypes *Datatype,
	r unsafe.Pointer, rcounts *N, rdispls *D, rtypes *Datatype, h Comm) (*wArgs, error) {
	e, err := h.get()
	if err != nil {
		return nil, err
	}
	in, out := e.c.Peers(), e.c.Peers()
	if neighbor {
		in, out = e.c.Degrees()
	}
	a := &wArgs{coll: coll{e: e}}
	if a.r, err = wSideOf(op, "recv", r, rcounts, rdispls, rtypes, in); err != nil {
		return nil, err
	}
	if uintptr(s) == 1 {
		a.s.buf = pmpi.InPlace
		return a, nil
	}
	if a.s, err = wSideOf(op, "send", s, scounts, sdispls, stypes, out); err != nil {
		return nil, err
	}
	return a, nil
}

// alltoallwFunc is the shape of pmpi's w-forms, a blocking one's made
// to return a nil request (blockingW).
type alltoallwFunc func(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error)

func blockingW(f func(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) error) alltoallwFunc {
	return func(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
		return nil, f(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	}
}

// alltoallw runs one of the six calls in any of its two forms: req is
// nil for a blocking call.
func alltoallw[N, D ~int32 | ~int64](op string, neighbor bool, f alltoallwFunc, persistent bool,
	s unsafe.Pointer, scounts *N, sdispls *D, stypes *Datatype,
	r unsafe.Pointer, rcounts *N, rdispls *D, rtypes *Datatype, h Comm, req *Request) error {
	a, err := wArgsOf(op, neighbor, s, scounts, sdispls, stypes, r, rcounts, rdispls, rtypes, h)
	if err != nil {
		return err
	}
	pr, err := f(a.s.buf, a.s.counts, a.s.displs, a.s.types, a.r.buf, a.r.counts, a.r.displs, a.r.types, a.e.c)
	if req == nil {
		return err
	}
	return a.started(req, persistent, pr, err)
}

func mpiAlltoallw[N, D cInt](s unsafe.Pointer, sc *N, sd *D, st *Datatype, r unsafe.Pointer, rc *N, rd *D, rt *Datatype, h Comm) error {
	return alltoallw("alltoallw", false, blockingW(api().Alltoallw), false, s, sc, sd, st, r, rc, rd, rt, h, nil)
}

func mpiIalltoallw[N, D cInt](s unsafe.Pointer, sc *N, sd *D, st *Datatype, r unsafe.Pointer, rc *N, rd *D, rt *Datatype, h Comm, req *Request) error {
	return alltoallw("ialltoallw", false, api().Ialltoallw, false, s, sc, sd, st, r, rc, rd, rt, h, req)
}

func mpiAlltoallwInit[N, D cInt](s unsafe.Pointer, sc *N, sd *D, st *Datatype, r unsafe.Pointer, rc *N, rd *D, rt *Datatype, h Comm, info Info, req *Request) error {
	return alltoallw("alltoallw init", false, api().AlltoallwInit, true, s, sc, sd, st, r, rc, rd, rt, h, req)
}

// The neighbourhood forms take MPI_Aint displacements in both forms, and
// int or MPI_Count counts.

func mpiNeighborAlltoallw[N, D cInt](s unsafe.Pointer, sc *N, sd *D, st *Datatype, r unsafe.Pointer, rc *N, rd *D, rt *Datatype, h Comm) error {
	return alltoallw("neighbor alltoallw", true, blockingW(api().NeighborAlltoallw), false, s, sc, sd, st, r, rc, rd, rt, h, nil)
}

func mpiIneighborAlltoallw[N, D cInt](s unsafe.Pointer, sc *N, sd *D, st *Datatype, r unsafe.Pointer, rc *N, rd *D, rt *Datatype, h Comm, req *Request) error {
	return alltoallw("ineighbor alltoallw", true, api().IneighborAlltoallw, false, s, sc, sd, st, r, rc, rd, rt, h, req)
}

func mpiNeighborAlltoallwInit[N, D cInt](s unsafe.Pointer, sc *N, sd *D, st *Datatype, r unsafe.Pointer, rc *N, rd *D, rt *Datatype, h Comm, info Info, req *Request) error {
	return alltoallw("neighbor alltoallw init", true, api().NeighborAlltoallwInit, true, s, sc, sd, st, r, rc, rd, rt, h, req)
}
