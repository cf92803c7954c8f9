package pmpi

import (
	"reflect"
	"unsafe"
)

// Datatype describes the elements of a buffer: the core sees every buffer
// as (bytes, count, datatype), as MPI's C interface does.
type Datatype struct {
	name string
	size int
}

// Name is the datatype's MPI-style name.
func (d Datatype) Name() string { return d.name }

// Size is the size of one element in bytes.
func (d Datatype) Size() int { return d.size }

// The predefined datatypes, one per Go numeric type.
var (
	Byte       = Datatype{"MPI_BYTE", 1}
	Int8       = Datatype{"MPI_INT8_T", 1}
	Int16      = Datatype{"MPI_INT16_T", 2}
	Int32      = Datatype{"MPI_INT32_T", 4}
	Int64      = Datatype{"MPI_INT64_T", 8}
	Uint16     = Datatype{"MPI_UINT16_T", 2}
	Uint32     = Datatype{"MPI_UINT32_T", 4}
	Uint64     = Datatype{"MPI_UINT64_T", 8}
	Float32    = Datatype{"MPI_FLOAT", 4}
	Float64    = Datatype{"MPI_DOUBLE", 8}
	Complex64  = Datatype{"MPI_C_FLOAT_COMPLEX", 8}
	Complex128 = Datatype{"MPI_C_DOUBLE_COMPLEX", 16}
)

// Numeric is the element types a typed buffer may have.
type Numeric interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// TypeOf returns the datatype of T. Go's int and uint map to the 64-bit
// types: gompi runs on 64-bit platforms only.
func TypeOf[T Numeric]() Datatype {
	switch reflect.TypeFor[T]().Kind() {
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
func Bytes[T Numeric](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*int(unsafe.Sizeof(zero)))
}
