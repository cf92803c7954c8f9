package pmpi

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
)

// nearestHalf is a reference rounding to binary16, by search: the finite
// half nearest v (ties to the even bit pattern), or infinity from 65520
// up. It shares nothing with halfOf.
type nearestHalf struct{ vals []float64 } // every non-negative finite half, by bits

func newNearestHalf() nearestHalf {
	var n nearestHalf
	for h := range uint16(0x7c00) {
		n.vals = append(n.vals, halfValue(h))
	}
	return n
}

func (n nearestHalf) of(v *big.Float) uint16 {
	var s uint16
	if v.Signbit() {
		s = halfSign
	}
	var a big.Float
	a.Abs(v)
	if a.Cmp(big.NewFloat(65520)) >= 0 {
		return s | halfExp
	}
	i := sort.Search(len(n.vals), func(i int) bool { return big.NewFloat(n.vals[i]).Cmp(&a) > 0 }) - 1
	if i == len(n.vals)-1 {
		return s | uint16(i)
	}
	var below, above big.Float
	below.Sub(&a, big.NewFloat(n.vals[i]))
	above.Sub(big.NewFloat(n.vals[i+1]), &a)
	switch c := below.Cmp(&above); {
	case c < 0, c == 0 && i%2 == 0:
		return s | uint16(i)
	}
	return s | uint16(i+1)
}

// TestHalfRoundTrips: every half goes to a float64 and back unchanged (a
// NaN quieted), and halfOf rounds as the reference does.
func TestHalfRoundTrips(t *testing.T) {
	for h := range 1 << 16 {
		got := halfOf(halfValue(uint16(h)))
		want := uint16(h)
		if h&halfExp == halfExp && h&halfFrac != 0 {
			want |= halfQuiet
		}
		if got != want {
			t.Fatalf("%#04x came back as %#04x", h, got)
		}
	}
	ref := newNearestHalf()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		v := math.Ldexp(rng.Float64()+0.5, rng.IntN(50)-30)
		if rng.IntN(2) == 0 {
			v = -v
		}
		if got, want := halfOf(v), ref.of(big.NewFloat(v)); got != want {
			t.Fatalf("%v rounded to %#04x, want %#04x", v, got, want)
		}
	}
}

// TestHalfArithmetic: sums and products of random halves against the
// exact result rounded by the reference, and the special values.
func TestHalfArithmetic(t *testing.T) {
	ref := newNearestHalf()
	rng := rand.New(rand.NewPCG(5, 6))
	sum, prod := halfOp(opSum), halfOp(opProd)
	csum, cprod := complex32Op(opSum), complex32Op(opProd)
	finite := func() uint16 {
		for {
			if h := uint16(rng.Uint32()); h&halfExp != halfExp {
				return h
			}
		}
	}
	exact := func(h uint16) *big.Float { return new(big.Float).SetFloat64(halfValue(h)) }
	apply := func(f func(in, inout []byte), a, b []uint16) []uint16 {
		in, inout := make([]byte, 2*len(a)), make([]byte, 2*len(b))
		copy(view[uint16](in), a)
		copy(view[uint16](inout), b)
		f(in, inout)
		return view[uint16](inout)
	}
	// (a+bi)(c+di): each part the exact ac-bd or ad+bc, rounded once.
	checkComplexProd := func(a, b, c, d uint16) {
		t.Helper()
		var re, im, x big.Float
		re.SetPrec(200).Mul(exact(a), exact(c))
		re.Sub(&re, x.SetPrec(200).Mul(exact(b), exact(d)))
		im.SetPrec(200).Mul(exact(a), exact(d))
		im.Add(&im, x.SetPrec(200).Mul(exact(b), exact(c)))
		got := apply(cprod, []uint16{a, b}, []uint16{c, d})
		if want := [2]uint16{ref.of(&re), ref.of(&im)}; got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("(%#04x,%#04x) * (%#04x,%#04x) is %#04x, want %#04x", a, b, c, d, got, want)
		}
	}
	// 7*293 - 2^-24*2^-24 is 2051 in a float64, a tie that rounds up to
	// 2052, but 2050 rounded once.
	checkComplexProd(0x4700, 0x0001, 0x5c94, 0x0001)
	for range 20000 {
		a, b := finite(), finite()
		var s, p big.Float
		s.SetPrec(200).Add(exact(a), exact(b))
		p.SetPrec(200).Mul(exact(a), exact(b))
		if got, want := apply(sum, []uint16{a}, []uint16{b})[0], ref.of(&s); got != want {
			t.Fatalf("%#04x + %#04x is %#04x, want %#04x", a, b, got, want)
		}
		if got, want := apply(prod, []uint16{a}, []uint16{b})[0], ref.of(&p); got != want {
			t.Fatalf("%#04x * %#04x is %#04x, want %#04x", a, b, got, want)
		}
		c, d := finite(), finite()
		checkComplexProd(a, b, c, d)
		got := apply(csum, []uint16{a, b}, []uint16{c, d})
		if re, im := apply(sum, []uint16{a}, []uint16{c})[0], apply(sum, []uint16{b}, []uint16{d})[0]; got[0] != re || got[1] != im {
			t.Fatalf("(%#04x,%#04x) + (%#04x,%#04x) is %#04x, want %#04x %#04x", a, b, c, d, got, re, im)
		}
	}
	const inf, minusInf, maxHalf, one = 0x7c00, 0xfc00, 0x7bff, 0x3c00
	for _, c := range []struct {
		name string
		f    func(in, inout []byte)
		a, b uint16
		nan  bool
		want uint16
	}{
		{"inf - inf", sum, inf, minusInf, true, 0},
		{"0 * inf", prod, 0, inf, true, 0},
		{"65504 + 16 (a tie, to even: infinity)", sum, maxHalf, 0x4c00, false, inf},
		{"65504 + 8", sum, maxHalf, 0x4800, false, maxHalf},
		{"1 - 1", sum, one, 0xbc00, false, 0},
		{"-0 + -0", sum, halfSign, halfSign, false, halfSign},
		{"smallest * 0.5 (a tie, to even: zero)", prod, 1, 0x3800, false, 0},
		{"3 * smallest * 0.5 (a tie, to even: 2)", prod, 3, 0x3800, false, 2},
		{"min of -0 and 0", halfOp(opMin), 0, halfSign, false, halfSign},
		{"max of -2 and 1", halfOp(opMax), 0xc000, one, false, one},
		{"min of NaN and 1", halfOp(opMin), 0x7e01, one, true, 0},
	} {
		got := apply(c.f, []uint16{c.a}, []uint16{c.b})[0]
		if isNaN := got&halfExp == halfExp && got&halfFrac != 0; isNaN != c.nan || !c.nan && got != c.want {
			t.Errorf("%s is %#04x", c.name, got)
		}
	}
}
