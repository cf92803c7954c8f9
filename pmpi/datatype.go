package pmpi

import (
	"math/bits"
	"reflect"
	"unsafe"
)

// Datatype describes the elements of a buffer: the core sees every buffer
// as (bytes, count, datatype), as MPI's C interface does. It is one
// pointer, so that it travels in a register through the layers every
// point-to-point call passes: a predefined type points into a static
// table, a derived one (Vector, Struct, a Go struct...) to its own
// descriptor, which the garbage collector keeps while any request uses
// it. The zero Datatype is invalid.
type Datatype struct {
	t *typeDesc
}

// typeDesc is what a Datatype stands for. The fields every call reads
// come first; the layout of a derived type follows.
type typeDesc struct {
	size int // bytes of data in one element, padding and gaps left out
	// derived is set for every type outside the predefined table: a call
	// checks it (committed, not freed, valid) and packs it if packs is set.
	derived bool
	packs   bool // not contiguous: sent packed, received through a buffer
	kind    kind
	id      uint8 // index in predefined; 0 for a derived type
	name    string
	// naming makes a constructed type's name when first asked for (see
	// typeName): formatting it in the constructor would cost more than
	// the rest of making the type, which a program may do at every step.
	naming func() string
	layout
}

// typeName is t's name: name, or what naming makes, made once.
func (t *typeDesc) typeName() string {
	if t.naming == nil || t.state == nil {
		return t.name
	}
	if p := t.state.name.Load(); p != nil {
		return *p
	}
	s := t.naming()
	t.state.name.Store(&s)
	return s
}

// kind is what reductions may do with a datatype's elements.
type kind uint8

const (
	kindInt     kind = iota + 1 // signed and unsigned integers, Go's byte among them
	kindFloat                   // float32, float64
	kindComplex                 // complex64, complex128
	kindPair                    // a value and an index: MinLoc and MaxLoc
	kindLogical                 // Fortran's LOGICAL: zero is false
)

// Name is the datatype's MPI-style name, or a description of a derived
// one: "vector(4,1,8,MPI_DOUBLE)", a Go struct's type name.
func (d Datatype) Name() string {
	if d.t == nil {
		return "MPI_DATATYPE_NULL"
	}
	return d.t.typeName()
}

// Size is the number of bytes of data in one element: for a derived
// type, without its gaps (MPI_Type_size).
func (d Datatype) Size() int {
	if d.t == nil {
		return 0
	}
	return d.t.size
}

func (d Datatype) kind() kind { return d.t.kind }

// count is how many elements n bytes hold, Undefined unless they are a
// whole number, as MPI_Get_count says: a mask and a shift for the
// power-of-two sizes of the predefined types, since a division costs
// more than the rest of a receive's status. d must be valid and
// predefined: countOf takes any type.
func (d Datatype) count(n int) int {
	size := d.t.size
	if size&(size-1) == 0 {
		if n&(size-1) != 0 {
			return Undefined
		}
		return n >> bits.TrailingZeros(uint(size))
	}
	if n%size != 0 {
		return Undefined
	}
	return n / size
}

// countOf is count for any valid type.
func (d Datatype) countOf(n int) int {
	if d.t.derived {
		return d.t.wholeCount(n)
	}
	return d.count(n)
}

// The predefined datatypes, one per Go numeric type.
var (
	Byte       = Datatype{&predefined[1]}
	Int8       = Datatype{&predefined[2]}
	Int16      = Datatype{&predefined[3]}
	Int32      = Datatype{&predefined[4]}
	Int64      = Datatype{&predefined[5]}
	Uint16     = Datatype{&predefined[6]}
	Uint32     = Datatype{&predefined[7]}
	Uint64     = Datatype{&predefined[8]}
	Float32    = Datatype{&predefined[9]}
	Float64    = Datatype{&predefined[10]}
	Complex64  = Datatype{&predefined[11]}
	Complex128 = Datatype{&predefined[12]}

	// The value-index pairs of MinLoc and MaxLoc, laid out as C's structs.
	Float32Int = Datatype{&predefined[13]}
	Float64Int = Datatype{&predefined[14]}
	Int64Int   = Datatype{&predefined[15]}
	Int32Int   = Datatype{&predefined[16]}
	Int16Int   = Datatype{&predefined[17]}

	// C's long, unsigned long, wchar_t and long-int pair on LP64 Linux:
	// in memory and in every operation Int64, Uint64, Int32 and Int64Int,
	// but 4, 4 and 2 bytes in external32, where MPI fixes their sizes. The
	// C library's MPI_LONG and its kin are these.
	CLong         = Datatype{&predefined[idLong]}
	CUnsignedLong = Datatype{&predefined[idUnsignedLong]}
	CWchar        = Datatype{&predefined[idWchar]}
	CLongInt      = Datatype{&predefined[idLongInt]}
)

// The ids of the C types above, of C's long double types
// (longdouble.go) and of Fortran's types that Go's do not describe
// (fortran.go, float16.go, float128.go).
const (
	idLong = 18 + iota
	idUnsignedLong
	idWchar
	idLongInt
	idLongDouble
	idLongDoubleComplex
	idLongDoubleInt
	idLogical1
	idLogical2
	idLogical4
	idLogical8
	idInt64Int64
	idFloat32Float32
	idFloat64Float64
	idLogical16
	idInt128
	idFloat16
	idComplex32
	idFloat128
	idComplex256
)

// predefined describes the predefined datatypes by id.
var predefined = [...]typeDesc{
	{},
	basicDesc(1, "MPI_BYTE", 1, kindInt),
	basicDesc(2, "MPI_INT8_T", 1, kindInt),
	basicDesc(3, "MPI_INT16_T", 2, kindInt),
	basicDesc(4, "MPI_INT32_T", 4, kindInt),
	basicDesc(5, "MPI_INT64_T", 8, kindInt),
	basicDesc(6, "MPI_UINT16_T", 2, kindInt),
	basicDesc(7, "MPI_UINT32_T", 4, kindInt),
	basicDesc(8, "MPI_UINT64_T", 8, kindInt),
	basicDesc(9, "MPI_FLOAT", 4, kindFloat),
	basicDesc(10, "MPI_DOUBLE", 8, kindFloat),
	basicDesc(11, "MPI_C_FLOAT_COMPLEX", 8, kindComplex),
	basicDesc(12, "MPI_C_DOUBLE_COMPLEX", 16, kindComplex),
	pairDesc(13, "MPI_FLOAT_INT", 9, 4),
	pairDesc(14, "MPI_DOUBLE_INT", 10, 8),
	pairDesc(15, "MPI_LONG_INT", 5, 8),
	pairDesc(16, "MPI_2INT", 4, 4),
	pairDesc(17, "MPI_SHORT_INT", 3, 2),
	like(basicDesc(idLong, "MPI_LONG", 8, kindInt), 5),
	like(basicDesc(idUnsignedLong, "MPI_UNSIGNED_LONG", 8, kindInt), 8),
	like(basicDesc(idWchar, "MPI_WCHAR", 4, kindInt), 4),
	like(pairDesc(idLongInt, "MPI_LONG_INT", idLong, 8), 15),
	basicDesc(idLongDouble, "MPI_LONG_DOUBLE", 16, kindFloat),
	basicDesc(idLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX", 32, kindComplex),
	pairDesc(idLongDoubleInt, "MPI_LONG_DOUBLE_INT", idLongDouble, 16),
	basicDesc(idLogical1, "MPI_LOGICAL1", 1, kindLogical),
	basicDesc(idLogical2, "MPI_LOGICAL2", 2, kindLogical),
	basicDesc(idLogical4, "MPI_LOGICAL4", 4, kindLogical),
	basicDesc(idLogical8, "MPI_LOGICAL8", 8, kindLogical),
	twinDesc(idInt64Int64, "MPI_2INTEGER", 5, 8),
	twinDesc(idFloat32Float32, "MPI_2REAL", 9, 4),
	twinDesc(idFloat64Float64, "MPI_2DOUBLE_PRECISION", 10, 8),
	basicDesc(idLogical16, "MPI_LOGICAL16", 16, kindLogical),
	basicDesc(idInt128, "MPI_INTEGER16", 16, kindInt),
	basicDesc(idFloat16, "MPI_REAL2", 2, kindFloat),
	basicDesc(idComplex32, "MPI_COMPLEX4", 4, kindComplex),
	basicDesc(idFloat128, "MPI_REAL16", 16, kindFloat),
	basicDesc(idComplex256, "MPI_COMPLEX32", 32, kindComplex),
}

// like makes d reduce as predefined type id does.
func like(d typeDesc, id uint8) typeDesc {
	d.redux = id
	return d
}

// basicDesc describes predefined type id: one basic element, contiguous.
func basicDesc(id uint8, name string, size int, k kind) typeDesc {
	return typeDesc{size: size, kind: k, id: id, name: name, layout: layout{
		extent: size, trueUB: size, basic: id, redux: id, nbasic: 1,
		segs: []run{{off: 0, len: size, n: 1, basic: id}}, blocks: []run{{off: 0, len: size, n: 1}},
	}}
}

// pairDesc describes pair type id of MinLoc and MaxLoc: a value of the
// basic type value (size bytes) and an int32 index, laid out as C's
// struct of the two. As MPI defines it, its type map is the two basic
// elements and its size leaves the struct's padding out
// (MPI_DOUBLE_INT: 12 bytes of data in an extent of 16), so a pair with
// padding moves packed, as any type with gaps does.
func pairDesc(id uint8, name string, value uint8, size int) typeDesc {
	align := max(size, 4)
	index := align // the index follows the value, aligned to its 4 bytes
	d := typeDesc{size: size + 4, kind: kindPair, id: id, name: name, layout: layout{
		extent: (index + 4 + align - 1) / align * align, trueUB: index + 4, redux: id, nbasic: 2,
		segs: appendRun([]run{{off: 0, len: size, n: 1, basic: value}}, run{off: index, len: 4, n: 1, basic: 4}),
	}}
	if len(d.segs) == 1 {
		d.basic = value
	}
	d.finishBlocks()
	d.derived = d.packs
	return d
}

// Pair is a value and its index, the element of MinLoc and MaxLoc
// reductions (MPI_DOUBLE_INT and its kin).
type Pair[T int16 | int32 | int64 | float32 | float64] struct {
	Value T
	Index int32
}

// Elem is the element types a buffer may have: any comparable Go type,
// checked when used (comparable, so that generic code may compare
// elements, as it could when Elem listed the numbers). TypeOf takes the
// numeric types, the pairs of MinLoc and MaxLoc, and structs and arrays
// of fixed-size numbers; for any other type it returns an invalid
// datatype, with which every call fails saying why.
type Elem interface{ comparable }

// Numeric is the element types a typed buffer may have.
type Numeric interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// TypeOf returns the datatype of T. Go's int and uint map to the 64-bit
// types: gompi runs on 64-bit platforms only. A struct or array of
// fixed-size numbers maps to a committed derived type (see GoType); any
// other T to an invalid type that names what is wrong.
func TypeOf[T Elem]() Datatype {
	// Every point-to-point call asks, so Go's own types are told apart by
	// a type switch (a pointer converts to an interface without
	// allocating); named types such as time.Duration take reflection.
	switch any((*T)(nil)).(type) {
	case *uint8:
		return Byte
	case *float64:
		return Float64
	case *int, *int64:
		return Int64
	case *int32:
		return Int32
	case *float32:
		return Float32
	case *Pair[int16]:
		return Int16Int
	case *Pair[int32]:
		return Int32Int
	case *Pair[int64]:
		return Int64Int
	case *Pair[float32]:
		return Float32Int
	case *Pair[float64]:
		return Float64Int
	}
	return GoType(reflect.TypeFor[T]())
}

// typeOfKind is the datatype of a numeric type of kind k, if it is one.
func typeOfKind(k reflect.Kind) (Datatype, bool) {
	switch k {
	case reflect.Uint8:
		return Byte, true
	case reflect.Int8:
		return Int8, true
	case reflect.Int16:
		return Int16, true
	case reflect.Int32:
		return Int32, true
	case reflect.Int64, reflect.Int:
		return Int64, true
	case reflect.Uint16:
		return Uint16, true
	case reflect.Uint32:
		return Uint32, true
	case reflect.Uint64, reflect.Uint, reflect.Uintptr:
		return Uint64, true
	case reflect.Float32:
		return Float32, true
	case reflect.Float64:
		return Float64, true
	case reflect.Complex64:
		return Complex64, true
	case reflect.Complex128:
		return Complex128, true
	}
	return Datatype{}, false
}

// Bytes views a typed buffer as its bytes, without copying.
func Bytes[T Elem](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*int(unsafe.Sizeof(zero)))
}
