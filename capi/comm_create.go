package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"errors"

	"github.com/gompi/gompi/pmpi"
)

func mpiCommCreate(h Comm, gh Group, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	g, err := gh.get()
	if out == nil {
		err = nullArg("newcomm")
	}
	if err != nil {
		// A nil group fails pmpi's checks on the exchange.
		return takePart(err, func() (*pmpi.Comm, error) { return api().CommCreate(e.c, nil) })
	}
	c, err := api().CommCreate(e.c, g)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

func mpiCommCreateGroup(h Comm, gh Group, t int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	// A rank without its group, or with a tag out of range, cannot know
	// the members it would meet or the tag they meet on: it fails alone,
	// and the other members wait for it.
	g, err := gh.get()
	if err != nil {
		return err
	}
	if out == nil {
		// With its group and tag, it makes the communicator and frees it.
		return makeAndFree(nullArg("newcomm"), func() (*pmpi.Comm, *pmpi.Request, error) {
			c, err := api().CommCreateGroup(e.c, g, tag(t))
			return c, nil, err
		})
	}
	c, err := api().CommCreateGroup(e.c, g, tag(t))
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// hwResourceKey is the info key MPI_COMM_TYPE_HW_GUIDED reads; of its
// values gompi knows the one every implementation must, a host's shared
// memory.
const hwResourceKey, hwShared = "mpi_hw_resource_type", "mpi_shared_memory"

// mpiCommSplitType: gompi knows of the hardware only which ranks share a
// host. A guided split by another resource, or by none, gives
// MPI_COMM_NULL, as the standard says for a resource the implementation
// does not know (gompi has no process sets for RESOURCE_GUIDED's
// mpi_pset_name either); an unguided one gives the host's ranks when
// they are fewer than comm's, and sets mpi_hw_resource_type to
// mpi_shared_memory in its info, else MPI_COMM_NULL.
func mpiCommSplitType(h Comm, t, key int, ih Info, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	// fail takes part in the split with typ, a type that pmpi refuses on
	// its exchange, and which the other ranks' errors name.
	fail := func(err error, typ int) error {
		if typ == pmpi.CommTypeShared || typ == pmpi.Undefined {
			typ = invalid // C's unknown type is one of gompi's
		}
		return takePart(err, func() (*pmpi.Comm, error) { return api().CommSplitType(e.c, typ, key) })
	}
	info, err := ih.optional()
	if err != nil {
		return fail(err, invalid)
	}
	typ := pmpi.CommTypeShared
	switch t {
	case C.MPI_UNDEFINED:
		typ = pmpi.Undefined
	case C.MPI_COMM_TYPE_SHARED, C.MPI_COMM_TYPE_HW_UNGUIDED:
	case C.MPI_COMM_TYPE_HW_GUIDED, C.MPI_COMM_TYPE_RESOURCE_GUIDED:
		var v string
		if info != nil {
			if v, _, err = pmpi.Real().InfoGet(info, hwResourceKey); err != nil {
				return fail(err, invalid)
			}
		}
		if v != hwShared {
			// No rank splits: MPI requires the same resource at every rank.
			if out == nil {
				return nullArg("newcomm")
			}
			*out = MPI_COMM_NULL
			return nil
		}
	default:
		return fail(errorf(pmpi.ClassArg, "comm split type: split type %d is not one of MPI_COMM_TYPE_SHARED, _HW_GUIDED, _HW_UNGUIDED, _RESOURCE_GUIDED or MPI_UNDEFINED", t), t)
	}
	if out == nil {
		return fail(nullArg("newcomm"), invalid)
	}
	c, err := api().CommSplitType(e.c, typ, key)
	if err != nil {
		return err
	}
	if t == C.MPI_COMM_TYPE_HW_UNGUIDED && c != nil && c.Size() == e.c.Size() && c.Peers() == e.c.Peers() {
		// Every rank of this host's communicator sees the same sizes.
		if err := api().CommFree(c); err != nil {
			return err
		}
		c = nil
	}
	if t == C.MPI_COMM_TYPE_HW_UNGUIDED && c != nil && info != nil && ih != MPI_INFO_ENV {
		// MPI tells in info which resource the unguided split followed.
		if err := pmpi.Real().InfoSet(info, hwResourceKey, hwShared); err != nil {
			return errors.Join(err, api().CommFree(c))
		}
	}
	return setComm(out, c, e)
}

func mpiCommCompare(a, b Comm, result *C.int) error {
	ca, err := a.comm()
	if err != nil {
		return err
	}
	cb, err := b.comm()
	if err != nil {
		return err
	}
	r, err := api().CommCompare(ca, cb)
	*result = cCompare(r)
	return err
}

func mpiCommSetName(h Comm, name *C.char) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	if name == nil {
		return errorf(pmpi.ClassArg, "comm set name: the name is NULL")
	}
	return api().CommSetName(c, C.GoString(name))
}

func mpiCommGetName(h Comm, name *C.char, n *C.int) error {
	if h == MPI_COMM_NULL { // MPI 4.1 names the null handle
		*n = C.int(putString(name, "MPI_COMM_NULL", C.MPI_MAX_OBJECT_NAME))
		return nil
	}
	c, err := h.comm()
	if err != nil {
		return err
	}
	s, err := api().CommGetName(c)
	if err != nil {
		return err
	}
	*n = C.int(putString(name, s, C.MPI_MAX_OBJECT_NAME))
	return nil
}

// mpiCommDupWithInfo duplicates h with the hints of info, not h's. gompi's
// Go API has that only as the non-blocking CommIdupWithInfo, which this
// completes at once.
func mpiCommDupWithInfo(h Comm, ih Info, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	info, err := ih.optional()
	if err == nil && out == nil {
		err = nullArg("newcomm")
	}
	if err != nil {
		// A bad info duplicates with none.
		return makeAndFree(err, func() (*pmpi.Comm, *pmpi.Request, error) { return api().CommIdupWithInfo(e.c, nil) })
	}
	c, r, err := api().CommIdupWithInfo(e.c, info)
	if err != nil {
		return err
	}
	if _, err := api().Wait(r); err != nil {
		return err
	}
	return setComm(out, c, e)
}

func mpiCommIdup(h Comm, out *Comm, req *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	switch {
	case out == nil:
		err = nullArg("newcomm")
	case req == nil:
		err = nullArg("request")
	}
	if err != nil {
		return makeAndFree(err, func() (*pmpi.Comm, *pmpi.Request, error) { return api().CommIdup(e.c) })
	}
	c, r, err := api().CommIdup(e.c)
	return idupDone(e, c, r, err, out, req)
}

func mpiCommIdupWithInfo(h Comm, ih Info, out *Comm, req *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	info, err := ih.optional()
	switch {
	case err != nil:
	case out == nil:
		err = nullArg("newcomm")
	case req == nil:
		err = nullArg("request")
	}
	if err != nil {
		// A bad info duplicates with none.
		return makeAndFree(err, func() (*pmpi.Comm, *pmpi.Request, error) { return api().CommIdupWithInfo(e.c, nil) })
	}
	c, r, err := api().CommIdupWithInfo(e.c, info)
	return idupDone(e, c, r, err, out, req)
}

// idupDone gives a communicator being duplicated its handle at once, as
// MPI_Comm_idup does; it is usable once the request completes.
func idupDone(e *commEntry, c *pmpi.Comm, r *pmpi.Request, err error, out *Comm, req *Request) error {
	if err != nil {
		return err
	}
	if err := setComm(out, c, e); err != nil {
		return err
	}
	return newRequest(req, r, e, false)
}

func mpiCommSetInfo(h Comm, ih Info) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	info, err := ih.get()
	if err != nil {
		return err
	}
	return api().CommSetInfo(c, info)
}

func mpiCommGetInfo(h Comm, out *Info) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	info, err := api().CommGetInfo(c)
	if err != nil {
		return err
	}
	i, err := lib.infos.put(info)
	if err != nil {
		return err
	}
	*out = Info(i)
	return nil
}
