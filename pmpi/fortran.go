package pmpi

import "math/bits"

// Fortran's predefined types that no Go type describes, for the C
// library's MPI_LOGICAL and its sized kinds, gfortran's INTEGER(16), and
// the pairs whose index has the value's type (MPI_2REAL,
// MPI_2DOUBLE_PRECISION, and MPI_2INTEGER when INTEGER has 8 bytes; of 4
// bytes it is Int32Int).
//
// A logical is false when zero and true otherwise, as every Fortran
// compiler stores them (gfortran's .TRUE. is 1, Intel's -1). MPI_LAND,
// MPI_LOR and MPI_LXOR return one of their operands, or zero, so a
// result holds the program's own .TRUE.; no other operation is defined.
var (
	Logical1       = Datatype{&predefined[idLogical1]}
	Logical2       = Datatype{&predefined[idLogical2]}
	Logical4       = Datatype{&predefined[idLogical4]}
	Logical8       = Datatype{&predefined[idLogical8]}
	Logical16      = Datatype{&predefined[idLogical16]}
	Int64Int64     = Datatype{&predefined[idInt64Int64]}
	Float32Float32 = Datatype{&predefined[idFloat32Float32]}
	Float64Float64 = Datatype{&predefined[idFloat64Float64]}
	// Int128 is a 16-byte two's-complement integer, its low word first
	// (MPI_INTEGER16): it sums and multiplies modulo 2^128, as gfortran's
	// INTEGER(16) does.
	Int128 = Datatype{&predefined[idInt128]}
)

// twinDesc describes pair type id of MinLoc and MaxLoc whose value and
// index are both the basic type value, of size bytes: two of them back
// to back, as a contiguous type of two would be.
func twinDesc(id uint8, name string, value uint8, size int) typeDesc {
	d := typeDesc{size: 2 * size, kind: kindPair, id: id, name: name, layout: layout{
		extent: 2 * size, trueUB: 2 * size, basic: value, redux: id, nbasic: 2,
		segs: []run{{off: 0, len: 2 * size, n: 1, basic: value}},
	}}
	d.finishBlocks()
	return d
}

// logicalOp is MPI_LAND, MPI_LOR or MPI_LXOR on logicals of T's size;
// a 16-byte one is two words, false when both are zero.
func logicalOp[T int8 | int16 | int32 | int64 | word128](c opCode) func(in, inout []byte) {
	var f T // false
	switch c {
	case opLand:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				if a[i] == f {
					b[i] = f
				}
			}
		}
	case opLor:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				if a[i] != f {
					b[i] = a[i]
				}
			}
		}
	case opLxor:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				switch {
				case a[i] != f && b[i] != f:
					b[i] = f
				case a[i] != f:
					b[i] = a[i]
				}
			}
		}
	}
	return nil
}

// twinOp is MinLoc or MaxLoc on pairs of two T: the smaller (larger)
// value wins; on a tie the smaller index.
func twinOp[T int64 | float32 | float64](c opCode) func(in, inout []byte) {
	better := locBetter[T](c)
	if better == nil {
		return nil
	}
	return func(in, inout []byte) {
		a, b := operands[[2]T](in, inout)
		for i := range b {
			switch {
			case better(a[i][0], b[i][0]):
				b[i] = a[i]
			case a[i][0] == b[i][0]:
				b[i][1] = min(a[i][1], b[i][1])
			}
		}
	}
}

// word128 is a 16-byte element as two words, the low one first.
type word128 = [2]uint64

// int128Op is a predefined operation on Int128 elements, as intOp is on
// Go's integers.
func int128Op(c opCode) func(in, inout []byte) {
	var f func(a, b word128) word128
	switch c {
	case opSum:
		f = func(a, b word128) word128 {
			lo, carry := bits.Add64(a[0], b[0], 0)
			hi, _ := bits.Add64(a[1], b[1], carry)
			return word128{lo, hi}
		}
	case opProd:
		f = func(a, b word128) word128 {
			hi, lo := bits.Mul64(a[0], b[0])
			return word128{lo, hi + a[0]*b[1] + a[1]*b[0]}
		}
	case opMin:
		f = func(a, b word128) word128 {
			if less128(a, b) {
				return a
			}
			return b
		}
	case opMax:
		f = func(a, b word128) word128 {
			if less128(b, a) {
				return a
			}
			return b
		}
	case opLand:
		f = logical128(func(x, y bool) bool { return x && y })
	case opLor:
		f = logical128(func(x, y bool) bool { return x || y })
	case opLxor:
		f = logical128(func(x, y bool) bool { return x != y })
	case opBand:
		f = func(a, b word128) word128 { return word128{a[0] & b[0], a[1] & b[1]} }
	case opBor:
		f = func(a, b word128) word128 { return word128{a[0] | b[0], a[1] | b[1]} }
	case opBxor:
		f = func(a, b word128) word128 { return word128{a[0] ^ b[0], a[1] ^ b[1]} }
	default:
		return nil
	}
	return func(in, inout []byte) {
		a, b := operands[word128](in, inout)
		for i := range b {
			b[i] = f(a[i], b[i])
		}
	}
}

// logical128 is a logical operation on Int128 values, as on the other
// integers: 1 when join holds of their truths, else 0.
func logical128(join func(x, y bool) bool) func(a, b word128) word128 {
	return func(a, b word128) word128 {
		if join(a != word128{}, b != word128{}) {
			return word128{1, 0}
		}
		return word128{}
	}
}

// less128 orders two Int128 values: by the signed high words, then the
// low words unsigned.
func less128(a, b word128) bool {
	if a[1] != b[1] {
		return int64(a[1]) < int64(b[1])
	}
	return a[0] < b[0]
}
