package pmpi

import "math"

// Half precision, which Go lacks: IEEE binary16 (C's _Float16), the C
// library's MPI_REAL2 and MPI_COMPLEX4 (a pair of them). Two halves add
// and multiply exactly in a float64, so each operation is that, rounded
// once to nearest even; external32 carries them big-endian.
var (
	Float16   = Datatype{&predefined[idFloat16]}
	Complex32 = Datatype{&predefined[idComplex32]}
)

const (
	halfFrac  = 1<<10 - 1
	halfExp   = 0x1f << 10
	halfSign  = 1 << 15
	halfQuiet = 1 << 9
)

// halfValue is h as a float64, exactly; a NaN keeps its sign and payload.
func halfValue(h uint16) float64 {
	sign := 1.0
	if h&halfSign != 0 {
		sign = -1
	}
	f := int(h & halfFrac)
	switch e := int(h&halfExp) >> 10; e {
	case 0:
		return sign * math.Ldexp(float64(f), -24)
	case 0x1f:
		if f == 0 {
			return math.Inf(int(sign))
		}
		return math.Float64frombits(uint64(h&halfSign)<<48 | 0x7ff<<52 | uint64(f)<<42)
	default:
		return sign * math.Ldexp(float64(f|1<<10), e-25)
	}
}

// halfOf rounds v to binary16, to nearest even: to infinity from 65520
// up, to a denormal or zero below 2^-14. A NaN stays one, quiet, with the
// top of its payload.
func halfOf(v float64) uint16 {
	var s uint16
	if math.Signbit(v) {
		s = halfSign
	}
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return s | halfExp | halfQuiet | uint16(math.Float64bits(v)>>42)&halfFrac
	case a >= 65520: // halfway from the largest half, 65504, to 2^16
		return s | halfExp
	case a == 0:
		return s
	}
	_, e := math.Frexp(a)   // a = m * 2^e, 0.5 <= m < 1
	q := max(e-1, -14) - 10 // the exponent of a's last place
	n := int(math.RoundToEven(math.Ldexp(a, -q)))
	if n < 1<<10 { // a denormal (q is -24), or zero
		return s | uint16(n)
	}
	if n == 1<<11 { // rounding carried into the next binade
		n, q = 1<<10, q+1
	}
	return s | uint16(q+25)<<10 | uint16(n-1<<10)
}

// halfOp is a predefined operation on Float16: Sum, Prod, Min and Max;
// Min and Max give a NaN if either operand is one, as Go's min and max do
// for float64.
func halfOp(c opCode) func(in, inout []byte) {
	var f func(a, b float64) float64
	switch c {
	case opSum:
		f = func(a, b float64) float64 { return a + b }
	case opProd:
		f = func(a, b float64) float64 { return a * b }
	case opMin:
		f = func(a, b float64) float64 { return min(a, b) }
	case opMax:
		f = func(a, b float64) float64 { return max(a, b) }
	default:
		return nil
	}
	return func(in, inout []byte) {
		a, b := operands[uint16](in, inout)
		for i := range b {
			b[i] = halfOf(f(halfValue(a[i]), halfValue(b[i])))
		}
	}
}

// complex32Op is Sum or Prod on Complex32. A product's parts, ac-bd and
// ad+bc, are each rounded once: the products are exact in a float64, and
// their sum is rounded to odd there, which a second rounding to 11 bits
// cannot tell from the exact sum.
func complex32Op(c opCode) func(in, inout []byte) {
	var f func(a, b, c, d float64) (float64, float64)
	switch c {
	case opSum:
		f = func(a, b, c, d float64) (float64, float64) { return a + c, b + d }
	case opProd:
		f = func(a, b, c, d float64) (float64, float64) {
			return sumToOdd(a*c, -(b * d)), sumToOdd(a*d, b*c)
		}
	default:
		return nil
	}
	return func(in, inout []byte) {
		a, b := operands[[2]uint16](in, inout)
		for i := range b {
			re, im := f(halfValue(a[i][0]), halfValue(a[i][1]), halfValue(b[i][0]), halfValue(b[i][1]))
			b[i] = [2]uint16{halfOf(re), halfOf(im)}
		}
	}
}

// sumToOdd is p+q rounded to odd: the float64 nearest it, or when that
// is inexact and even, its neighbour on the sum's side (Knuth's TwoSum
// gives the error).
func sumToOdd(p, q float64) float64 {
	s := p + q
	z := s - p
	e := (p - (s - z)) + (q - z)
	if e != 0 && math.Float64bits(s)&1 == 0 && !math.IsInf(s, 0) {
		s = math.Nextafter(s, math.Copysign(math.Inf(1), e))
	}
	return s
}
