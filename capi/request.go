package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// reqEntry is a request and the communicator whose error handler its
// errors go to. A persistent request keeps its handle when it completes.
type reqEntry struct {
	r          *pmpi.Request
	comm       *commEntry
	persistent bool
	// A generalized request's handle outlives MPI_Request_free until
	// MPI_Grequest_complete, which the program calls with it still
	// (done: it was called).
	general, freed, done bool
}

// newRequest gives r a handle. The table recycles the entries of completed
// requests: a C program's Isend or Irecv otherwise allocates one each, on
// its fastest path.
func newRequest(out *Request, r *pmpi.Request, e *commEntry, persistent bool) error {
	h, err := lib.reqs.put(reqEntry{r: r, comm: e, persistent: persistent})
	if err != nil {
		return err
	}
	*out = Request(h)
	return nil
}

func (h Request) get() (*reqEntry, error) {
	if e := lib.reqs.get(uintptr(h)); e != nil {
		return e, nil
	}
	return nil, errorf(pmpi.ClassRequest, "%#x is not a request (completed, freed, or never one)", uintptr(h))
}

// completed forgets a request that has completed, unless it is
// persistent. The entry is then reused: read it before.
func completed(h *Request, e *reqEntry) {
	if !e.persistent {
		forget(h)
	}
}

// forget takes back a request's handle and its entry.
func forget(h *Request) {
	lib.reqs.recycle(uintptr(*h))
	*h = MPI_REQUEST_NULL
}

// failed is err for the error handler of the request's communicator.
func failed(comm *commEntry, err error) error {
	if err == nil {
		return nil
	}
	return &onComm{comm, err}
}

var empty = pmpi.EmptyStatus()

func mpiWait(h *Request, st *C.MPI_Status) error {
	if *h == MPI_REQUEST_NULL {
		putStatus(st, &empty)
		return nil
	}
	e, err := h.get()
	if err != nil {
		return err
	}
	s, err := api().Wait(e.r)
	putStatus(st, &s)
	comm := e.comm
	completed(h, e)
	return failed(comm, err)
}

func mpiTest(h *Request, flag *C.int, st *C.MPI_Status) error {
	if *h == MPI_REQUEST_NULL {
		*flag = 1
		putStatus(st, &empty)
		return nil
	}
	e, err := h.get()
	if err != nil {
		return err
	}
	s, ok, err := api().Test(e.r)
	*flag = cbool(ok)
	comm := e.comm
	switch {
	case ok:
		putStatus(st, &s)
		completed(h, e)
	case err == nil:
		arm([]Request{*h}, []*pmpi.Request{e.r}, nil)
	}
	return failed(comm, err)
}

// batch is the Go side of an array of C requests.
type batch struct {
	entries []*reqEntry
	comms   []*commEntry // each entry's, which outlive the entries completion reuses
	reqs    []*pmpi.Request
	sts     []pmpi.Status
	idx     []int     // Waitsome's and Testsome's indices
	done    []uintptr // the handles finishAll takes back
}

var batches = sync.Pool{New: func() any { return new(batch) }}

// load looks up n requests at p; MPI_REQUEST_NULL becomes nil.
func (b *batch) load(p *Request, n int) error {
	if n < 0 {
		return errorf(pmpi.ClassCount, "%d requests: the count is negative", n)
	}
	hs := unsafe.Slice(p, n)
	b.entries, b.comms, b.reqs = b.entries[:0], b.comms[:0], b.reqs[:0]
	for _, h := range hs {
		var e *reqEntry
		if h != MPI_REQUEST_NULL {
			var err error
			if e, err = h.get(); err != nil {
				return err
			}
		}
		b.entries = append(b.entries, e)
		var r *pmpi.Request
		var comm *commEntry
		if e != nil {
			r, comm = e.r, e.comm
		}
		b.reqs = append(b.reqs, r)
		b.comms = append(b.comms, comm)
	}
	if cap(b.sts) < n {
		b.sts = make([]pmpi.Status, n)
	}
	b.sts = b.sts[:n]
	return nil
}

func (b *batch) release() {
	clear(b.entries)
	clear(b.comms)
	clear(b.reqs)
	batches.Put(b)
}

// finishAll writes every request's status and forgets those complete
// (not persistent), their handles taken back together.
func (b *batch) finishAll(hs []Request, sts []C.MPI_Status) {
	b.done = b.done[:0]
	for i, e := range b.entries {
		if sts != nil {
			putStatus(&sts[i], &b.sts[i])
		}
		if e != nil && !e.persistent {
			b.done = append(b.done, uintptr(hs[i]))
			hs[i] = MPI_REQUEST_NULL
		}
	}
	lib.reqs.recycleAll(b.done)
}

// errorOf is the error of a multiple completion: MPI_ERR_IN_STATUS, with
// each request's class in its status's MPI_ERROR. Status j is request
// idx[j]'s: Waitall's are in the requests' order, Waitsome's in the
// order they completed.
func (b *batch) errorOf(err error, sts []C.MPI_Status, idx []int) error {
	if err == nil {
		for j := range idx {
			if sts != nil {
				sts[j].MPI_ERROR = C.MPI_SUCCESS
			}
		}
		return nil
	}
	var comm *commEntry
	for j, i := range idx {
		e := b.sts[j].Err
		if sts != nil {
			sts[j].MPI_ERROR = C.MPI_SUCCESS
			if e != nil {
				sts[j].MPI_ERROR = C.int(classOf(e))
			}
		}
		if e != nil && comm == nil && b.comms[i] != nil {
			comm = b.comms[i]
		}
	}
	if comm == nil {
		return err
	}
	return &onComm{comm, err}
}

func all(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func mpiWaitall(n int, p *Request, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	err := api().WaitAll(b.reqs, b.sts)
	hs, sts := unsafe.Slice(p, n), statuses(st, n)
	b.finishAll(hs, sts)
	if err == nil {
		return nil
	}
	return b.errorOf(err, sts, all(n))
}

func mpiTestall(n int, p *Request, flag *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	ok, err := api().TestAll(b.reqs, b.sts)
	*flag = cbool(ok)
	if !ok && err == nil {
		arm(unsafe.Slice(p, n), b.reqs, nil)
		return nil
	}
	hs, sts := unsafe.Slice(p, n), statuses(st, n)
	b.finishAll(hs, sts)
	if err == nil {
		return nil
	}
	return b.errorOf(err, sts, all(n))
}

func mpiWaitany(n int, p *Request, index *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	i, s, err := api().WaitAny(b.reqs)
	return b.one(p, n, i, s, true, index, nil, st, err)
}

func mpiTestany(n int, p *Request, index, flag *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	i, s, ok, err := api().TestAny(b.reqs)
	if !ok && err == nil {
		arm(unsafe.Slice(p, n), b.reqs, nil)
	}
	return b.one(p, n, i, s, ok, index, flag, st, err)
}

// one finishes WaitAny's or TestAny's request i.
func (b *batch) one(p *Request, n, i int, s pmpi.Status, ok bool, index, flag *C.int, st *C.MPI_Status, err error) error {
	if flag != nil {
		*flag = cbool(ok)
	}
	if !ok {
		*index = C.MPI_UNDEFINED // as MPI_Testany says when none is complete
		return err
	}
	if i < 0 {
		*index = C.MPI_UNDEFINED
		putStatus(st, &empty)
		return err
	}
	*index = C.int(i)
	putStatus(st, &s)
	hs := unsafe.Slice(p, n)
	completed(&hs[i], b.entries[i])
	return failed(b.comms[i], err)
}

func mpiWaitsome(n int, p *Request, outcount, indices *C.int, st *C.MPI_Status) error {
	return some(api().WaitSome, n, p, outcount, indices, st)
}

func mpiTestsome(n int, p *Request, outcount, indices *C.int, st *C.MPI_Status) error {
	return some(api().TestSome, n, p, outcount, indices, st)
}

func some(f func([]*pmpi.Request, []int, []pmpi.Status) (int, error), n int, p *Request, outcount, indices *C.int, st *C.MPI_Status) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	if cap(b.idx) < n {
		b.idx = make([]int, n)
	}
	idx := b.idx[:n]
	k, err := f(b.reqs, idx, b.sts)
	switch {
	case k < 0:
		*outcount = C.MPI_UNDEFINED
		return err
	case k == 0 && err == nil: // Testsome's: Waitsome waits for one
		arm(unsafe.Slice(p, n), b.reqs, nil)
	}
	*outcount = C.int(k)
	hs, sts, out := unsafe.Slice(p, n), statuses(st, n), unsafe.Slice(indices, n)
	for j, i := range idx[:k] {
		out[j] = C.int(i)
		if sts != nil {
			putStatus(&sts[j], &b.sts[j])
		}
		if e := b.entries[i]; e != nil {
			completed(&hs[i], e)
		}
	}
	if err == nil {
		return nil
	}
	return b.errorOf(err, sts, idx[:k])
}

func mpiStart(h *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	return failed(e.comm, api().Start(e.r))
}

func mpiStartall(n int, p *Request) error {
	b := batches.Get().(*batch)
	defer b.release()
	if err := b.load(p, n); err != nil {
		return err
	}
	err := api().Startall(b.reqs)
	if err == nil {
		return nil
	}
	// MPI names no one communicator for a call over several requests: the
	// first request's is where a program that starts one communicator's
	// requests together has set its handler.
	for _, c := range b.comms {
		if c != nil {
			return failed(c, err)
		}
	}
	return err
}

func mpiRequestFree(h *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	err = api().RequestFree(e.r)
	comm := e.comm
	switch {
	case err != nil:
		// Refused (an active collective): the handle stays, to be waited for.
	case e.general && !e.done:
		e.freed = true
		*h = MPI_REQUEST_NULL
	default:
		forget(h)
	}
	return failed(comm, err)
}

func mpiCancel(h *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	return failed(e.comm, api().Cancel(e.r))
}

func mpiRequestGetStatus(h Request, flag *C.int, st *C.MPI_Status) error {
	if h == MPI_REQUEST_NULL {
		*flag = 1
		putStatus(st, &empty)
		return nil
	}
	e, err := h.get()
	if err != nil {
		return err
	}
	s, ok, err := api().RequestGetStatus(e.r)
	*flag = cbool(ok)
	if ok {
		putStatus(st, &s)
	}
	return failed(e.comm, err)
}
