package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// typeEntry is a derived datatype, the name MPI_Type_set_name gave it,
// the call that made it, and its references: the program's, and one for
// each type made from it that lives.
type typeEntry struct {
	dt     pmpi.Datatype
	name   atomic.Pointer[string]
	recipe *recipe
	refs   atomic.Int32
	// shifted is set once lib.shifts holds a shifted copy of dt, to be
	// dropped with it.
	shifted atomic.Bool
	own     ownRecipe
}

// ownRecipe is a type's recipe allocated with its entry: the arguments
// of a vector, or of a struct of up to four blocks, fit in it; more are
// allocated aside.
type ownRecipe struct {
	r     recipe
	ints  [5]int
	addrs [4]int
	types [4]Datatype
}

// predefinedType is a predefined C datatype: gompi's type of the same
// layout, and the C name, which MPI_Type_get_name returns.
type predefinedType struct {
	dt   pmpi.Datatype
	name string
}

const firstType = uintptr(MPI_DATATYPE_NULL)

// predefinedTypes is indexed by handle - MPI_DATATYPE_NULL. C's types
// map to gompi's by size and arithmetic on LP64 Linux, where long is 64
// bits and wchar_t 32; long, unsigned long, wchar_t and the long-int
// pair have types of their own, whose external32 sizes differ.
var predefinedTypes = func() (t [256]predefinedType) {
	for h, d := range map[Datatype]pmpi.Datatype{
		MPI_AINT: pmpi.Int64, MPI_COUNT: pmpi.Int64, MPI_OFFSET: pmpi.Int64, MPI_PACKED: pmpi.Byte,
		MPI_SHORT: pmpi.Int16, MPI_INT: pmpi.Int32, MPI_LONG: pmpi.CLong, MPI_LONG_LONG: pmpi.Int64,
		MPI_UNSIGNED_SHORT: pmpi.Uint16, MPI_UNSIGNED: pmpi.Uint32, MPI_UNSIGNED_LONG: pmpi.CUnsignedLong,
		MPI_UNSIGNED_LONG_LONG: pmpi.Uint64, MPI_FLOAT: pmpi.Float32, MPI_DOUBLE: pmpi.Float64,
		MPI_C_FLOAT_COMPLEX: pmpi.Complex64, MPI_CXX_FLOAT_COMPLEX: pmpi.Complex64,
		MPI_C_DOUBLE_COMPLEX: pmpi.Complex128, MPI_CXX_DOUBLE_COMPLEX: pmpi.Complex128,
		MPI_FLOAT_INT: pmpi.Float32Int, MPI_DOUBLE_INT: pmpi.Float64Int, MPI_LONG_INT: pmpi.CLongInt,
		MPI_2INT: pmpi.Int32Int, MPI_SHORT_INT: pmpi.Int16Int,
		MPI_C_BOOL: pmpi.Byte, MPI_CXX_BOOL: pmpi.Byte, MPI_WCHAR: pmpi.CWchar,
		MPI_INT8_T: pmpi.Int8, MPI_UINT8_T: pmpi.Byte, MPI_CHAR: pmpi.Int8, MPI_SIGNED_CHAR: pmpi.Int8,
		MPI_UNSIGNED_CHAR: pmpi.Byte, MPI_BYTE: pmpi.Byte, MPI_INT16_T: pmpi.Int16, MPI_UINT16_T: pmpi.Uint16,
		MPI_INT32_T: pmpi.Int32, MPI_UINT32_T: pmpi.Uint32, MPI_INT64_T: pmpi.Int64, MPI_UINT64_T: pmpi.Uint64,
	} {
		t[uintptr(h)-firstType] = predefinedType{dt: d, name: typeNames[h]}
	}
	for h, d := range fortranTypes {
		t[uintptr(h)-firstType] = predefinedType{dt: d, name: typeNames[h]}
	}
	if pmpi.LongDoubleX87 { // long double is x87's 80 bits, in 16 bytes
		for h, d := range map[Datatype]pmpi.Datatype{
			MPI_LONG_DOUBLE: pmpi.CLongDouble, MPI_C_LONG_DOUBLE_COMPLEX: pmpi.CLongDoubleComplex,
			MPI_CXX_LONG_DOUBLE_COMPLEX: pmpi.CLongDoubleComplex, MPI_LONG_DOUBLE_INT: pmpi.CLongDoubleInt,
		} {
			t[uintptr(h)-firstType] = predefinedType{dt: d, name: typeNames[h]}
		}
	}
	return t
}()

// predefinedHandles finds the C handle of a predefined gompi datatype,
// for user operations: the first C type of each gompi type in this order.
var predefinedHandles = func() map[pmpi.Datatype]Datatype {
	m := map[pmpi.Datatype]Datatype{}
	for _, h := range []Datatype{MPI_INT, MPI_DOUBLE, MPI_FLOAT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED,
		MPI_UNSIGNED_LONG, MPI_UNSIGNED_SHORT, MPI_SIGNED_CHAR, MPI_BYTE, MPI_C_FLOAT_COMPLEX,
		MPI_C_DOUBLE_COMPLEX, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
		MPI_WCHAR, MPI_INT64_T, MPI_UINT64_T, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX, MPI_LONG_DOUBLE_INT} {
		p := predefinedTypes[uintptr(h)-firstType]
		if _, ok := m[p.dt]; !ok && p.name != "" {
			m[p.dt] = h
		}
	}
	for d, h := range map[pmpi.Datatype]Datatype{ // Fortran's, which C lacks
		pmpi.Logical1: MPI_LOGICAL1, pmpi.Logical2: MPI_LOGICAL2, pmpi.Logical4: MPI_LOGICAL4, pmpi.Logical8: MPI_LOGICAL8,
		pmpi.Logical16: MPI_LOGICAL16, pmpi.Int128: MPI_INTEGER16, pmpi.Float16: MPI_REAL2, pmpi.Complex32: MPI_COMPLEX4,
		pmpi.Float128: MPI_REAL16, pmpi.Complex256: MPI_COMPLEX32,
		pmpi.Float32Float32: MPI_2REAL, pmpi.Float64Float64: MPI_2DOUBLE_PRECISION, pmpi.Int64Int64: MPI_2INTEGER,
	} {
		m[d] = h
	}
	return m
}()

func (h Datatype) get() (pmpi.Datatype, error) {
	if i := uintptr(h) - firstType; i < uintptr(len(predefinedTypes)) {
		if p := &predefinedTypes[i]; p.name != "" {
			return p.dt, nil
		}
	} else if e := lib.types.get(uintptr(h)); e != nil {
		return e.dt, nil
	}
	if d, ok := fortranDefault(h); ok {
		return d, nil
	}
	if h == MPI_DATATYPE_NULL {
		return pmpi.Datatype{}, errorf(pmpi.ClassType, "MPI_DATATYPE_NULL is not a datatype")
	}
	return pmpi.Datatype{}, errorf(pmpi.ClassType, "%#x is not a datatype (freed, or never one)", uintptr(h))
}

// noData is a call's datatype h of count elements where get failed with
// err: where count is 0, MPI_DATATYPE_NULL stands for no data, as MPICH
// takes it and codes written for it (PIO, ESMF) pass it. The calls test
// get's error first, so that a send pays nothing for it.
func noData(h Datatype, count int, err error) (pmpi.Datatype, error) {
	if count == 0 && h == MPI_DATATYPE_NULL {
		return pmpi.Byte, nil
	}
	return pmpi.Datatype{}, err
}

// handleOf is the C handle of a datatype, for a user operation's call.
func handleOf(d pmpi.Datatype) Datatype {
	if h, ok := predefinedHandles[d]; ok {
		return h
	}
	if h := d.Binding(); h != 0 {
		return Datatype(h)
	}
	return MPI_DATATYPE_NULL
}

// newType gives a derived datatype, made by r, a handle. The entry keeps
// a copy of r: r and its arrays stay the caller's (and on its stack).
func newType(d pmpi.Datatype, r *recipe, out *Datatype) error {
	e := &typeEntry{dt: d}
	o := &e.own
	o.r = recipe{combiner: r.combiner, large: r.large,
		ints: keep(o.ints[:0], r.ints), addrs: keep(o.addrs[:0], r.addrs), types: keep(o.types[:0], r.types)}
	e.recipe = &o.r
	e.refs.Store(1)
	h, err := lib.types.put(e)
	if err != nil {
		return err
	}
	e.recipe.hold()
	d.SetBinding(h)
	*out = Datatype(h)
	return nil
}

// keep is a copy of v in buf where it fits, aside where not; nil for none.
func keep[T any](buf, v []T) []T {
	if len(v) == 0 {
		return nil
	}
	return append(buf, v...)
}

// buffer is the C buffer p of count elements of d as a slice, to the end
// of the last element's data, and the datatype that views it: d, from p,
// unless d's data starts before p (a negative displacement, stride or
// lower bound), which gompi's buffers cannot, since they start at their
// origin; the slice then starts at that data and the type is d shifted to
// match (shifted). MPI_BOTTOM (NULL) is address 0: see bottom.
func buffer(p unsafe.Pointer, count int, d pmpi.Datatype) ([]byte, pmpi.Datatype) {
	if count <= 0 {
		return nil, d
	}
	if p == nil {
		return bottom(count, d)
	}
	if d.Contiguous() { // its data one block from p, elements back to back
		return unsafe.Slice((*byte)(p), count*d.Size()), d
	}
	_, ext := d.Extent()
	tlb, text := d.TrueExtent()
	n := (count-1)*ext + tlb + text
	if tlb < 0 && ext >= 0 {
		if s, ok := shifted(d, -tlb); ok {
			return unsafe.Slice((*byte)(unsafe.Add(p, tlb)), n-tlb), s
		}
	}
	if n <= 0 {
		return nil, d
	}
	return unsafe.Slice((*byte)(p), n), d
}

// bottom is buffer from MPI_BOTTOM: d's displacements are then addresses
// (MPI_Get_address's), so the slice starts at d's first data and the type
// is d shifted back by its address. A type with no data there (a
// predefined one, say) gives an empty slice, which gompi then finds too
// short.
func bottom(count int, d pmpi.Datatype) ([]byte, pmpi.Datatype) {
	_, ext := d.Extent()
	tlb, text := d.TrueExtent()
	if d.Size() == 0 || tlb <= 0 || ext < 0 {
		return nil, d
	}
	s, ok := shifted(d, -tlb)
	if !ok {
		return nil, d
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), tlb)), (count-1)*ext+text), s
}

// shifted is d with its data moved by off bytes, committed and kept
// while d lives: a count of it from p+tlb is a count of d from p, and a
// displacement in extents of either lands on the same bytes. A user
// operation or an attribute callback that gets it is given d's handle.
func shifted(d pmpi.Datatype, off int) (pmpi.Datatype, bool) {
	if s, ok := lib.shifts.Load(d); ok {
		return s.(pmpi.Datatype), true
	}
	s, err := pmpi.Real().TypeStruct([]int{1}, []int{off}, []pmpi.Datatype{d})
	if err == nil {
		err = pmpi.Real().TypeCommit(s)
	}
	if err != nil {
		return d, false // the call then finds the buffer too short
	}
	s.SetBinding(d.Binding())
	got, loaded := lib.shifts.LoadOrStore(d, s)
	if !loaded {
		if e := lib.types.get(d.Binding()); e != nil {
			e.shifted.Store(true)
		}
	}
	return got.(pmpi.Datatype), true
}

// sendBuffer is buffer, or gompi's InPlace for MPI_IN_PLACE.
func sendBuffer(p unsafe.Pointer, count int, d pmpi.Datatype) ([]byte, pmpi.Datatype) {
	if uintptr(p) == 1 {
		return pmpi.InPlace, d
	}
	return buffer(p, count, d)
}

func mpiTypeSize[N cInt](h Datatype, size *N) error {
	d, err := h.get()
	if err != nil {
		return err
	}
	*size = countIn[N](d.Size())
	return nil
}

func mpiTypeGetName(h Datatype, name *C.char, n *C.int) error {
	var s string
	if r, ok := lib.typeRenames.Load(h); ok {
		s = r.(string)
	} else if i := uintptr(h) - firstType; i < uintptr(len(predefinedTypes)) && predefinedTypes[i].name != "" {
		s = predefinedTypes[i].name
	} else if _, ok := fortranDefault(h); ok {
		s = typeNames[h]
	} else if e := lib.types.get(uintptr(h)); e != nil {
		if p := e.name.Load(); p != nil {
			s = *p
		}
	} else if h == MPI_DATATYPE_NULL { // MPI 4.1 names the null handle
		s = "MPI_DATATYPE_NULL"
	} else {
		_, err := h.get()
		return err
	}
	*n = C.int(putString(name, s, C.MPI_MAX_OBJECT_NAME))
	return nil
}

func mpiTypeSetName(h Datatype, name *C.char) error {
	e := lib.types.get(uintptr(h))
	if e == nil {
		if _, err := h.get(); err != nil {
			return err
		}
		lib.typeRenames.Store(h, C.GoString(name)) // a predefined type, which MPI lets a program rename
		return nil
	}
	s := C.GoString(name)
	e.name.Store(&s)
	return nil
}

func mpiTypeGetExtent(h Datatype, lb, extent *C.intptr_t) error {
	d, err := h.get()
	if err != nil {
		return err
	}
	l, e := d.Extent()
	*lb, *extent = C.intptr_t(l), C.intptr_t(e)
	return nil
}

func mpiTypeGetTrueExtent(h Datatype, lb, extent *C.intptr_t) error {
	d, err := h.get()
	if err != nil {
		return err
	}
	l, e := d.TrueExtent()
	*lb, *extent = C.intptr_t(l), C.intptr_t(e)
	return nil
}

func mpiTypeCommit(h *Datatype) error {
	d, err := h.get()
	if err != nil {
		return err
	}
	return api().TypeCommit(d)
}

func mpiTypeFree(h *Datatype) error {
	e := lib.types.get(uintptr(*h))
	if e == nil {
		if _, err := h.get(); err != nil {
			return err
		}
		return errorf(pmpi.ClassType, "type free: %s is predefined and cannot be freed", typeNames[*h])
	}
	if e.recipe != nil && e.recipe.isF90() {
		return errorf(pmpi.ClassType, "type free: %#x is predefined (made by MPI_Type_create_f90_*) and cannot be freed", uintptr(*h))
	}
	// A type that others were made from lives on while they do.
	if err := releaseType(*h, e, api()); err != nil {
		return err
	}
	*h = MPI_DATATYPE_NULL
	return nil
}

func mpiTypeContiguous(count int, old Datatype, out *Datatype) error {
	d, err := old.get()
	if err != nil {
		return err
	}
	nd, err := api().TypeContiguous(count, d)
	if err != nil {
		return err
	}
	return newType(nd, &recipe{combiner: C.MPI_COMBINER_CONTIGUOUS, ints: []int{count}, types: []Datatype{old}}, out)
}

func mpiTypeVector(count, blocklen, stride int, old Datatype, out *Datatype) error {
	d, err := old.get()
	if err != nil {
		return err
	}
	nd, err := api().TypeVector(count, blocklen, stride, d)
	if err != nil {
		return err
	}
	return newType(nd, &recipe{combiner: C.MPI_COMBINER_VECTOR, ints: []int{count, blocklen, stride}, types: []Datatype{old}}, out)
}

func mpiGetAddress(p unsafe.Pointer, addr *C.intptr_t) error {
	*addr = C.intptr_t(uintptr(p))
	return nil
}

func mpiAintAdd(base, disp int) int { return base + disp }
func mpiAintDiff(a, b int) int      { return a - b }

// The extent and size queries with MPI_Count results: the _c twins and
// the deprecated _x names. cgo makes int64_t and intptr_t one Go type on
// LP64, where both are long; the generator, which compares C names,
// still wants these.

func mpiTypeGetExtentX(h Datatype, lb, extent *C.int64_t) error {
	return mpiTypeGetExtent(h, lb, extent)
}

func mpiTypeGetTrueExtentX(h Datatype, lb, extent *C.int64_t) error {
	return mpiTypeGetTrueExtent(h, lb, extent)
}

func mpiTypeSizeX(h Datatype, size *C.int64_t) error { return mpiTypeSize(h, size) }
