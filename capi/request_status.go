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

// MPI 4.1's MPI_Request_get_status_all, _any and _some: the completion
// calls' views of a set of requests, which free no request and leave
// every one as it was.

// active reports whether r is an operation that may complete: not a null
// request, nor an inactive persistent one.
func active(r *pmpi.Request) bool { return r != nil && r.Gen()%2 == 1 }

// statusOf is the status of b's request i if it has completed; null and
// inactive requests have completed with an empty status.
func (b *batch) statusOf(i int) (bool, error) {
	if !active(b.reqs[i]) {
		b.sts[i] = empty
		return true, nil
	}
	s, ok, err := api().RequestGetStatus(b.reqs[i])
	if ok {
		b.sts[i] = s
	}
	return ok, failed(b.comms[i], err)
}

func mpiRequestGetStatusAll(n int, p *Request, flag *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	*flag = 0
	for i := range n {
		if ok, err := b.statusOf(i); !ok || err != nil {
			return err
		}
	}
	*flag = 1
	sts := statuses(st, n)
	for i := range sts {
		putStatus(&sts[i], &b.sts[i])
	}
	return nil
}

func mpiRequestGetStatusAny(n int, p *Request, index, flag *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	*index, *flag = C.MPI_UNDEFINED, 0
	someActive := false
	for i, r := range b.reqs {
		if !active(r) {
			continue
		}
		someActive = true
		ok, err := b.statusOf(i)
		if ok {
			*index, *flag = C.int(i), 1
			putStatus(st, &b.sts[i])
		}
		if ok || err != nil {
			return err
		}
	}
	if !someActive { // no active request: the call has nothing to wait for
		*flag = 1
		putStatus(st, &empty)
	}
	return nil
}

func mpiRequestGetStatusSome(n int, p *Request, outcount, indices *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	*outcount = C.MPI_UNDEFINED
	k, someActive := 0, false
	out, sts := unsafe.Slice(indices, n), statuses(st, n)
	for i, r := range b.reqs {
		if !active(r) {
			continue
		}
		someActive = true
		ok, err := b.statusOf(i)
		if err != nil {
			return err
		}
		if ok {
			out[k] = C.int(i)
			if sts != nil {
				putStatus(&sts[k], &b.sts[i])
			}
			k++
		}
	}
	if someActive {
		*outcount = C.int(k)
	}
	return nil
}
