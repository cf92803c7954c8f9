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
// once to prec bits, which is exact where it falls below the normal range
// (there the operands and the sum share one quantum); a product is made
// exactly and rounded once.
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

// roundWide rounds f, finite, to nearest even, once, in a format with the
// 15-bit exponent biased by 16383 that x87's and binary128 share and prec
// bits of significand (64 or 113). It returns the significand, its leading
// bit included, as two words (under 2^(prec-1) only for a denormal or
// zero), and the biased exponent (0 for a denormal or zero); or inf, when
// f is past the range.
func roundWide(f *big.Float, prec int) (hi, lo uint64, be int, inf bool) {
	if f.Sign() == 0 {
		return 0, 0, 0, false
	}
	var mant big.Float
	e := f.MantExp(&mant) // f = mant * 2^e, 0.5 <= |mant| < 1
	be = e - 1 + x87Bias  // the biased exponent of 1.xxx * 2^(e-1)
	if be >= x87MaxExp {
		return 0, 0, 0, true
	}
	bits := prec
	if be <= 0 { // a denormal: fewer bits of significand
		bits = prec - 1 + be
	}
	mant.Abs(&mant)
	if bits <= 0 { // below the smallest denormal: it, or zero
		if bits == 0 && mant.Cmp(big.NewFloat(0.5)) > 0 {
			return 0, 1, 0, false
		}
		return 0, 0, 0, false
	}
	var r big.Float
	r.SetPrec(uint(bits)).SetMode(big.ToNearestEven).Set(&mant)
	switch {
	case be <= 0:
		// value = mant * 2^e = m * 2^(1-16383-(prec-1)): m = mant * 2^bits.
		r.SetMantExp(&r, bits)
		be = 0
	case r.Cmp(big.NewFloat(1)) == 0: // rounding carried out of the significand
		be++
		if be >= x87MaxExp {
			return 0, 0, 0, true
		}
		r.SetMantExp(&r, prec-1)
	default:
		r.SetMantExp(&r, prec)
	}
	var m, w big.Int
	r.Int(&m)
	if m.BitLen() == prec {
		be = max(be, 1) // a denormal rounded up into the normal range
	}
	lo = w.And(&m, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return m.Rsh(&m, 64).Uint64(), lo, be, false
}
