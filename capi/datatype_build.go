package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"slices"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// The datatype constructors. Each takes C's arrays, copies them into Go
// slices and calls pmpi's constructor; the _c twins, whose arrays hold
// MPI_Count, share the code through the []int they make.

// cArray is the C array p of n elements as a []int, or an error naming
// what when n is negative or p is NULL with elements.
func cArray[T cInt](op, what string, p *T, n int) ([]int, error) {
	if n < 0 {
		return nil, errorf(pmpi.ClassCount, "%s: count %d is negative (want 0 or more)", op, n)
	}
	if n == 0 {
		return []int{}, nil
	}
	if p == nil {
		return nil, errorf(pmpi.ClassArg, "%s: the array of %s is NULL with %d elements", op, what, n)
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int(v)
	}
	return out, nil
}

// blockArrays reads the block lengths and displacements of an indexed or
// struct constructor.
func blockArrays[B, D cInt](op string, count int, blocklens *B, displs *D) (bl, ds []int, err error) {
	if bl, err = cArray(op, "block lengths", blocklens, count); err != nil {
		return nil, nil, err
	}
	ds, err = cArray(op, "displacements", displs, count)
	return bl, ds, err
}

// build gives the type construct returns from old a handle in *out; r
// is the call, whose old type build adds.
func build(old Datatype, out *Datatype, r *recipe, construct func(pmpi.Datatype) (pmpi.Datatype, error)) error {
	d, err := old.get()
	if err != nil {
		return err
	}
	nd, err := construct(d)
	if err != nil {
		return err
	}
	r.types = []Datatype{old}
	return newType(nd, r, out)
}

// counted is n followed by the arrays: a constructor's integer arguments.
func counted(n int, arrays ...[]int) []int {
	out := []int{n}
	for _, a := range arrays {
		out = append(out, a...)
	}
	return out
}

func mpiTypeCreateHvector(count, blocklen, stride int, old Datatype, out *Datatype) error {
	r := &recipe{combiner: C.MPI_COMBINER_HVECTOR, ints: []int{count, blocklen}, addrs: []int{stride}}
	return build(old, out, r, func(d pmpi.Datatype) (pmpi.Datatype, error) {
		return api().TypeHvector(count, blocklen, stride, d)
	})
}

// indexed builds an indexed or hindexed type from blocklens and displs.
func indexed(blocklens, displs []int, old Datatype, out *Datatype, bytes bool) error {
	r := &recipe{combiner: C.MPI_COMBINER_INDEXED, ints: counted(len(blocklens), blocklens, displs)}
	if bytes {
		r = &recipe{combiner: C.MPI_COMBINER_HINDEXED, ints: counted(len(blocklens), blocklens), addrs: displs}
	}
	return build(old, out, r, func(d pmpi.Datatype) (pmpi.Datatype, error) {
		if bytes {
			return api().TypeHindexed(blocklens, displs, d)
		}
		return api().TypeIndexed(blocklens, displs, d)
	})
}

func mpiTypeIndexed[N cInt](count int, blocklens, displs *N, old Datatype, out *Datatype) error {
	const op = "type indexed"
	bl, ds, err := blockArrays(op, count, blocklens, displs)
	if err != nil {
		return err
	}
	return indexed(bl, ds, old, out, false)
}

func mpiTypeCreateHindexed[B, D cInt](count int, blocklens *B, displs *D, old Datatype, out *Datatype) error {
	const op = "type create hindexed"
	bl, ds, err := blockArrays(op, count, blocklens, displs)
	if err != nil {
		return err
	}
	return indexed(bl, ds, old, out, true)
}

// indexedBlock builds an indexed or hindexed type of equal blocks.
func indexedBlock(blocklen int, displs []int, old Datatype, out *Datatype, bytes bool) error {
	r := &recipe{combiner: C.MPI_COMBINER_INDEXED_BLOCK, ints: counted(len(displs), []int{blocklen}, displs)}
	if bytes {
		r = &recipe{combiner: C.MPI_COMBINER_HINDEXED_BLOCK, ints: []int{len(displs), blocklen}, addrs: displs}
	}
	return build(old, out, r, func(d pmpi.Datatype) (pmpi.Datatype, error) {
		if bytes {
			return api().TypeHindexedBlock(blocklen, displs, d)
		}
		return api().TypeIndexedBlock(blocklen, displs, d)
	})
}

func mpiTypeCreateIndexedBlock[N cInt](count, blocklen int, displs *N, old Datatype, out *Datatype) error {
	ds, err := cArray("type create indexed block", "displacements", displs, count)
	if err != nil {
		return err
	}
	return indexedBlock(blocklen, ds, old, out, false)
}

func mpiTypeCreateHindexedBlock[N cInt](count, blocklen int, displs *N, old Datatype, out *Datatype) error {
	ds, err := cArray("type create hindexed block", "displacements", displs, count)
	if err != nil {
		return err
	}
	return indexedBlock(blocklen, ds, old, out, true)
}

// structType builds a struct type from the C array of count type handles.
func structType(op string, blocklens, displs []int, types *Datatype, out *Datatype) error {
	n := len(blocklens)
	if n > 0 && types == nil {
		return errorf(pmpi.ClassArg, "%s: the array of types is NULL with %d elements", op, n)
	}
	ds := make([]pmpi.Datatype, n)
	var hs []Datatype // the program's array, which newType copies
	if n > 0 {
		hs = unsafe.Slice(types, n)
		for i, h := range hs {
			d, err := h.get()
			if err != nil {
				return errorf(pmpi.ClassType, "%s: type %d of the struct: %v", op, i, err)
			}
			ds[i] = d
		}
	}
	d, err := api().TypeStruct(blocklens, displs, ds)
	if err != nil {
		return err
	}
	// MPI pads a struct's extent to its members' strictest alignment, as C
	// pads the struct, so that a count of them steps over an array of the
	// C struct; not where a member's bounds were set (MPI_Type_create_resized).
	if align := d.Alignment(); align > 1 && !slices.ContainsFunc(hs, boundsSet) {
		if lb, ext := d.Extent(); ext%align != 0 {
			if d, err = pmpi.Real().TypeResized(d, lb, (ext+align-1)/align*align); err != nil {
				return err
			}
		}
	}
	return newType(d, &recipe{combiner: C.MPI_COMBINER_STRUCT, ints: counted(n, blocklens), addrs: displs, types: hs}, out)
}

// boundsSet reports whether h's bounds, or a bound of a type it is made
// of, were set by MPI_Type_create_resized: MPI then takes them as they
// are.
func boundsSet(h Datatype) bool {
	e := lib.types.get(uintptr(h))
	if e == nil {
		return false // predefined
	}
	return e.recipe.combiner == C.MPI_COMBINER_RESIZED || slices.ContainsFunc(e.recipe.types, boundsSet)
}

func mpiTypeCreateStruct[B, D cInt](count int, blocklens *B, displs *D, types *Datatype, out *Datatype) error {
	const op = "type create struct"
	bl, ds, err := blockArrays(op, count, blocklens, displs)
	if err != nil {
		return err
	}
	return structType(op, bl, ds, types, out)
}

// goOrder is C's MPI_ORDER_C or MPI_ORDER_FORTRAN as pmpi's Order.
func goOrder(op string, order int) (pmpi.Order, error) {
	switch order {
	case C.MPI_ORDER_C:
		return pmpi.OrderC, nil
	case C.MPI_ORDER_FORTRAN:
		return pmpi.OrderFortran, nil
	}
	return 0, errorf(pmpi.ClassArg, "%s: order %d (want MPI_ORDER_C or MPI_ORDER_FORTRAN)", op, order)
}

// subarray builds a subarray type; order is C's MPI_ORDER_C or
// MPI_ORDER_FORTRAN.
func subarray(sizes, subsizes, starts []int, order int, old Datatype, out *Datatype) error {
	o, err := goOrder("type create subarray", order)
	if err != nil {
		return err
	}
	r := &recipe{combiner: C.MPI_COMBINER_SUBARRAY, ints: append(counted(len(sizes), sizes, subsizes, starts), order)}
	return build(old, out, r, func(d pmpi.Datatype) (pmpi.Datatype, error) {
		return api().TypeSubarray(sizes, subsizes, starts, o, d)
	})
}

func mpiTypeCreateSubarray[N cInt](ndims int, sizes, subsizes, starts *N, order int, old Datatype, out *Datatype) error {
	const op = "type create subarray"
	sz, err := cArray(op, "sizes", sizes, ndims)
	if err != nil {
		return err
	}
	sub, err := cArray(op, "subsizes", subsizes, ndims)
	if err != nil {
		return err
	}
	st, err := cArray(op, "starts", starts, ndims)
	if err != nil {
		return err
	}
	return subarray(sz, sub, st, order, old, out)
}

func mpiTypeCreateResized(old Datatype, lb, extent int, out *Datatype) error {
	return build(old, out, &recipe{combiner: C.MPI_COMBINER_RESIZED, addrs: []int{lb, extent}}, func(d pmpi.Datatype) (pmpi.Datatype, error) {
		return api().TypeResized(d, lb, extent)
	})
}

// mpiTypeDup copies old with the attributes its keyvals' copy callbacks
// give the copy.
func mpiTypeDup(old Datatype, out *Datatype) error {
	return build(old, out, &recipe{combiner: C.MPI_COMBINER_DUP}, api().TypeDup)
}

// matchTypes are the C types MPI_Type_match_size returns, by type class
// and size in bytes.
var matchTypes = map[[2]int]Datatype{
	{C.MPI_TYPECLASS_INTEGER, 1}: MPI_INT8_T, {C.MPI_TYPECLASS_INTEGER, 2}: MPI_INT16_T,
	{C.MPI_TYPECLASS_INTEGER, 4}: MPI_INT32_T, {C.MPI_TYPECLASS_INTEGER, 8}: MPI_INT64_T,
	{C.MPI_TYPECLASS_INTEGER, 16}: MPI_INTEGER16, {C.MPI_TYPECLASS_REAL, 4}: MPI_FLOAT, {C.MPI_TYPECLASS_REAL, 8}: MPI_DOUBLE,
	{C.MPI_TYPECLASS_COMPLEX, 8}: MPI_C_FLOAT_COMPLEX, {C.MPI_TYPECLASS_COMPLEX, 16}: MPI_C_DOUBLE_COMPLEX,
	// Fortran's half and quadruple precisions: a 16-byte real is REAL(16),
	// not C's long double, since the call serves Fortran's kinds.
	{C.MPI_TYPECLASS_REAL, 2}: MPI_REAL2, {C.MPI_TYPECLASS_REAL, 16}: MPI_REAL16,
	{C.MPI_TYPECLASS_COMPLEX, 4}: MPI_COMPLEX4, {C.MPI_TYPECLASS_COMPLEX, 32}: MPI_COMPLEX32,
}

func mpiTypeMatchSize(class, size int, out *Datatype) error {
	switch class {
	case C.MPI_TYPECLASS_INTEGER, C.MPI_TYPECLASS_REAL, C.MPI_TYPECLASS_COMPLEX:
	default:
		return errorf(pmpi.ClassArg, "type match size: type class %d (want MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX)", class)
	}
	h, ok := matchTypes[[2]int{class, size}]
	if !ok {
		return errorf(pmpi.ClassArg, "type match size: no predefined type of class %d is %d bytes (integers: 1, 2, 4, 8, 16; reals: 2, 4, 8, 16; complex: 4, 8, 16, 32)", class, size)
	}
	*out = h
	return nil
}

// valueIndexTypes are the predefined value-index pairs, by value type;
// the index is an int.
var valueIndexTypes = map[Datatype]Datatype{
	MPI_FLOAT: MPI_FLOAT_INT, MPI_DOUBLE: MPI_DOUBLE_INT, MPI_LONG: MPI_LONG_INT,
	MPI_SHORT: MPI_SHORT_INT, MPI_INT: MPI_2INT, MPI_LONG_DOUBLE: MPI_LONG_DOUBLE_INT,
}

// fortranPairs are Fortran's pairs, whose index has the value's type.
var fortranPairs = map[Datatype]Datatype{
	MPI_INTEGER: MPI_2INTEGER, MPI_REAL: MPI_2REAL, MPI_DOUBLE_PRECISION: MPI_2DOUBLE_PRECISION,
}

// mpiTypeGetValueIndex returns the predefined pair type of value and
// index, MPI_DATATYPE_NULL when there is none, as Open MPI and MPICH do.
func mpiTypeGetValueIndex(value, index Datatype, out *Datatype) error {
	for _, h := range []Datatype{value, index} {
		if _, err := h.get(); err != nil {
			return err
		}
	}
	*out = MPI_DATATYPE_NULL
	if p, ok := valueIndexTypes[value]; ok && index == MPI_INT {
		*out = p
	}
	if p, ok := fortranPairs[value]; ok && index == value {
		*out = p
	}
	return nil
}

// darrayDistribs maps MPI_DISTRIBUTE_* to pmpi's distributions.
var darrayDistribs = map[int]pmpi.Distribution{
	C.MPI_DISTRIBUTE_BLOCK: pmpi.DistributeBlock, C.MPI_DISTRIBUTE_CYCLIC: pmpi.DistributeCyclic, C.MPI_DISTRIBUTE_NONE: pmpi.DistributeNone,
}

// mpiTypeCreateDarray reads C's arrays and makes pmpi's TypeDarray call;
// the recipe keeps the program's integers for MPI_Type_get_contents.
func mpiTypeCreateDarray[N cInt](size, rank, ndims int, gsizes *N, distribs, dargs, psizes *C.int, order int, old Datatype, out *Datatype) error {
	const op = "type create darray"
	if ndims <= 0 {
		return errorf(pmpi.ClassArg, "%s: ndims %d (want 1 or more)", op, ndims)
	}
	g, err := cArray(op, "global sizes", gsizes, ndims)
	if err != nil {
		return err
	}
	dist, err := cArray(op, "distributions", distribs, ndims)
	if err != nil {
		return err
	}
	darg, err := cArray(op, "distribution arguments", dargs, ndims)
	if err != nil {
		return err
	}
	p, err := cArray(op, "process grid sizes", psizes, ndims)
	if err != nil {
		return err
	}
	o, err := goOrder(op, order)
	if err != nil {
		return err
	}
	ds, das := make([]pmpi.Distribution, ndims), make([]int, ndims)
	for i := range ndims {
		d, ok := darrayDistribs[dist[i]]
		if !ok {
			return errorf(pmpi.ClassArg, "%s: distribution %d of dimension %d (want MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE)", op, dist[i], i)
		}
		ds[i], das[i] = d, darg[i]
		switch {
		case darg[i] == C.MPI_DISTRIBUTE_DFLT_DARG:
			das[i] = pmpi.DistributeDefaultDarg
		case d != pmpi.DistributeNone && darg[i] < 1:
			// pmpi's default is a negative number that C's may not mean.
			return errorf(pmpi.ClassArg, "%s: distribution argument %d of dimension %d (want 1 or more, or MPI_DISTRIBUTE_DFLT_DARG)", op, darg[i], i)
		}
	}
	r := &recipe{combiner: C.MPI_COMBINER_DARRAY}
	r.ints = append(append(append(append(append([]int{size, rank, ndims}, g...), dist...), darg...), p...), order)
	return build(old, out, r, func(d pmpi.Datatype) (pmpi.Datatype, error) {
		return api().TypeDarray(size, rank, g, ds, das, p, o, d)
	})
}
