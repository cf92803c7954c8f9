package colltest

import "encoding/binary"

// SumInt64 adds little-endian int64 elements.
type SumInt64 struct{}

func (SumInt64) Reduce(in, inout []byte) {
	for i := 0; i+8 <= len(in); i += 8 {
		v := int64(binary.LittleEndian.Uint64(in[i:])) + int64(binary.LittleEndian.Uint64(inout[i:]))
		binary.LittleEndian.PutUint64(inout[i:], uint64(v))
	}
}
func (SumInt64) Commutative() bool { return true }
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
