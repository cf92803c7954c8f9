package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import "github.com/gompi/gompi/pmpi"

func mpiCommCreate(h Comm, gh Group, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	g, err := gh.get()
	if err != nil {
		return err
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
	g, err := gh.get()
	if err != nil {
		return err
	}
	c, err := api().CommCreateGroup(e.c, g, tag(t))
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// hwResourceKey is the info key MPI_COMM_TYPE_HW_GUIDED reads; of its
// values gompi knows the one the standard requires, a host's shared memory.
const hwResourceKey, hwShared = "mpi_hw_resource_type", "mpi_shared_memory"

// splitType is gompi's split type for C's.
func splitType(t int, info Info) (int, error) {
	switch t {
	case C.MPI_UNDEFINED:
		return pmpi.Undefined, nil
	case C.MPI_COMM_TYPE_SHARED:
		return pmpi.CommTypeShared, nil
	case C.MPI_COMM_TYPE_HW_GUIDED:
		i, err := info.optional()
		if err != nil {
			return 0, err
		}
		var v string
		if i != nil {
			if v, _, err = i.Get(hwResourceKey); err != nil {
				return 0, err
			}
		}
		if v != hwShared {
			return 0, errorf(pmpi.ClassArg, "comm split type: MPI_COMM_TYPE_HW_GUIDED with %s=%q (gompi knows only %q)", hwResourceKey, v, hwShared)
		}
		return pmpi.CommTypeShared, nil
	}
	return 0, errorf(pmpi.ClassArg, "comm split type: split type %d is not one gompi knows (want MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED with %s=%s, or MPI_UNDEFINED)", t, hwResourceKey, hwShared)
}

func mpiCommSplitType(h Comm, t, key int, info Info, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	st, err := splitType(t, info)
	if err != nil {
		return err
	}
	c, err := api().CommSplitType(e.c, st, key)
	if err != nil {
		return err
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
	if err != nil {
		return err
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
	c, r, err := api().CommIdup(e.c)
	return idupDone(e, c, r, err, out, req)
}

func mpiCommIdupWithInfo(h Comm, ih Info, out *Comm, req *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	info, err := ih.optional()
	if err != nil {
		return err
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
