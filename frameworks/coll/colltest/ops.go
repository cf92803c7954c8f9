package colltest

import (
	"encoding/binary"

	"github.com/gompi/gompi/frameworks/coll"
)

// SumInt64 adds little-endian int64 elements.
type SumInt64 struct{}

func (SumInt64) Reduce(in, inout []byte) {
	for i := 0; i+8 <= len(in); i += 8 {
		v := int64(binary.LittleEndian.Uint64(in[i:])) + int64(binary.LittleEndian.Uint64(inout[i:]))
		binary.LittleEndian.PutUint64(inout[i:], uint64(v))
	}
}
func (SumInt64) Commutative() bool { return true }
func (SumInt64) Exact() bool       { return true } // integer sums wrap alike in any grouping
func (SumInt64) ElemSize() int     { return 8 }

// Affine composes affine maps x -> a*x + b over int64, each element an
// (a, b) pair of 16 bytes: associative but not commutative, so a result
// shows whether the operands were combined in rank order. Reduce sets
// inout = in ⊕ inout, as MPI orders the operands, where
// (a1,b1) ⊕ (a2,b2) is the map x -> a2*(a1*x+b1)+b2, "first in, then inout".
type Affine struct{}

func (Affine) Reduce(in, inout []byte) {
	for i := 0; i+16 <= len(in); i += 16 {
		a1, b1 := int64(binary.LittleEndian.Uint64(in[i:])), int64(binary.LittleEndian.Uint64(in[i+8:]))
		a2, b2 := int64(binary.LittleEndian.Uint64(inout[i:])), int64(binary.LittleEndian.Uint64(inout[i+8:]))
		binary.LittleEndian.PutUint64(inout[i:], uint64(a2*a1))
		binary.LittleEndian.PutUint64(inout[i+8:], uint64(a2*b1+b2))
	}
}
func (Affine) Commutative() bool { return false }
func (Affine) ElemSize() int     { return 16 }

// MatMul multiplies 2x2 matrices of little-endian int32 (row-major, 16
// bytes an element), wrapping: associative, not commutative. Reduce sets
// inout = in × inout, the lower ranks' operand on the left.
type MatMul struct{}

func (MatMul) Reduce(in, inout []byte) {
	for i := 0; i+16 <= len(in); i += 16 {
		var a, b [4]int32
		for j := range 4 {
			a[j] = int32(binary.LittleEndian.Uint32(in[i+4*j:]))
			b[j] = int32(binary.LittleEndian.Uint32(inout[i+4*j:]))
		}
		c := [4]int32{
			a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
			a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
		}
		for j := range 4 {
			binary.LittleEndian.PutUint32(inout[i+4*j:], uint32(c[j]))
		}
	}
}
func (MatMul) Commutative() bool { return false }
func (MatMul) ElemSize() int     { return 16 }

// OpCase is a reduction operation with the inputs to reduce with it, for
// tables of reduction tests.
type OpCase struct {
	Name  string
	Op    coll.Op
	Input func(seed, rank, elems int) []byte // rank's input of elems elements
}

// The reduction cases the coll components' tests draw on: a commutative
// sum, and two operations whose results show the operands' order.
var (
	SumCase    = OpCase{"sum", SumInt64{}, func(seed, rank, elems int) []byte { return Data(seed, rank, elems*8) }}
	AffineCase = OpCase{"affine", Affine{}, AffineData}
	MatMulCase = OpCase{"matmul", MatMul{}, func(seed, rank, elems int) []byte { return Data(seed, rank, elems*16) }}
)
