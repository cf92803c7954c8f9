package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/pmpi"
)

// The handle types: C's MPI_Comm, MPI_Datatype... as integers. A
// predefined handle is the standard's constant (handles_gen.go); any
// other is a table entry, at or above firstHandle.
type (
	Comm       uintptr
	Datatype   uintptr
	Op         uintptr
	Group      uintptr
	Request    uintptr
	Info       uintptr
	Errhandler uintptr
	Message    uintptr
	Win        uintptr
	File       uintptr
	Session    uintptr
)

// lib is the library's state: the objects behind the handles C holds.
var lib struct {
	world, self atomic.Pointer[commEntry]
	comms       table[commEntry]
	types       table[typeEntry]
	ops         table[opEntry]
	groups      table[pmpi.Group]
	reqs        slotTable[reqEntry]
	infos       table[pmpi.Info]
	errhs       table[errhEntry]
	fileErrh    atomic.Uintptr // MPI_FILE_NULL's error handler; 0 for MPI_ERRORS_RETURN
	msgs        table[msgEntry]
	keyvals     table[pmpi.Keyval]
	sessions    table[sessionEntry]
	model       model     // who holds the runtime: the World Model, sessions
	tools       tools     // MPI_T
	lingering   lingering // keyvals freed while attributes still use them
	errs        userErrors
	lastErrs    lastErrors
	f90         f90Types   // MPI_Type_create_f90_*'s
	fortran     fortranABI // MPI_Abi_set_fortran_*'s

	// commHandles find the handle of a communicator, which an attribute
	// callback is called with (a datatype keeps its own: Binding).
	commHandles sync.Map // *pmpi.Comm -> Comm
	// typeRenames are the names MPI_Type_set_name gave predefined types.
	typeRenames sync.Map // Datatype -> string
	// shifts are the derived types whose data starts before their
	// origin, shifted to start there (buffer).
	shifts sync.Map // pmpi.Datatype -> pmpi.Datatype
	// mem holds the blocks MPI_Alloc_mem gave and MPI_Free_mem has not
	// taken back, so that freeing any other address is an error, not a
	// crash in free.
	mem sync.Map // uintptr -> int (the size asked for)
}

// commEntry is a communicator and its C error handler (MPI_ERRORS_*, or
// a user one), which gompi's Go side does not hold.
type commEntry struct {
	c    *pmpi.Comm
	errh atomic.Uintptr
	// session says c was made from a group (MPI_Comm_create_from_group and
	// kin), or from such a communicator: it outlives MPI_Finalize, which
	// ends the World Model's communicators.
	session bool
}

func (h Comm) get() (*commEntry, error) {
	var e *commEntry
	switch h {
	case MPI_COMM_WORLD:
		e = lib.world.Load()
	case MPI_COMM_SELF:
		e = lib.self.Load()
	case MPI_COMM_NULL:
		return nil, errorf(pmpi.ClassComm, "MPI_COMM_NULL is not a communicator")
	default:
		e = lib.comms.get(uintptr(h))
	}
	if e == nil {
		if h == MPI_COMM_WORLD || h == MPI_COMM_SELF {
			return nil, errorf(pmpi.ClassComm, "%s is usable only between MPI_Init and MPI_Finalize", commName(h))
		}
		return nil, errorf(pmpi.ClassComm, "%#x is not a communicator (freed, or never one)", uintptr(h))
	}
	// The predefined entries stay after MPI_Finalize: errors raised then
	// still go to MPI_COMM_SELF's handler.
	if !e.session && lib.model.world.Load() == worldFinalized {
		if h == MPI_COMM_WORLD || h == MPI_COMM_SELF {
			return nil, errorf(pmpi.ClassComm, "%s is usable only between MPI_Init and MPI_Finalize, and MPI_Finalize was called", commName(h))
		}
		return nil, errorf(pmpi.ClassComm, "communicator %#x belongs to the World Model, which MPI_Finalize ended", uintptr(h))
	}
	return e, nil
}

// comm returns the communicator behind h.
func (h Comm) comm() (*pmpi.Comm, error) {
	e, err := h.get()
	if err != nil {
		return nil, err
	}
	return e.c, nil
}

func commName(h Comm) string {
	if h == MPI_COMM_WORLD {
		return "MPI_COMM_WORLD"
	}
	return "MPI_COMM_SELF"
}

// newComm gives c a handle; it inherits parent's C error handler, as a
// communicator made from another does.
func newComm(c *pmpi.Comm, parent *commEntry) (Comm, error) {
	e := &commEntry{c: c, session: parent.session}
	e.errh.Store(parent.errh.Load())
	h, err := lib.comms.put(e)
	if err == nil {
		lib.commHandles.Store(c, Comm(h))
	}
	return Comm(h), err
}

// setComm stores a new communicator's handle in *out, MPI_COMM_NULL for
// none (a rank outside a split's colors).
func setComm(out *Comm, c *pmpi.Comm, parent *commEntry) error {
	if c == nil {
		*out = MPI_COMM_NULL
		return nil
	}
	h, err := newComm(c, parent)
	if err != nil {
		return err
	}
	*out = h
	return nil
}

func (h Group) get() (*pmpi.Group, error) {
	if g := lib.groups.get(uintptr(h)); g != nil {
		return g, nil
	}
	switch h {
	case MPI_GROUP_EMPTY:
		return emptyGroup()
	case MPI_GROUP_NULL:
		return nil, errorf(pmpi.ClassGroup, "MPI_GROUP_NULL is not a group")
	}
	return nil, errorf(pmpi.ClassGroup, "%#x is not a group (freed, or never one)", uintptr(h))
}

// get is the info behind h, MPI_INFO_ENV among them. A bad handle is
// MPI_ERR_INFO, the class the standard has for it.
func (h Info) get() (*pmpi.Info, error) {
	if i := lib.infos.get(uintptr(h)); i != nil {
		return i, nil
	}
	switch h {
	case MPI_INFO_ENV:
		return envInfo(), nil
	case MPI_INFO_NULL:
		return nil, &abiError{C.MPI_ERR_INFO, "MPI_INFO_NULL is not an info object"}
	}
	return nil, &abiError{C.MPI_ERR_INFO, fmt.Sprintf("%#x is not an info object (freed, or never one)", uintptr(h))}
}

// optional returns the info behind h, nil for MPI_INFO_NULL.
func (h Info) optional() (*pmpi.Info, error) {
	if h == MPI_INFO_NULL {
		return nil, nil
	}
	return h.get()
}
