package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import "github.com/gompi/gompi/pmpi"

func mpiCommRank(h Comm, r *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	n, err := api().CommRank(c)
	*r = C.int(n)
	return err
}

func mpiCommSize(h Comm, n *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	size, err := api().CommSize(c)
	*n = C.int(size)
	return err
}

func mpiCommDup(h Comm, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	if out == nil {
		return makeAndFree(nullArg("newcomm"), func() (*pmpi.Comm, *pmpi.Request, error) {
			c, err := api().CommDup(e.c)
			return c, nil, err
		})
	}
	c, err := api().CommDup(e.c)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// makeAndFree returns err, this layer's error for a constructor's
// arguments at this rank, after taking part in the call anyway through
// call, whose arguments pmpi accepts, and freeing what it made once its
// request, if any, completes: for the calls whose exchange carries no
// mark of a rank's bad arguments, so that the other ranks do not wait.
// They succeed, as MPI lets them: the error is this rank's alone.
func makeAndFree(err error, call func() (*pmpi.Comm, *pmpi.Request, error)) error {
	c, r, derr := call()
	if derr == nil && r != nil {
		_, derr = pmpi.Real().Wait(r)
	}
	if derr == nil && c != nil {
		// Real's calls, so that tools see only the call the program made.
		_ = pmpi.Real().CommFree(c)
	}
	return err
}

func mpiCommSplit(h Comm, color, key int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	if out == nil {
		// A negative color fails pmpi's checks on the exchange.
		return takePart(nullArg("newcomm"), func() (*pmpi.Comm, error) { return api().CommSplit(e.c, invalid, key) })
	}
	c, err := api().CommSplit(e.c, color, key) // MPI_UNDEFINED is pmpi.Undefined
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

func mpiCommFree(h *Comm) error { return freeCommHandle(h, "comm free", api().CommFree) }

func mpiCommDisconnect(h *Comm) error {
	return freeCommHandle(h, "comm disconnect", api().CommDisconnect)
}

// mpiCommGetParent gives MPI_COMM_NULL: gompi spawns no processes
// (MPI_Comm_spawn is not implemented), so none has a parent.
func mpiCommGetParent(parent *Comm) error {
	if !api().Initialized() || api().Finalized() {
		return errorf(pmpi.ClassOther, "comm get parent: MPI is not running (call it between MPI_Init and MPI_Finalize)")
	}
	if parent == nil {
		return errorf(pmpi.ClassArg, "comm get parent: the address to store the parent at is NULL")
	}
	*parent = MPI_COMM_NULL
	return nil
}

// freeCommHandle frees *h's communicator with free, forgets its handle and
// sets *h to MPI_COMM_NULL.
func freeCommHandle(h *Comm, op string, free func(*pmpi.Comm) error) error {
	if *h == MPI_COMM_WORLD || *h == MPI_COMM_SELF {
		return errorf(pmpi.ClassComm, "%s: %s cannot be freed", op, commName(*h))
	}
	e, err := h.get()
	if err != nil {
		return err
	}
	if err := free(e.c); err != nil {
		return err
	}
	lib.commHandles.Delete(e.c)
	lib.comms.drop(uintptr(*h))
	*h = MPI_COMM_NULL
	return nil
}
