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
//
// f is handed any whole number of the operation's units, whatever the
// algorithm: large reductions go in rounds and pieces, so a unit of
// several elements (an affine map as a pair, a running mean and variance
// as a triple) must be declared with Record, or f may be handed a slice
// that starts or ends inside one.
func NewOp[T Elem](f func(in, inout []T), commutative bool, opts ...OpOption) (Op, error) {
	cfg := opConfig{record: 1}
	for _, o := range opts {
		o.applyOp(&cfg)
	}
	op, err := api().OpCreate(func(in, inout []byte, count int, _ pmpi.Datatype) {
		f(elems[T](in, count), elems[T](inout, count))
	}, commutative)
	if err != nil {
		return op, err
	}
	return op.For(pmpi.TypeOf[T](), cfg.record)
}

// An OpOption changes how NewOp makes an operation: Record is one.
type OpOption interface{ applyOp(*opConfig) }

type opConfig struct {
	record int
}

// Record, passed to NewOp, says that the operation combines records of
// that many consecutive elements: the function is handed whole records
// only, and a reduction whose count is not a whole number of records
// fails with ErrCount. It must be at least 1.
type Record int

func (n Record) applyOp(c *opConfig) { c.record = int(n) }

func elems[T Elem](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
