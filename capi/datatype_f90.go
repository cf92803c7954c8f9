package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"sync"

	"github.com/gompi/gompi/pmpi"
)

// fortranTypes are Fortran's sized predefined types, each the gompi type
// of its layout. The default kinds (MPI_INTEGER, MPI_LOGICAL...) follow
// the sizes MPI_Abi_set_fortran_info gives (fortranKinds).
var fortranTypes = map[Datatype]pmpi.Datatype{
	MPI_INTEGER1: pmpi.Int8, MPI_INTEGER2: pmpi.Int16, MPI_INTEGER4: pmpi.Int32, MPI_INTEGER8: pmpi.Int64,
	MPI_REAL4: pmpi.Float32, MPI_REAL8: pmpi.Float64, MPI_COMPLEX8: pmpi.Complex64, MPI_COMPLEX16: pmpi.Complex128,
	MPI_LOGICAL1: pmpi.Logical1, MPI_LOGICAL2: pmpi.Logical2, MPI_LOGICAL4: pmpi.Logical4, MPI_LOGICAL8: pmpi.Logical8,
	MPI_INTEGER16: pmpi.Int128, MPI_LOGICAL16: pmpi.Logical16, MPI_CHARACTER: pmpi.Byte,
	MPI_REAL2: pmpi.Float16, MPI_COMPLEX4: pmpi.Complex32, MPI_REAL16: pmpi.Float128, MPI_COMPLEX32: pmpi.Complex256,
}

// f90Kind is a kind that MPI_Type_create_f90_* may return: the largest
// decimal precision and exponent range it holds (gfortran's PRECISION
// and RANGE of the kind), and its type.
type f90Kind struct {
	precision, rng int
	dt             pmpi.Datatype
}

// The kinds by size, smallest first, as SELECTED_INT_KIND and
// SELECTED_REAL_KIND choose among them; as Open MPI does, a real beyond
// 8 bytes is REAL(16), never x87's REAL(10), which MPI gives no type.
var (
	f90Integers = []f90Kind{{0, 2, pmpi.Int8}, {0, 4, pmpi.Int16}, {0, 9, pmpi.Int32}, {0, 18, pmpi.Int64}, {0, 38, pmpi.Int128}}
	f90Reals    = []f90Kind{{6, 37, pmpi.Float32}, {15, 307, pmpi.Float64}, {33, 4931, pmpi.Float128}}
	f90Complex  = []f90Kind{{6, 37, pmpi.Complex64}, {15, 307, pmpi.Complex128}, {33, 4931, pmpi.Complex256}}
)

// f90Types holds the types MPI_Type_create_f90_* made, by combiner and
// arguments. MPI makes them predefined: the same call gives the same
// handle, and none may be freed.
type f90Types struct {
	mu    sync.Mutex
	types map[[3]int]Datatype
}

func mpiTypeCreateF90Integer(r int, out *Datatype) error {
	return f90Type("type create f90 integer", C.MPI_COMBINER_F90_INTEGER, f90Integers, C.MPI_UNDEFINED, r, out)
}

func mpiTypeCreateF90Real(p, r int, out *Datatype) error {
	return f90Type("type create f90 real", C.MPI_COMBINER_F90_REAL, f90Reals, p, r, out)
}

func mpiTypeCreateF90Complex(p, r int, out *Datatype) error {
	return f90Type("type create f90 complex", C.MPI_COMBINER_F90_COMPLEX, f90Complex, p, r, out)
}

// f90Type returns the handle of the smallest kind with at least precision
// p and range r, either MPI_UNDEFINED (no requirement), made at its first
// call with these arguments.
func f90Type(op string, combiner C.int, kinds []f90Kind, p, r int, out *Datatype) error {
	if out == nil {
		return errorf(pmpi.ClassArg, "%s: the pointer for the new type is NULL", op)
	}
	need := func(v int) int {
		if v == C.MPI_UNDEFINED {
			return 0
		}
		return v
	}
	integer := combiner == C.MPI_COMBINER_F90_INTEGER
	ints := []int{p, r}
	if integer {
		ints = []int{r}
	}
	if need(p) < 0 || need(r) < 0 {
		if integer {
			return errorf(pmpi.ClassArg, "%s: range %d (want 0 or more)", op, r)
		}
		return errorf(pmpi.ClassArg, "%s: precision %d, range %d (want 0 or more, or MPI_UNDEFINED)", op, p, r)
	}
	i := 0
	for i < len(kinds) && (kinds[i].precision < need(p) || kinds[i].rng < need(r)) {
		i++
	}
	if i == len(kinds) {
		last := kinds[len(kinds)-1]
		if integer {
			return errorf(pmpi.ClassArg, "%s: no integer kind has a range of %d digits (at most %d: INTEGER(16))", op, r, last.rng)
		}
		return errorf(pmpi.ClassArg, "%s: no kind has precision %d and range %d (at most precision %d and range %d: REAL(16))",
			op, p, r, last.precision, last.rng)
	}
	key := [3]int{int(combiner), p, r}
	f := &lib.f90
	f.mu.Lock()
	defer f.mu.Unlock()
	if h, ok := f.types[key]; ok {
		*out = h
		return nil
	}
	e := &typeEntry{dt: kinds[i].dt, recipe: &recipe{combiner: combiner, ints: ints}}
	e.refs.Store(1) // never released: the type is predefined
	h, err := lib.types.put(e)
	if err != nil {
		return err
	}
	if f.types == nil {
		f.types = map[[3]int]Datatype{}
	}
	f.types[key] = Datatype(h)
	*out = Datatype(h)
	return nil
}

// isF90 reports whether a recipe is MPI_Type_create_f90_*'s.
func (r *recipe) isF90() bool {
	switch r.combiner {
	case C.MPI_COMBINER_F90_INTEGER, C.MPI_COMBINER_F90_REAL, C.MPI_COMBINER_F90_COMPLEX:
		return true
	}
	return false
}
