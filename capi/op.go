package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
void gompi_call_user_op(void *fn, void *in, void *inout, int len, uintptr_t type);
void gompi_call_user_op_c(void *fn, void *in, void *inout, int64_t len, uintptr_t type);
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// opEntry is a user operation: gompi's Op calling the C function.
type opEntry struct {
	op   pmpi.Op
	call func(in, inout unsafe.Pointer, count int, dt Datatype)
	// aliases are op for the predefined C types that share gompi's type
	// with another, MPI_LONG_LONG and MPI_INT64_T say, made at their first
	// reduction: each passes the function the handle the program gave.
	aliases sync.Map // Datatype -> pmpi.Op
}

// getFor is get for a reduction over dt, which is d: a user operation
// passes its function dt itself.
func (h Op) getFor(dt Datatype, d pmpi.Datatype) (pmpi.Op, error) {
	if int(h) < len(predefinedOps) {
		return h.get()
	}
	e := lib.ops.get(uintptr(h))
	if e == nil {
		return h.get()
	}
	if dt >= firstHandle || handleOf(d) == dt {
		return e.op, nil
	}
	if o, ok := e.aliases.Load(dt); ok {
		return o.(pmpi.Op), nil
	}
	o, _ := e.aliases.LoadOrStore(dt, e.op.Calling(func(in, inout []byte, count int, _ pmpi.Datatype) {
		if count > 0 {
			e.call(unsafe.Pointer(unsafe.SliceData(in)), unsafe.Pointer(unsafe.SliceData(inout)), count, dt)
		}
	}))
	return o.(pmpi.Op), nil
}

// predefinedOps is indexed by the handle (a map's hash took 5 % of a C
// reduction's time); an absent one is not ok.
var predefinedOps = func() (t [MPI_NO_OP + 1]struct {
	op pmpi.Op
	ok bool
}) {
	for h, op := range map[Op]pmpi.Op{
		MPI_SUM: pmpi.OpSum, MPI_PROD: pmpi.OpProd, MPI_MIN: pmpi.OpMin, MPI_MAX: pmpi.OpMax,
		MPI_LAND: pmpi.OpLand, MPI_LOR: pmpi.OpLor, MPI_LXOR: pmpi.OpLxor,
		MPI_BAND: pmpi.OpBand, MPI_BOR: pmpi.OpBor, MPI_BXOR: pmpi.OpBxor,
		MPI_MINLOC: pmpi.OpMinLoc, MPI_MAXLOC: pmpi.OpMaxLoc,
	} {
		t[h].op, t[h].ok = op, true
	}
	return t
}()

func (h Op) get() (pmpi.Op, error) {
	if int(h) < len(predefinedOps) {
		if p := &predefinedOps[h]; p.ok {
			return p.op, nil
		}
	} else if e := lib.ops.get(uintptr(h)); e != nil {
		return e.op, nil
	}
	switch h {
	case MPI_OP_NULL:
		return pmpi.Op{}, errorf(pmpi.ClassOp, "MPI_OP_NULL is not an operation")
	case MPI_REPLACE, MPI_NO_OP:
		return pmpi.Op{}, errorf(pmpi.ClassOp, "MPI_REPLACE and MPI_NO_OP are for one-sided accumulates, which gompi does not have")
	}
	return pmpi.Op{}, errorf(pmpi.ClassOp, "%#x is not an operation (freed, or never one)", uintptr(h))
}

// opFits refuses a predefined operation on the C types that share gompi's
// type of their layout with numbers but that MPI gives no arithmetic:
// MPI_BYTE takes the bitwise operations only, MPI_C_BOOL and MPI_CXX_BOOL
// the logical ones. A user's operation takes any type.
func opFits(h Op, o pmpi.Op, dt Datatype) error {
	var ok bool
	var allowed string
	switch dt {
	case MPI_BYTE:
		ok, allowed = h == MPI_BAND || h == MPI_BOR || h == MPI_BXOR, "MPI_BAND, MPI_BOR and MPI_BXOR"
	case MPI_C_BOOL, MPI_CXX_BOOL:
		ok, allowed = h == MPI_LAND || h == MPI_LOR || h == MPI_LXOR, "MPI_LAND, MPI_LOR and MPI_LXOR"
	default:
		return nil
	}
	if ok || int(h) >= len(predefinedOps) {
		return nil
	}
	return errorf(pmpi.ClassOp, "%s is not defined on %s (it takes %s)", o.Name(), typeNames[dt], allowed)
}

// mpiOpCreate wraps the C function fn, an MPI_User_function: gompi calls
// it with pieces of the buffers, which it passes to C for the call only.
func mpiOpCreate(fn unsafe.Pointer, commute int, out *Op) error {
	return opCreate(fn, commute, out, func(in, inout unsafe.Pointer, count int, dt Datatype) {
		C.gompi_call_user_op(fn, in, inout, C.int(count), C.uintptr_t(dt))
	})
}

// mpiOpCreateC is mpiOpCreate for an MPI_User_function_c, whose count is
// an MPI_Count.
func mpiOpCreateC(fn unsafe.Pointer, commute int, out *Op) error {
	return opCreate(fn, commute, out, func(in, inout unsafe.Pointer, count int, dt Datatype) {
		C.gompi_call_user_op_c(fn, in, inout, C.int64_t(count), C.uintptr_t(dt))
	})
}

func opCreate(fn unsafe.Pointer, commute int, out *Op, call func(in, inout unsafe.Pointer, count int, dt Datatype)) error {
	if fn == nil {
		return errorf(pmpi.ClassOp, "op create: the function is NULL")
	}
	op, err := api().OpCreate(func(in, inout []byte, count int, dt pmpi.Datatype) {
		if count == 0 {
			return
		}
		call(unsafe.Pointer(unsafe.SliceData(in)), unsafe.Pointer(unsafe.SliceData(inout)), count, handleOf(dt))
	}, commute != 0)
	if err != nil {
		return err
	}
	h, err := lib.ops.put(&opEntry{op: op, call: call})
	*out = Op(h)
	return err
}

func mpiOpFree(h *Op) error {
	if *h < firstHandle {
		return errorf(pmpi.ClassOp, "op free: %#x is predefined or not an operation", uintptr(*h))
	}
	if !lib.ops.drop(uintptr(*h)) {
		return errorf(pmpi.ClassOp, "op free: %#x is not an operation (freed, or never one)", uintptr(*h))
	}
	*h = MPI_OP_NULL
	return nil
}

func mpiOpCommutative(h Op, commute *C.int) error {
	if h == MPI_REPLACE || h == MPI_NO_OP {
		// Valid handles, of the accumulates only: neither gives the same
		// result with its operands swapped.
		*commute = 0
		return nil
	}
	op, err := h.get()
	if err != nil {
		return err
	}
	*commute = cbool(op.Commutative())
	return nil
}

func mpiReduceLocal(in, inout unsafe.Pointer, count int, dt Datatype, h Op) error {
	d, err := dt.get()
	if err != nil {
		return err
	}
	op, err := h.getFor(dt, d)
	if err != nil {
		return err
	}
	if err := opFits(h, op, dt); err != nil {
		return err
	}
	if count > 0 {
		switch {
		case inPlace(in) || inPlace(inout):
			return errorf(pmpi.ClassBuffer, "reduce local: MPI_IN_PLACE is no buffer here (it takes two: inbuf and inoutbuf)")
		case in == nil || inout == nil:
			return errorf(pmpi.ClassBuffer, "reduce local: a NULL buffer for %d elements", count)
		case in == inout:
			return errorf(pmpi.ClassBuffer, "reduce local: inbuf and inoutbuf are the same buffer (MPI forbids aliased arguments)")
		}
	}
	ib, _ := buffer(in, count, d)
	iob, d := buffer(inout, count, d)
	return api().ReduceLocal(ib, iob, count, d, op)
}
