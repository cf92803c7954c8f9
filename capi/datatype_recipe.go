package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"errors"
	"math"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// recipe is the call that made a derived datatype, as MPI_Type_get_envelope
// and MPI_Type_get_contents return it: the combiner and the arguments in
// the standard's order. gompi's own types keep only their layout.
type recipe struct {
	combiner C.int
	ints     []int      // the integer arguments
	addrs    []int      // the MPI_Aint ones (byte strides, displacements, bounds)
	types    []Datatype // the old types, as the program named them
	large    bool       // made by a _c constructor: its counts are MPI_Count (args)
}

// hold takes a reference on each derived type of r: a type stays alive,
// and its handle valid, while a type made from it does, as MPI wants for
// MPI_Type_get_contents.
func (r *recipe) hold() {
	for _, h := range r.types {
		if e := lib.types.get(uintptr(h)); e != nil {
			e.refs.Add(1)
		}
	}
}

// releaseType drops a reference on the derived type h; the last frees it
// through a, then what its recipe held, through pmpi's own API: the
// program's MPI_Type_free is the one call a tool sees, and only when it
// frees the type.
func releaseType(h Datatype, e *typeEntry, a pmpi.API) error {
	if e.refs.Add(-1) > 0 {
		return nil
	}
	if err := a.TypeFree(e.dt); err != nil {
		e.refs.Add(1) // a delete callback refused: the type stays
		return err
	}
	e.dt.SetBinding(0) // an operation still under way finds no handle that another type may take
	if e.shifted.Load() {
		if s, ok := lib.shifts.LoadAndDelete(e.dt); ok {
			s.(pmpi.Datatype).SetBinding(0)
		}
	}
	lib.types.drop(uintptr(h))
	var errs []error
	if e.recipe != nil {
		for _, inner := range e.recipe.types {
			if ie := lib.types.get(uintptr(inner)); ie != nil {
				errs = append(errs, releaseType(inner, ie, pmpi.Real()))
			}
		}
	}
	return errors.Join(errs...)
}

// recipeOf is h's recipe for the int decoders; a predefined type is
// MPI_COMBINER_NAMED, with no arguments.
func recipeOf(op string, h Datatype) (*recipe, error) {
	r, err := recipeC(op, h)
	if err != nil {
		return nil, err
	}
	// The int forms cannot hold a _c constructor's larger counts.
	for _, v := range r.ints {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, errorf(pmpi.ClassType, "%s: the type's constructor had count %d, beyond an int", op, v)
		}
	}
	return r, nil
}

// recipeC is h's recipe for the _c decoders, which take any count.
func recipeC(op string, h Datatype) (*recipe, error) {
	if _, err := h.get(); err != nil {
		return nil, err
	}
	e := lib.types.get(uintptr(h))
	if e == nil {
		return &recipe{combiner: C.MPI_COMBINER_NAMED}, nil
	}
	if e.recipe == nil {
		return nil, errorf(pmpi.ClassType, "%s: %#x was not made by a constructor gompi records", op, uintptr(h))
	}
	return e.recipe, nil
}

func mpiTypeGetEnvelope[N cInt](h Datatype, ni, na, nd *N, combiner *C.int) error {
	r, err := recipeOf("type get envelope", h)
	if err != nil {
		return err
	}
	if ni == nil || na == nil || nd == nil || combiner == nil {
		return errorf(pmpi.ClassArg, "type get envelope: a pointer for the counts or the combiner is NULL")
	}
	*ni, *na, *nd, *combiner = N(len(r.ints)), N(len(r.addrs)), N(len(r.types)), r.combiner
	return nil
}

// mpiTypeGetEnvelopeC counts a _c constructor's MPI_Count arguments as
// large counts, and those of an int constructor as integers.
func mpiTypeGetEnvelopeC(h Datatype, ni, na, nc, nd *C.int64_t, combiner *C.int) error {
	r, err := recipeC("type get envelope", h)
	if err != nil {
		return err
	}
	if ni == nil || na == nil || nc == nil || nd == nil || combiner == nil {
		return errorf(pmpi.ClassArg, "type get envelope: a pointer for the counts or the combiner is NULL")
	}
	ints, addrs, counts := r.args()
	*ni, *na, *nc, *nd, *combiner = C.int64_t(len(ints)), C.int64_t(len(addrs)), C.int64_t(len(counts)), C.int64_t(len(r.types)), r.combiner
	return nil
}

func mpiTypeGetContents(h Datatype, maxInts, maxAddrs, maxTypes int, ints *C.int, addrs *C.intptr_t, types *Datatype) error {
	r, err := recipeOf("type get contents", h)
	if err != nil {
		return err
	}
	return r.contents(h, r.ints, r.addrs, nil, maxInts, maxAddrs, 0, maxTypes, ints, addrs, nil, types)
}

func mpiTypeGetContentsC(h Datatype, maxInts, maxAddrs, maxCounts, maxTypes int, ints *C.int, addrs *C.intptr_t, counts *C.int64_t, types *Datatype) error {
	r, err := recipeC("type get contents", h)
	if err != nil {
		return err
	}
	is, as, cs := r.args()
	return r.contents(h, is, as, cs, maxInts, maxAddrs, maxCounts, maxTypes, ints, addrs, counts, types)
}

// contents writes the arguments of r, the recipe of h, as the decoder
// gives them (is, as and cs: integers, addresses, large counts), and its
// old types, into the program's arrays of the sizes it passed.
func (r *recipe) contents(h Datatype, is, as, cs []int, maxInts, maxAddrs, maxCounts, maxTypes int,
	ints *C.int, addrs *C.intptr_t, counts *C.int64_t, types *Datatype) error {
	const op = "type get contents"
	if r.combiner == C.MPI_COMBINER_NAMED {
		return errorf(pmpi.ClassType, "%s: %s is predefined (MPI_COMBINER_NAMED has no contents)", op, typeNames[h])
	}
	if maxInts < len(is) || maxAddrs < len(as) || maxCounts < len(cs) || maxTypes < len(r.types) {
		return errorf(pmpi.ClassArg, "%s: room for %d integers, %d addresses, %d large counts and %d datatypes; the type has %d, %d, %d and %d (MPI_Type_get_envelope says)",
			op, maxInts, maxAddrs, maxCounts, maxTypes, len(is), len(as), len(cs), len(r.types))
	}
	if (len(is) > 0 && ints == nil) || (len(as) > 0 && addrs == nil) || (len(cs) > 0 && counts == nil) || (len(r.types) > 0 && types == nil) {
		return errorf(pmpi.ClassArg, "%s: an array the type's arguments need is NULL", op)
	}
	for i, v := range is {
		unsafe.Slice(ints, len(is))[i] = C.int(v)
	}
	for i, v := range as {
		unsafe.Slice(addrs, len(as))[i] = C.intptr_t(v)
	}
	for i, v := range cs {
		unsafe.Slice(counts, len(cs))[i] = C.int64_t(v)
	}
	// A derived type comes back as a new reference, which the program
	// frees.
	r.hold()
	copy(unsafe.Slice(types, len(r.types)), r.types)
	return nil
}
