package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// MPI 4.1's MPI_Request_get_status_all, _any and _some: the completion
// calls' views of a set of requests, which free no request and leave
// every one as it was.

// active reports whether r is an operation that may complete: not a null
// request, nor an inactive persistent one.
func active(r *pmpi.Request) bool { return r != nil && r.Gen()%2 == 1 }

// statusOf reports whether b's request i has completed, and puts its
// status, with the request's error, in b.sts[i]; null and inactive
// requests have completed with an empty status.
func (b *batch) statusOf(i int) bool {
	if !active(b.reqs[i]) {
		b.sts[i] = empty
		return true
	}
	s, ok, err := api().RequestGetStatus(b.reqs[i])
	if ok {
		s.Err = err
		b.sts[i] = s
	}
	return ok
}

// inStatus is the error of a view of the requests idx, as Testall's and
// Testsome's: MPI_ERR_IN_STATUS when one of them failed, each status's
// MPI_ERROR set, or nil with the statuses' MPI_ERROR untouched.
func (b *batch) inStatus(op string, sts []C.MPI_Status, idx []int) error {
	var errs []error
	for j := range idx {
		if e := b.sts[j].Err; e != nil {
			errs = append(errs, e)
		}
	}
	if errs == nil {
		return nil
	}
	err := &pmpi.Error{Class: pmpi.ClassInStatus, Msg: fmt.Sprintf("%s: %d of %d completed requests failed", op, len(errs), len(idx)), Err: errors.Join(errs...)}
	return b.errorOf(err, sts, idx)
}

func mpiRequestGetStatusAll(n int, p *Request, flag *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	*flag = 0
	for i := range n {
		if !b.statusOf(i) {
			return nil
		}
	}
	*flag = 1
	sts := statuses(st, n)
	for i := range sts {
		putStatus(&sts[i], &b.sts[i])
	}
	return b.inStatus("request get status all", sts, all(n))
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
		if b.statusOf(i) {
			*index, *flag = C.int(i), 1
			putStatus(st, &b.sts[i])
			return failed(b.comms[i], b.sts[i].Err)
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
	if cap(b.idx) < n {
		b.idx = make([]int, n)
	}
	idx := b.idx[:0]
	someActive := false
	out, sts := unsafe.Slice(indices, n), statuses(st, n)
	for i, r := range b.reqs {
		if !active(r) {
			continue
		}
		someActive = true
		if b.statusOf(i) {
			b.sts[len(idx)] = b.sts[i] // inStatus reads status j at j, as Testsome's
			out[len(idx)] = C.int(i)
			if sts != nil {
				putStatus(&sts[len(idx)], &b.sts[i])
			}
			idx = append(idx, i)
		}
	}
	if !someActive {
		return nil
	}
	*outcount = C.int(len(idx))
	return b.inStatus("request get status some", sts, idx)
}
