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

// coll is a collective call's arguments, looked up and turned into Go's.
type coll struct {
	e          *commEntry
	send, recv []byte
	sd, rd     pmpi.Datatype
	op         pmpi.Op
}

// started returns what stores a non-blocking or persistent collective's
// request in *out.
func (a *coll) started(out *Request, persistent bool, r *pmpi.Request, err error) error {
	if err != nil {
		return err
	}
	return newRequest(out, r, a.e, persistent)
}

// cInt is C's integer types of counts and displacements: int, and
// MPI_Count and MPI_Aint (both 64 bits) of the _c functions.
type cInt interface{ C.int | C.int64_t }

// ints is the C array p of n integers.
func ints[T cInt](p *T, n int) []int {
	if p == nil {
		return nil
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int(v)
	}
	return out
}

// inPlace reports whether a buffer argument is MPI_IN_PLACE.
func inPlace(p unsafe.Pointer) bool { return uintptr(p) == 1 }

// extentOf is how many elements counts and displs reach. A block of no
// elements reaches nowhere, wherever its displacement points.
func extentOf(counts, displs []int) int {
	n := 0
	for i := range min(len(counts), len(displs)) {
		if counts[i] > 0 {
			n = max(n, displs[i]+counts[i])
		}
	}
	return n
}

// lowered moves a v-form's side whose displacements reach before its
// buffer (C allows it: they count from the buffer's address) to start
// at its lowest block, since gompi's buffers cannot start before their
// origin: p moves down by as many elements of dt as every displacement
// moves up. Blocks of no elements do not count.
func lowered(p unsafe.Pointer, counts, displs []int, dt Datatype) unsafe.Pointer {
	lo := 0
	for i := range min(len(counts), len(displs)) {
		if counts[i] > 0 {
			lo = min(lo, displs[i])
		}
	}
	if lo == 0 || p == nil || inPlace(p) {
		return p
	}
	d, err := dt.get()
	if err != nil {
		return p // the datatype's error comes with the side
	}
	_, ext := d.Extent()
	for i := range displs {
		displs[i] -= lo
	}
	return unsafe.Add(p, lo*ext)
}

// reduceArgs: Reduce, Allreduce, Scan, Exscan, ReduceScatterBlock
// (count per rank: recv holds count, send size*count).
func reduceArgs(s, r unsafe.Pointer, scount, rcount int, dt Datatype, op Op, h Comm) (coll, error) {
	e, d, err := resolve(h, dt, rcount)
	if err != nil {
		return coll{}, err
	}
	o, err := op.getFor(dt, d)
	if err != nil {
		return coll{}, err
	}
	if err := opFits(op, o, dt); err != nil {
		return coll{}, err
	}
	send, sd := sendBuffer(s, scount, d)
	recv, rd := buffer(r, rcount, d)
	if inPlace(s) {
		sd = rd // the reduction's one type must view recv as buffer did
	}
	return coll{e: e, send: send, recv: recv, sd: sd, rd: rd, op: o}, nil
}

// pairArgs: the collectives with a send and a receive datatype, each
// buffer of scount and rcount elements.
func pairArgs(s unsafe.Pointer, scount int, sdt Datatype, r unsafe.Pointer, rcount int, rdt Datatype, h Comm) (coll, error) {
	e, err := h.get()
	if err != nil {
		return coll{}, err
	}
	send, sd, err := side(s, scount, sdt)
	if err != nil {
		return coll{}, err
	}
	recv, rd, err := side(r, rcount, rdt)
	if err != nil {
		return coll{}, err
	}
	return coll{e: e, send: send, recv: recv, sd: sd, rd: rd}, nil
}

// side is one buffer of a call with a datatype for each: count elements
// of dt, or MPI_IN_PLACE, whose count and datatype the standard says are
// not significant; C passes anything there, often 0 and
// MPI_DATATYPE_NULL.
func side(p unsafe.Pointer, count int, dt Datatype) ([]byte, pmpi.Datatype, error) {
	if inPlace(p) {
		return pmpi.InPlace, pmpi.Byte, nil
	}
	d, err := dt.get()
	if err != nil {
		d, err = noData(dt, count, err)
	}
	if err != nil {
		return nil, pmpi.Datatype{}, err
	}
	b, d := buffer(p, count, d)
	return b, d, nil
}

func size(e *commEntry) int { return e.c.Size() }

func mpiBarrier(h Comm) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	return api().Barrier(c)
}

func mpiIbarrier(h Comm, req *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	a := &coll{e: e}
	pr, err := api().Ibarrier(e.c)
	return a.started(req, false, pr, err)
}

func mpiBarrierInit(h Comm, info Info, req *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	a := &coll{e: e}
	pr, err := api().BarrierInit(e.c)
	return a.started(req, true, pr, err)
}

func bcastArgs(buf unsafe.Pointer, count int, dt Datatype, h Comm) (coll, error) {
	e, d, err := resolve(h, dt, count)
	if err != nil {
		return coll{}, err
	}
	b, d := buffer(buf, count, d)
	return coll{e: e, recv: b, rd: d}, nil
}

func mpiBcast(buf unsafe.Pointer, count int, dt Datatype, root int, h Comm) error {
	a, err := bcastArgs(buf, count, dt, h)
	if err != nil {
		return err
	}
	return api().Bcast(a.recv, count, a.rd, rank(root), a.e.c)
}

func mpiIbcast(buf unsafe.Pointer, count int, dt Datatype, root int, h Comm, req *Request) error {
	a, err := bcastArgs(buf, count, dt, h)
	if err != nil {
		return err
	}
	pr, err := api().Ibcast(a.recv, count, a.rd, rank(root), a.e.c)
	return a.started(req, false, pr, err)
}

func mpiBcastInit(buf unsafe.Pointer, count int, dt Datatype, root int, h Comm, info Info, req *Request) error {
	a, err := bcastArgs(buf, count, dt, h)
	if err != nil {
		return err
	}
	pr, err := api().BcastInit(a.recv, count, a.rd, rank(root), a.e.c)
	return a.started(req, true, pr, err)
}

func mpiReduce(s, r unsafe.Pointer, count int, dt Datatype, op Op, root int, h Comm) error {
	a, err := rootedReduceArgs(s, r, count, dt, op, root, h)
	if err != nil {
		return err
	}
	return api().Reduce(a.send, a.recv, count, a.sd, a.op, rank(root), a.e.c)
}

func mpiIreduce(s, r unsafe.Pointer, count int, dt Datatype, op Op, root int, h Comm, req *Request) error {
	a, err := rootedReduceArgs(s, r, count, dt, op, root, h)
	if err != nil {
		return err
	}
	pr, err := api().Ireduce(a.send, a.recv, count, a.sd, a.op, rank(root), a.e.c)
	return a.started(req, false, pr, err)
}

func mpiReduceInit(s, r unsafe.Pointer, count int, dt Datatype, op Op, root int, h Comm, info Info, req *Request) error {
	a, err := rootedReduceArgs(s, r, count, dt, op, root, h)
	if err != nil {
		return err
	}
	pr, err := api().ReduceInit(a.send, a.recv, count, a.sd, a.op, rank(root), a.e.c)
	return a.started(req, true, pr, err)
}

// rootedReduceArgs is reduceArgs for Reduce's forms. At MPI_PROC_NULL,
// the ranks of an intercommunicator's root group but the root, only root
// is significant: the rest is not read (mpi4py passes an empty MPI_BYTE
// buffer there, with the root's operation).
func rootedReduceArgs(s, r unsafe.Pointer, count int, dt Datatype, op Op, root int, h Comm) (coll, error) {
	if root == C.MPI_PROC_NULL {
		if e, err := h.get(); err != nil || e.c.IsInter() {
			return coll{e: e}, err
		}
	}
	return reduceArgs(s, r, count, count, dt, op, h)
}

// reduceFunc and the like are gompi's reductions of one shape.
type (
	reduceFunc  func(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error
	ireduceFunc func(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error)
)

func reduce(f reduceFunc, s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm) error {
	a, err := reduceArgs(s, r, count, count, dt, op, h)
	if err != nil {
		return err
	}
	return f(a.send, a.recv, count, a.sd, a.op, a.e.c)
}

func ireduce(f ireduceFunc, persistent bool, s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, req *Request) error {
	a, err := reduceArgs(s, r, count, count, dt, op, h)
	if err != nil {
		return err
	}
	pr, err := f(a.send, a.recv, count, a.sd, a.op, a.e.c)
	return a.started(req, persistent, pr, err)
}

func mpiAllreduce(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm) error {
	return reduce(api().Allreduce, s, r, count, dt, op, h)
}

func mpiIallreduce(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, req *Request) error {
	return ireduce(api().Iallreduce, false, s, r, count, dt, op, h, req)
}

func mpiAllreduceInit(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, info Info, req *Request) error {
	return ireduce(api().AllreduceInit, true, s, r, count, dt, op, h, req)
}

func mpiScan(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm) error {
	return reduce(api().Scan, s, r, count, dt, op, h)
}

func mpiIscan(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, req *Request) error {
	return ireduce(api().Iscan, false, s, r, count, dt, op, h, req)
}

func mpiScanInit(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, info Info, req *Request) error {
	return ireduce(api().ScanInit, true, s, r, count, dt, op, h, req)
}

func mpiExscan(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm) error {
	return reduce(api().Exscan, s, r, count, dt, op, h)
}

func mpiIexscan(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, req *Request) error {
	return ireduce(api().Iexscan, false, s, r, count, dt, op, h, req)
}

func mpiExscanInit(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, info Info, req *Request) error {
	return ireduce(api().ExscanInit, true, s, r, count, dt, op, h, req)
}

// reduceScatterBlockArgs: recv holds count elements, send size*count;
// in place, recv holds the size*count of the input.
func reduceScatterBlockArgs(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm) (coll, error) {
	c, err := h.comm()
	if err != nil {
		return coll{}, err
	}
	rcount := count
	if inPlace(s) {
		rcount = count * c.Size()
	}
	return reduceArgs(s, r, count*c.Size(), rcount, dt, op, h)
}

func mpiReduceScatterBlock(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm) error {
	a, err := reduceScatterBlockArgs(s, r, count, dt, op, h)
	if err != nil {
		return err
	}
	return api().ReduceScatterBlock(a.send, a.recv, count, a.sd, a.op, a.e.c)
}

func mpiIreduceScatterBlock(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, req *Request) error {
	a, err := reduceScatterBlockArgs(s, r, count, dt, op, h)
	if err != nil {
		return err
	}
	pr, err := api().IreduceScatterBlock(a.send, a.recv, count, a.sd, a.op, a.e.c)
	return a.started(req, false, pr, err)
}

func mpiReduceScatterBlockInit(s, r unsafe.Pointer, count int, dt Datatype, op Op, h Comm, info Info, req *Request) error {
	a, err := reduceScatterBlockArgs(s, r, count, dt, op, h)
	if err != nil {
		return err
	}
	pr, err := api().ReduceScatterBlockInit(a.send, a.recv, count, a.sd, a.op, a.e.c)
	return a.started(req, true, pr, err)
}

// reduceScatterArgs: rank i's recv holds counts[i] elements, send their
// sum; in place, recv holds the sum.
func reduceScatterArgs[N cInt](s, r unsafe.Pointer, p *N, dt Datatype, op Op, h Comm) (coll, []int, error) {
	c, err := h.comm()
	if err != nil {
		return coll{}, nil, err
	}
	counts := ints(p, c.Size())
	total := 0
	for _, n := range counts {
		total += n
	}
	mine := 0
	if inPlace(s) {
		mine = total
	} else if c.Rank() < len(counts) {
		mine = counts[c.Rank()]
	}
	a, err := reduceArgs(s, r, total, mine, dt, op, h)
	return a, counts, err
}

func mpiReduceScatter[N cInt](s, r unsafe.Pointer, p *N, dt Datatype, op Op, h Comm) error {
	a, counts, err := reduceScatterArgs(s, r, p, dt, op, h)
	if err != nil {
		return err
	}
	return api().ReduceScatter(a.send, a.recv, counts, a.sd, a.op, a.e.c)
}

func mpiIreduceScatter[N cInt](s, r unsafe.Pointer, p *N, dt Datatype, op Op, h Comm, req *Request) error {
	a, counts, err := reduceScatterArgs(s, r, p, dt, op, h)
	if err != nil {
		return err
	}
	pr, err := api().IreduceScatter(a.send, a.recv, counts, a.sd, a.op, a.e.c)
	return a.started(req, false, pr, err)
}

func mpiReduceScatterInit[N cInt](s, r unsafe.Pointer, p *N, dt Datatype, op Op, h Comm, info Info, req *Request) error {
	a, counts, err := reduceScatterArgs(s, r, p, dt, op, h)
	if err != nil {
		return err
	}
	pr, err := api().ReduceScatterInit(a.send, a.recv, counts, a.sd, a.op, a.e.c)
	return a.started(req, true, pr, err)
}
