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

// pinitFunc is PsendInit's or PrecvInit's shape.
type pinitFunc func(buf []byte, partitions, count int, dt pmpi.Datatype, peer, tag int, comm *pmpi.Comm) (*pmpi.Request, error)

// pinit makes a partitioned request: partitions parts of count elements
// of dt from buf. The info is checked and has no hints gompi reads.
func pinit(f pinitFunc, op string, buf unsafe.Pointer, partitions, count int, dt Datatype, peer, t int, h Comm, ih Info, req *Request) error {
	n := 0
	if partitions > 0 && count > 0 {
		if count > math.MaxInt/partitions {
			return errorf(pmpi.ClassCount, "%s: %d partitions of %d elements are too many", op, partitions, count)
		}
		n = partitions * count
	}
	e, d, err := resolve(h, dt, n)
	if err != nil {
		return err
	}
	if _, err := ih.optional(); err != nil {
		return err
	}
	b, d := buffer(buf, n, d)
	r, err := f(b, partitions, count, d, rank(peer), tag(t), e.c)
	if err != nil {
		return err
	}
	return newRequest(req, r, e, true)
}

func mpiPsendInit(buf unsafe.Pointer, partitions, count int, dt Datatype, dest, tag int, h Comm, ih Info, req *Request) error {
	return pinit(api().PsendInit, "psend init", buf, partitions, count, dt, dest, tag, h, ih, req)
}

func mpiPrecvInit(buf unsafe.Pointer, partitions, count int, dt Datatype, source, tag int, h Comm, ih Info, req *Request) error {
	return pinit(api().PrecvInit, "precv init", buf, partitions, count, dt, source, tag, h, ih, req)
}

func mpiPready(partition int, h Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	return failed(e.comm, api().Pready(partition, e.r))
}

func mpiPreadyRange(lo, hi int, h Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	return failed(e.comm, api().PreadyRange(lo, hi, e.r))
}

func mpiPreadyList(n int, list *C.int, h Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	if n < 0 || (n > 0 && list == nil) {
		return failed(e.comm, errorf(pmpi.ClassArg, "pready list: %d partitions listed at %p", n, list))
	}
	parts := make([]int, n)
	for i, p := range unsafe.Slice(list, n) {
		parts[i] = int(p)
	}
	return failed(e.comm, api().PreadyList(parts, e.r))
}

func mpiParrived(h Request, partition int, flag *C.int) error {
	if h == MPI_REQUEST_NULL {
		*flag = 1 // MPI: a null request, like an inactive one, awaits nothing
		return nil
	}
	e, err := h.get()
	if err != nil {
		return err
	}
	ok, err := api().Parrived(e.r, partition)
	*flag = cbool(ok)
	return failed(e.comm, err)
}
