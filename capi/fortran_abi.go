package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// The Fortran ABI: a Fortran binding layer over this library tells it,
// once, the sizes of Fortran's default kinds (MPI_Abi_set_fortran_info)
// and the values of .TRUE. and .FALSE. (MPI_Abi_set_fortran_booleans).
// Until it does, the default kinds are gfortran's and flang's without
// kind flags, and the getters answer that nothing was set.
type fortranABI struct {
	kinds atomic.Pointer[kindTypes] // nil: the default kinds' types

	mu    sync.Mutex
	info  *pmpi.Info // what MPI_Abi_set_fortran_info was given, nil before
	bools *fortranBooleans
}

// fortranKinds are the sizes in bytes of Fortran's default kinds.
type fortranKinds struct {
	logical, integer, real, double int
}

var defaultKinds = fortranKinds{logical: 4, integer: 4, real: 4, double: 8}

// fortranBooleans are a LOGICAL's size and its .TRUE. and .FALSE.
type fortranBooleans struct {
	size        int
	true, false []byte
}

// The gompi types of the sizes a default kind may have.
var (
	fortranLogicals = map[int]pmpi.Datatype{1: pmpi.Logical1, 2: pmpi.Logical2, 4: pmpi.Logical4, 8: pmpi.Logical8}
	fortranIntegers = map[int]pmpi.Datatype{4: pmpi.Int32, 8: pmpi.Int64}
	fortranReals    = map[int]pmpi.Datatype{4: pmpi.Float32, 8: pmpi.Float64}
	fortranComplex  = map[int]pmpi.Datatype{4: pmpi.Complex64, 8: pmpi.Complex128}
	integerPairs    = map[int]pmpi.Datatype{4: pmpi.Int32Int, 8: pmpi.Int64Int64}
	realPairs       = map[int]pmpi.Datatype{4: pmpi.Float32Float32, 8: pmpi.Float64Float64}
)

// defaultHandles are the handles of the default kinds and their pairs,
// whose types kindTypes holds in this order.
var defaultHandles = [...]Datatype{MPI_LOGICAL, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
	MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION}

// kindTypes are the types of defaultHandles at some sizes of the kinds,
// worked out once: a Fortran program names them in every call.
type kindTypes [len(defaultHandles)]pmpi.Datatype

func (k fortranKinds) types() *kindTypes {
	return &kindTypes{fortranLogicals[k.logical], fortranIntegers[k.integer], fortranReals[k.real],
		fortranReals[k.double], fortranComplex[k.real], fortranComplex[k.double],
		integerPairs[k.integer], realPairs[k.real], realPairs[k.double]}
}

var defaultTypes = defaultKinds.types()

// fortranDefault returns the gompi type of h when h is one of Fortran's
// default kinds or a pair of them, at the sizes in force.
func fortranDefault(h Datatype) (pmpi.Datatype, bool) {
	i := slices.Index(defaultHandles[:], h)
	if i < 0 {
		return pmpi.Datatype{}, false
	}
	t := lib.fortran.kinds.Load()
	if t == nil {
		t = defaultTypes
	}
	return t[i], true
}

// kindKeys are the keys of MPI_Abi_set_fortran_info that size a default
// kind, with the sizes gompi has types for.
var kindKeys = []struct {
	key   string
	field func(*fortranKinds) *int
	sizes []int
}{
	{"mpi_logical_size", func(k *fortranKinds) *int { return &k.logical }, []int{1, 2, 4, 8}},
	{"mpi_integer_size", func(k *fortranKinds) *int { return &k.integer }, []int{4, 8}},
	{"mpi_real_size", func(k *fortranKinds) *int { return &k.real }, []int{4, 8}},
	{"mpi_double_precision_size", func(k *fortranKinds) *int { return &k.double }, []int{8}},
}

// mpiAbiSetFortranInfo takes the sizes of the default kinds from h's
// keys; keys it does not know (the *_supported ones) are kept for
// MPI_Abi_get_fortran_info only. Only the first successful call counts.
func mpiAbiSetFortranInfo(h Info) error {
	const op = "abi set fortran info"
	info, err := h.get()
	if err != nil {
		return err
	}
	k := defaultKinds
	for _, kk := range kindKeys {
		v, ok, err := pmpi.Real().InfoGet(info, kk.key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || !slices.Contains(kk.sizes, n) {
			return errorf(pmpi.ClassArg, "%s: %s is %q (gompi has types for sizes %v)", op, kk.key, v, kk.sizes)
		}
		*kk.field(&k) = n
	}
	f := &lib.fortran
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.info != nil {
		return &abiError{C.MPI_ERR_ABI, op + ": the Fortran ABI was set already; only the first call counts"}
	}
	kept, err := pmpi.Real().InfoDup(info)
	if err != nil {
		return err
	}
	f.info = kept
	f.kinds.Store(k.types())
	return nil
}

// mpiAbiGetFortranInfo returns a copy of what MPI_Abi_set_fortran_info
// was given, MPI_INFO_NULL before: the library has no Fortran bindings
// of its own to describe.
func mpiAbiGetFortranInfo(out *Info) error {
	if out == nil {
		return errorf(pmpi.ClassArg, "abi get fortran info: the pointer for the info is NULL")
	}
	f := &lib.fortran
	f.mu.Lock()
	info := f.info
	f.mu.Unlock()
	if info == nil {
		*out = MPI_INFO_NULL
		return nil
	}
	d, err := pmpi.Real().InfoDup(info)
	if err != nil {
		return err
	}
	return putInfo(d, out)
}

// logicalSize checks a LOGICAL's size in bytes.
func logicalSize(op string, size int) error {
	if _, ok := fortranLogicals[size]; !ok {
		return errorf(pmpi.ClassArg, "%s: a LOGICAL of %d bytes (gompi has logicals of 1, 2, 4 and 8)", op, size)
	}
	return nil
}

// mpiAbiSetFortranBooleans records .TRUE. and .FALSE. for LOGICALs of
// size bytes. gompi's logical reductions take zero for false and return
// their operands' own true values, so .FALSE. must be zero and .TRUE.
// anything else. Only the first successful call counts.
func mpiAbiSetFortranBooleans(size int, t, f unsafe.Pointer) error {
	const op = "abi set fortran booleans"
	if err := logicalSize(op, size); err != nil {
		return err
	}
	if t == nil || f == nil {
		return errorf(pmpi.ClassArg, "%s: the pointer to .TRUE. or .FALSE. is NULL", op)
	}
	tv, fv := C.GoBytes(t, C.int(size)), C.GoBytes(f, C.int(size))
	if !zero(fv) {
		return errorf(pmpi.ClassArg, "%s: .FALSE. is %x; gompi's logical reductions need it zero, as Fortran compilers make it", op, fv)
	}
	if zero(tv) {
		return errorf(pmpi.ClassArg, "%s: .TRUE. is zero, the value of .FALSE.", op)
	}
	fa := &lib.fortran
	fa.mu.Lock()
	defer fa.mu.Unlock()
	if b := fa.bools; b != nil {
		return &abiError{C.MPI_ERR_ABI, fmt.Sprintf("%s: the booleans were set already (for LOGICALs of %d bytes); only the first call counts", op, b.size)}
	}
	fa.bools = &fortranBooleans{size: size, true: tv, false: fv}
	return nil
}

// mpiAbiGetFortranBooleans returns the values MPI_Abi_set_fortran_booleans
// recorded for LOGICALs of size bytes, and whether it did.
func mpiAbiGetFortranBooleans(size int, t, f unsafe.Pointer, isSet *C.int) error {
	const op = "abi get fortran booleans"
	if size <= 0 || size&(size-1) != 0 || size > 16 {
		return errorf(pmpi.ClassArg, "%s: a LOGICAL of %d bytes (want a power of two up to 16)", op, size)
	}
	if isSet == nil {
		return errorf(pmpi.ClassArg, "%s: the pointer for is_set is NULL", op)
	}
	fa := &lib.fortran
	fa.mu.Lock()
	b := fa.bools
	fa.mu.Unlock()
	if b == nil || b.size != size {
		*isSet = 0
		return nil
	}
	if t == nil || f == nil {
		return errorf(pmpi.ClassArg, "%s: the pointer for .TRUE. or .FALSE. is NULL", op)
	}
	copy(unsafe.Slice((*byte)(t), size), b.true)
	copy(unsafe.Slice((*byte)(f), size), b.false)
	*isSet = 1
	return nil
}

func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
