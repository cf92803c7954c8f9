package mpi

import (
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// Op is a reduction operation.
type Op = pmpi.Op

// The predefined operations. Sum and Prod take numbers; Min and Max
// integers and floats; the logical and bitwise ones integers; MinLoc and
// MaxLoc Pairs.
var (
	Sum    = pmpi.OpSum
	Prod   = pmpi.OpProd
	Min    = pmpi.OpMin
	Max    = pmpi.OpMax
	Land   = pmpi.OpLand
	Lor    = pmpi.OpLor
	Lxor   = pmpi.OpLxor
	Band   = pmpi.OpBand
	Bor    = pmpi.OpBor
	Bxor   = pmpi.OpBxor
	MinLoc = pmpi.OpMinLoc
	MaxLoc = pmpi.OpMaxLoc
)

// NewOp makes an operation on elements of T from f, which sets
// inout[i] = in[i] ⊕ inout[i], in holding the operand of the lower ranks.
// A non-commutative operation is applied in rank order. Using it on
// another element type fails with ErrOp.
func NewOp[T Elem](f func(in, inout []T), commutative bool) (Op, error) {
	op, err := api().OpCreate(func(in, inout []byte, count int, _ pmpi.Datatype) {
		f(elems[T](in, count), elems[T](inout, count))
	}, commutative)
	return op.For(pmpi.TypeOf[T]()), err
}

func elems[T Elem](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
