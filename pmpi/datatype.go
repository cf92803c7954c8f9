package pmpi

import (
	"math/bits"
	"reflect"
	"unsafe"
)

// Datatype describes the elements of a buffer: the core sees every buffer
// as (bytes, count, datatype), as MPI's C interface does. It is a one-byte
// handle into a table, as C's integer handles are: every point-to-point
// call passes one through several layers, and a handle travels in a
// register where a descriptor of four words went through the stack.
type Datatype struct {
	id uint8 // index into predefined; 0 is the zero, invalid, datatype
}

// typeDesc is what a Datatype stands for.
type typeDesc struct {
	name string
	size int
	kind kind
}

// kind is what reductions may do with a datatype's elements.
type kind uint8

const (
	kindInt     kind = iota + 1 // signed and unsigned integers, Go's byte among them
	kindFloat                   // float32, float64
	kindComplex                 // complex64, complex128
	kindPair                    // a value and an int32 index: MinLoc and MaxLoc
)

// Name is the datatype's MPI-style name.
func (d Datatype) Name() string { return d.desc().name }

// Size is the size of one element in bytes.
func (d Datatype) Size() int { return d.desc().size }

func (d Datatype) kind() kind { return d.desc().kind }

// desc is d's descriptor; only this package makes ids, all of them in
// predefined.
func (d Datatype) desc() *typeDesc { return &predefined[d.id] }

// count is how many whole elements n bytes hold: a shift for the
// power-of-two sizes of the predefined types, since a division costs
// more than the rest of a receive's status.
func (d Datatype) count(n int) int {
	size := d.Size()
	if size&(size-1) == 0 {
		return n >> bits.TrailingZeros(uint(size))
	}
	return n / size
}

// The predefined datatypes, one per Go numeric type.
var (
	Byte       = Datatype{1}
	Int8       = Datatype{2}
	Int16      = Datatype{3}
	Int32      = Datatype{4}
	Int64      = Datatype{5}
	Uint16     = Datatype{6}
	Uint32     = Datatype{7}
	Uint64     = Datatype{8}
	Float32    = Datatype{9}
	Float64    = Datatype{10}
	Complex64  = Datatype{11}
	Complex128 = Datatype{12}

	// The value-index pairs of MinLoc and MaxLoc, laid out as C's structs.
	Float32Int = Datatype{13}
	Float64Int = Datatype{14}
	Int64Int   = Datatype{15}
	Int32Int   = Datatype{16}
	Int16Int   = Datatype{17}
)

// predefined describes the predefined datatypes by id.
var predefined = [...]typeDesc{
	{},
	{"MPI_BYTE", 1, kindInt},
	{"MPI_INT8_T", 1, kindInt},
	{"MPI_INT16_T", 2, kindInt},
	{"MPI_INT32_T", 4, kindInt},
	{"MPI_INT64_T", 8, kindInt},
	{"MPI_UINT16_T", 2, kindInt},
	{"MPI_UINT32_T", 4, kindInt},
	{"MPI_UINT64_T", 8, kindInt},
	{"MPI_FLOAT", 4, kindFloat},
	{"MPI_DOUBLE", 8, kindFloat},
	{"MPI_C_FLOAT_COMPLEX", 8, kindComplex},
	{"MPI_C_DOUBLE_COMPLEX", 16, kindComplex},
	{"MPI_FLOAT_INT", 8, kindPair},
	{"MPI_DOUBLE_INT", 16, kindPair},
	{"MPI_LONG_INT", 16, kindPair},
	{"MPI_2INT", 8, kindPair},
	{"MPI_SHORT_INT", 8, kindPair},
}

// Pair is a value and its index, the element of MinLoc and MaxLoc
// reductions (MPI_DOUBLE_INT and its kin).
type Pair[T int16 | int32 | int64 | float32 | float64] struct {
	Value T
	Index int32
}

// Elem is the element types a buffer may have: the numeric types and the
// pairs of MinLoc and MaxLoc.
type Elem interface {
	Numeric | Pair[int16] | Pair[int32] | Pair[int64] | Pair[float32] | Pair[float64]
}

// Numeric is the element types a typed buffer may have.
type Numeric interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// TypeOf returns the datatype of T. Go's int and uint map to the 64-bit
// types: gompi runs on 64-bit platforms only.
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
	return typeOfKind(reflect.TypeFor[T]().Kind())
}

// typeOfKind is the datatype of a numeric type of kind k.
func typeOfKind(k reflect.Kind) Datatype {
	switch k {
	case reflect.Uint8:
		return Byte
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Int32:
		return Int32
	case reflect.Int64, reflect.Int:
		return Int64
	case reflect.Uint16:
		return Uint16
	case reflect.Uint32:
		return Uint32
	case reflect.Uint64, reflect.Uint:
		return Uint64
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Complex64:
		return Complex64
	default:
		return Complex128
	}
}

// Bytes views a typed buffer as its bytes, without copying.
func Bytes[T Elem](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*int(unsafe.Sizeof(zero)))
}
