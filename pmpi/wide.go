package pmpi

import "math/big"

// wide is a 16-byte floating-point value that Go lacks, reduced in
// software: x87's extended (CLongDouble, longdouble.go) or IEEE binary128
// (Float128, float128.go).
type wide[T any] interface {
	isNaN() bool
	isInf() bool
	isZero() bool
	neg() bool
	signed(neg bool) T // the value with this sign
	quiet() T          // a NaN made quiet
	cmp(b T) int       // -1, 0 or 1; neither a NaN
	big(f *big.Float) *big.Float
	store(b []byte)
}

// wideFormat is the arithmetic of a wide type: its values' significand
// bits, the rounding to it, and its special values. A sum is rounded
// once to prec bits (exact where the result falls below the normal
// range, where both formats' quantum is every value's); a product is
// made exactly and rounded once.
type wideFormat[T wide[T]] struct {
	load    func(b []byte) T
	prec    uint
	of      func(f *big.Float) T // rounds to the format
	invalid T                    // the NaN of an invalid operation
	inf     T                    // +infinity
}

// add is a+b, or a-b with sub.
func (w wideFormat[T]) add(a, b T, sub bool) T {
	if sub {
		b = b.signed(!b.neg())
	}
	switch {
	case a.isNaN():
		return a.quiet()
	case b.isNaN():
		return b.quiet()
	case a.isInf() && b.isInf() && a.neg() != b.neg():
		return w.invalid
	case a.isInf():
		return a
	case b.isInf():
		return b
	}
	var x, y big.Float
	a.big(&x)
	b.big(&y)
	x.SetPrec(w.prec).SetMode(big.ToNearestEven)
	r := w.of(x.Add(&x, &y))
	if r.isZero() && a.neg() != b.neg() {
		r = r.signed(false) // x + -x is +0 when rounding to nearest
	}
	return r
}

func (w wideFormat[T]) mul(a, b T) T {
	neg := a.neg() != b.neg()
	switch {
	case a.isNaN():
		return a.quiet()
	case b.isNaN():
		return b.quiet()
	case a.isInf() && b.isZero() || b.isInf() && a.isZero():
		return w.invalid
	case a.isInf() || b.isInf():
		return w.inf.signed(neg)
	}
	var x, y big.Float
	a.big(&x)
	b.big(&y)
	x.SetPrec(2 * w.prec) // exact: of rounds once
	return w.of(x.Mul(&x, &y)).signed(neg)
}

// wideOp is a predefined operation on a wide type: Sum, Prod, Min and
// Max; Min and Max give a NaN if either operand is one, as Go's min and
// max do for float64.
func wideOp[T wide[T]](c opCode, w wideFormat[T]) func(in, inout []byte) {
	var f func(a, b T) T
	switch c {
	case opSum:
		f = func(a, b T) T { return w.add(a, b, false) }
	case opProd:
		f = w.mul
	case opMin, opMax:
		want := -1
		if c == opMax {
			want = 1
		}
		f = func(a, b T) T {
			switch {
			case a.isNaN():
				return a.quiet()
			case b.isNaN():
				return b.quiet()
			case a.cmp(b) == want:
				return a
			}
			return b
		}
	default:
		return nil
	}
	return func(in, inout []byte) {
		for i := 0; i+16 <= len(inout) && i+16 <= len(in); i += 16 {
			f(w.load(in[i:]), w.load(inout[i:])).store(inout[i:])
		}
	}
}

// wideComplexOp is Sum or Prod on pairs of a wide type: the product
// (a+bi)(c+di) is (ac-bd) + (ad+bc)i, each step rounded, as C computes
// it for finite values.
func wideComplexOp[T wide[T]](c opCode, w wideFormat[T]) func(in, inout []byte) {
	var f func(a, b, c, d T) (T, T)
	switch c {
	case opSum:
		f = func(a, b, c, d T) (T, T) { return w.add(a, c, false), w.add(b, d, false) }
	case opProd:
		f = func(a, b, c, d T) (T, T) {
			return w.add(w.mul(a, c), w.mul(b, d), true), w.add(w.mul(a, d), w.mul(b, c), false)
		}
	default:
		return nil
	}
	return func(in, inout []byte) {
		for i := 0; i+32 <= len(inout) && i+32 <= len(in); i += 32 {
			re, im := f(w.load(in[i:]), w.load(in[i+16:]), w.load(inout[i:]), w.load(inout[i+16:]))
			re.store(inout[i:])
			im.store(inout[i+16:])
		}
	}
}
