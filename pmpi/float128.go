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

func (x f128) signed(neg bool) f128 {
	x.hi &^= f128Sign
	if neg {
		x.hi |= f128Sign
	}
	return x
}

// f128s is the arithmetic of Float128.
var f128s = wideFormat[f128]{load: loadF128, prec: 113, of: f128Of, invalid: f128Default, inf: f128{hi: x87MaxExp << 48}}

// cmp orders a and b, neither a NaN, as numbers, with -0 below +0 (as
// Go's min and max take them): by their bits, made unsigned.
func (a f128) cmp(b f128) int {
	key := func(x f128) (uint64, uint64) {
		if x.neg() {
			return ^x.hi, ^x.lo
		}
		return x.hi | f128Sign, x.lo
	}
	ah, al := key(a)
	bh, bl := key(b)
	switch {
	case ah < bh || ah == bh && al < bl:
		return -1
	case ah == bh && al == bl:
		return 0
	}
	return 1
}
