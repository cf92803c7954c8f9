package pmpi

import (
	"encoding/binary"
	"math/big"
	"runtime"
)

// C's long double on x86-64 Linux: the x87 80-bit extended format (a
// 64-bit significand with its integer bit, a 15-bit exponent biased by
// 16383 and a sign) in the low 10 bytes of 16. Go has no such type, so
// the C library's MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX and
// MPI_LONG_DOUBLE_INT are the types below, which reduce in software:
// each operation is rounded once to the 64-bit significand (fewer for a
// denormal), to nearest even, as the x87 unit does at its default
// precision. external32 gives a long double 16 bytes, IEEE's binary128.
var (
	CLongDouble        = Datatype{&predefined[idLongDouble]}
	CLongDoubleComplex = Datatype{&predefined[idLongDoubleComplex]}
	CLongDoubleInt     = Datatype{&predefined[idLongDoubleInt]}
)

// LongDoubleX87 reports whether C's long double is the x87 format that
// CLongDouble and its kin hold: on amd64. Elsewhere they must not stand
// for it.
const LongDoubleX87 = runtime.GOARCH == "amd64"

const (
	x87Bias   = 16383
	x87MaxExp = 0x7fff
	x87Quiet  = 1 << 62 // a NaN's quiet bit
	x87Int    = 1 << 63 // the explicit integer bit
)

// x87 is an extended value: significand and sign-and-exponent.
type x87 struct {
	m  uint64
	se uint16
}

func loadX87(b []byte) x87 {
	return x87{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint16(b[8:])}
}

// store writes x into the 16 bytes of b, the 6 of padding zeroed.
func (x x87) store(b []byte) {
	binary.LittleEndian.PutUint64(b, x.m)
	binary.LittleEndian.PutUint16(b[8:], x.se)
	clear(b[10:16])
}

func (x x87) exp() int    { return int(x.se & x87MaxExp) }
func (x x87) neg() bool   { return x.se&0x8000 != 0 }
func (x x87) isNaN() bool { return x.exp() == x87MaxExp && x.m<<1 != 0 }
func (x x87) isInf() bool { return x.exp() == x87MaxExp && x.m<<1 == 0 }

// indefinite is the NaN the x87 unit gives for an invalid operation.
var indefinite = x87{m: x87Int | x87Quiet, se: 0xffff}

// quiet is x, a NaN, made quiet.
func (x x87) quiet() x87 { x.m |= x87Int | x87Quiet; return x }

// big sets f to x, finite, exactly.
func (x x87) big(f *big.Float) *big.Float {
	f.SetPrec(64).SetUint64(x.m)
	e := x.exp()
	if e == 0 {
		e = 1 // denormal: no integer bit, the smallest exponent
	}
	f.SetMantExp(f, e-x87Bias-63)
	if x.neg() {
		f.Neg(f)
	}
	return f
}

// x87Of rounds f, finite, to the x87 format: to 64 bits of significand,
// to infinity above the range, to a denormal or zero below it.
func x87Of(f *big.Float) x87 {
	var se uint16
	if f.Signbit() {
		se = 0x8000
	}
	_, m, be, inf := roundWide(f, 64)
	if inf {
		return x87{m: x87Int, se: se | x87MaxExp}
	}
	return x87{m: m, se: se | uint16(be)}
}

// cmp compares a and b, neither a NaN: -1, 0 or 1.
func (a x87) cmp(b x87) int {
	var x, y big.Float
	if a.isInf() {
		x.SetInf(a.neg())
	} else {
		a.big(&x)
	}
	if b.isInf() {
		y.SetInf(b.neg())
	} else {
		b.big(&y)
	}
	return x.Cmp(&y)
}

func (x x87) isZero() bool { return x.m == 0 && x.exp() != x87MaxExp }

func (x x87) signed(neg bool) x87 {
	x.se &= x87MaxExp
	if neg {
		x.se |= 0x8000
	}
	return x
}

// x87s is the arithmetic of CLongDouble.
var x87s = wideFormat[x87]{load: loadX87, prec: 64, of: x87Of, invalid: indefinite, inf: x87{m: x87Int, se: x87MaxExp}}

// longDoubleIntOp is MinLoc or MaxLoc on CLongDoubleInt's packed
// records: the value's 16 bytes, then the int32 index.
func longDoubleIntOp(c opCode) func(in, inout []byte) {
	want := -1
	switch c {
	case opMinLoc:
	case opMaxLoc:
		want = 1
	default:
		return nil
	}
	const rec = 20
	return func(in, inout []byte) {
		for i := 0; i+rec <= len(inout) && i+rec <= len(in); i += rec {
			a, b := loadX87(in[i:]), loadX87(inout[i:])
			if a.isNaN() || b.isNaN() {
				continue // no order: the kept record stays
			}
			switch a.cmp(b) {
			case want:
				copy(inout[i:i+rec], in[i:i+rec])
			case 0:
				ai := int32(binary.LittleEndian.Uint32(in[i+16:]))
				bi := int32(binary.LittleEndian.Uint32(inout[i+16:]))
				binary.LittleEndian.PutUint32(inout[i+16:], uint32(min(ai, bi)))
			}
		}
	}
}

// x87External converts between a long double in memory and external32's
// binary128, big-endian: exact toward binary128, rounded to nearest even
// back (a value this library packed comes back exactly).
func x87External(ext, mem []byte, toExt bool) {
	if toExt {
		x := loadX87(mem)
		hi := uint64(x.se)<<48 | (x.m&^x87Int)>>15
		lo := x.m << 49
		binary.BigEndian.PutUint64(ext, hi)
		binary.BigEndian.PutUint64(ext[8:], lo)
		return
	}
	hi, lo := binary.BigEndian.Uint64(ext), binary.BigEndian.Uint64(ext[8:])
	se := uint16(hi >> 48)
	frac := hi<<16 | lo>>48       // the top 64 of the 112 fraction bits
	rest := lo << 16              // the 48 below them
	m, dropped := frac>>1, frac&1 // 63 bits of fraction, then the first dropped bit
	if dropped != 0 && (rest != 0 || m&1 != 0) {
		m++
	}
	e := se & x87MaxExp
	if m>>63 != 0 { // the fraction carried into the integer bit
		m, e = 0, e+1
	}
	if e != 0 { // normal, infinite or NaN: the integer bit is set
		m |= x87Int
	}
	x87{m: m, se: se&0x8000 | e}.store(mem)
}
