package pmpi

import (
	"encoding/binary"
	"math/big"
)

// Fortran's quadruple precision, which Go lacks: gfortran's REAL(16) and
// COMPLEX(16) on x86-64 hold IEEE binary128 (C's __float128), the C
// library's MPI_REAL16 and MPI_COMPLEX32. They reduce in software, each
// operation rounded once to nearest even, as libquadmath's are, and
// external32 carries them as they are, big-endian.
var (
	Float128   = Datatype{&predefined[idFloat128]}
	Complex256 = Datatype{&predefined[idComplex256]}
)

// f128 is a binary128 value as two words, its low one first in memory:
// the sign, a 15-bit exponent biased by 16383 (x87's) and a 112-bit
// fraction whose leading 1 is implied.
type f128 struct{ lo, hi uint64 }

const (
	f128Frac  = 1<<48 - 1 // the fraction's bits in the high word
	f128Quiet = 1 << 47   // a NaN's quiet bit
	f128Sign  = 1 << 63
)

// f128Default is the NaN of an invalid operation: negative and quiet, as
// x86-64's soft-float routines give it.
var f128Default = f128{hi: f128Sign | x87MaxExp<<48 | f128Quiet}

func loadF128(b []byte) f128 {
	return f128{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
}

func (x f128) store(b []byte) {
	binary.LittleEndian.PutUint64(b, x.lo)
	binary.LittleEndian.PutUint64(b[8:], x.hi)
}

func (x f128) exp() int    { return int(x.hi>>48) & x87MaxExp }
func (x f128) neg() bool   { return x.hi&f128Sign != 0 }
func (x f128) isNaN() bool { return x.exp() == x87MaxExp && (x.hi&f128Frac != 0 || x.lo != 0) }
func (x f128) isInf() bool { return x.exp() == x87MaxExp && x.hi&f128Frac == 0 && x.lo == 0 }
func (x f128) quiet() f128 { x.hi |= f128Quiet; return x }

func (x f128) isZero() bool { return x.hi&^f128Sign == 0 && x.lo == 0 }

// big sets f to x, finite, exactly.
func (x f128) big(f *big.Float) *big.Float {
	var m, lo big.Int
	m.SetUint64(x.hi&f128Frac).Lsh(&m, 64).Or(&m, lo.SetUint64(x.lo))
	e := x.exp()
	if e == 0 {
		e = 1 // denormal: no leading 1, the smallest exponent
	} else {
		m.SetBit(&m, 112, 1)
	}
	f.SetPrec(113).SetInt(&m)
	f.SetMantExp(f, e-x87Bias-112)
	if x.neg() {
		f.Neg(f)
	}
	return f
}

// f128Of rounds f, finite, to binary128: to infinity above the range, to
// a denormal or zero below it.
func f128Of(f *big.Float) f128 {
	var s uint64
	if f.Signbit() {
		s = f128Sign
	}
	hi, lo, be, inf := roundWide(f, 113)
	if inf {
		return f128{hi: s | x87MaxExp<<48}
	}
	return f128{lo: lo, hi: s | uint64(be)<<48 | hi&f128Frac}
}

// f128Add is a+b, or a-b with sub. Rounding the exact sum to 113 bits is
// the only rounding: a sum below the normal range is exact.
func f128Add(a, b f128, sub bool) f128 {
	if sub {
		b.hi ^= f128Sign
	}
	switch {
	case a.isNaN():
		return a.quiet()
	case b.isNaN():
		return b.quiet()
	case a.isInf() && b.isInf() && a.neg() != b.neg():
		return f128Default
	case a.isInf():
		return a
	case b.isInf():
		return b
	}
	var x, y big.Float
	a.big(&x)
	b.big(&y)
	x.SetMode(big.ToNearestEven)
	r := f128Of(x.Add(&x, &y))
	if r.isZero() && a.neg() != b.neg() {
		r.hi = 0 // x + -x is +0 when rounding to nearest
	}
	return r
}

func f128Mul(a, b f128) f128 {
	sign := (a.hi ^ b.hi) & f128Sign
	switch {
	case a.isNaN():
		return a.quiet()
	case b.isNaN():
		return b.quiet()
	case (a.isInf() && b.isZero()) || (b.isInf() && a.isZero()):
		return f128Default
	case a.isInf() || b.isInf():
		return f128{hi: sign | x87MaxExp<<48}
	}
	var x, y big.Float
	a.big(&x)
	b.big(&y)
	x.SetPrec(226) // exact: f128Of rounds once
	r := f128Of(x.Mul(&x, &y))
	r.hi = r.hi&^f128Sign | sign
	return r
}

// f128Less orders a and b, neither a NaN, as numbers, with -0 below +0
// (as Go's min and max take them): by their bits, made unsigned.
func f128Less(a, b f128) bool {
	key := func(x f128) (uint64, uint64) {
		if x.neg() {
			return ^x.hi, ^x.lo
		}
		return x.hi | f128Sign, x.lo
	}
	ah, al := key(a)
	bh, bl := key(b)
	return ah < bh || ah == bh && al < bl
}

// float128Op is a predefined operation on Float128: Sum, Prod, Min and
// Max; Min and Max give a NaN if either operand is one, as Go's min and
// max do for float64.
func float128Op(c opCode) func(in, inout []byte) {
	var f func(a, b f128) f128
	switch c {
	case opSum:
		f = func(a, b f128) f128 { return f128Add(a, b, false) }
	case opProd:
		f = f128Mul
	case opMin, opMax:
		max := c == opMax
		f = func(a, b f128) f128 {
			switch {
			case a.isNaN():
				return a.quiet()
			case b.isNaN():
				return b.quiet()
			case f128Less(a, b) != max:
				return a
			}
			return b
		}
	default:
		return nil
	}
	return func(in, inout []byte) {
		for i := 0; i+16 <= len(inout) && i+16 <= len(in); i += 16 {
			f(loadF128(in[i:]), loadF128(inout[i:])).store(inout[i:])
		}
	}
}

// complex256Op is Sum or Prod on Complex256: the product (a+bi)(c+di) is
// (ac-bd) + (ad+bc)i, each step rounded, as C computes it for finite
// values.
func complex256Op(c opCode) func(in, inout []byte) {
	var f func(a, b, c, d f128) (f128, f128)
	switch c {
	case opSum:
		f = func(a, b, c, d f128) (f128, f128) { return f128Add(a, c, false), f128Add(b, d, false) }
	case opProd:
		f = func(a, b, c, d f128) (f128, f128) {
			return f128Add(f128Mul(a, c), f128Mul(b, d), true), f128Add(f128Mul(a, d), f128Mul(b, c), false)
		}
	default:
		return nil
	}
	return func(in, inout []byte) {
		for i := 0; i+32 <= len(inout) && i+32 <= len(in); i += 32 {
			re, im := f(loadF128(in[i:]), loadF128(in[i+16:]), loadF128(inout[i:]), loadF128(inout[i+16:]))
			re.store(inout[i:])
			im.store(inout[i+16:])
		}
	}
}
