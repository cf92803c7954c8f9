package pmpi

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

func randF128(rng *rand.Rand, minExp, maxExp int) f128 {
	e := uint64(minExp + rng.IntN(maxExp-minExp+1))
	return f128{lo: rng.Uint64(), hi: uint64(rng.IntN(2))<<63 | e<<48 | rng.Uint64()&f128Frac}
}

// f128Big is x as a big.Float of its 113 bits.
func f128Big(x f128) *big.Float { return x.big(new(big.Float)) }

// TestF128RoundTrips: every finite binary128 value, denormals included,
// goes to a big.Float and back unchanged, and external32 holds it
// big-endian.
func TestF128RoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	values := []f128{{}, {hi: f128Sign}, {lo: 1}, {lo: ^uint64(0), hi: f128Frac}, {lo: ^uint64(0), hi: (x87MaxExp-1)<<48 | f128Frac}}
	for range 2000 {
		values = append(values, randF128(rng, 0, x87MaxExp-1))
	}
	for _, x := range values {
		if got := f128Of(f128Big(x)); got != x {
			t.Fatalf("%#x %#x through big.Float came back as %#x %#x", x.hi, x.lo, got.hi, got.lo)
		}
	}
	x := values[len(values)-1]
	mem, ext := make([]byte, 16), make([]byte, 16)
	x.store(mem)
	n, err := theAPI.PackExternal("external32", mem, 1, Float128, ext, 0)
	if err != nil || n != 16 {
		t.Fatalf("PackExternal: %d bytes, %v", n, err)
	}
	for i := range 16 {
		if ext[i] != mem[15-i] {
			t.Fatalf("external32 % x of % x", ext, mem)
		}
	}
}

// TestF128Arithmetic: sums and products rounded once, against big.Float's
// rounding to 113 bits where the result is normal; at the range's ends,
// denormals rounded to nearest even and infinities; the special values.
func TestF128Arithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		// Exponents that keep sums and products normal: 2^-8000 to 2^8000,
		// close enough for sums to round and cancel.
		a, b := randF128(rng, x87Bias-4000, x87Bias+4000), randF128(rng, x87Bias-4000, x87Bias+4000)
		if rng.IntN(2) == 0 {
			b.hi = b.hi&^(x87MaxExp<<48) | uint64(a.exp()-rng.IntN(120))<<48
		}
		var s, p big.Float
		s.SetPrec(113).Add(f128Big(a), f128Big(b))
		p.SetPrec(113).Mul(f128Big(a), f128Big(b))
		if got, want := f128s.add(a, b, false), f128Of(&s); got != want {
			t.Fatalf("%#x:%#x + %#x:%#x is %#x:%#x, want %#x:%#x", a.hi, a.lo, b.hi, b.lo, got.hi, got.lo, want.hi, want.lo)
		}
		if got, want := f128s.mul(a, b), f128Of(&p); got != want {
			t.Fatalf("%#x:%#x * %#x:%#x is %#x:%#x, want %#x:%#x", a.hi, a.lo, b.hi, b.lo, got.hi, got.lo, want.hi, want.lo)
		}
	}
	of := func(v float64) f128 { return f128Of(big.NewFloat(v)) }
	one, half := of(1), of(0.5)
	smallest := func(k uint64) f128 { return f128{lo: k} } // k times the smallest denormal
	minNormal := f128{hi: 1 << 48}
	largest := f128{lo: ^uint64(0), hi: (x87MaxExp-1)<<48 | f128Frac}
	inf, minusInf := f128{hi: x87MaxExp << 48}, f128{hi: f128Sign | x87MaxExp<<48}
	for _, c := range []struct {
		name string
		got  f128
		nan  bool
		want f128
	}{
		{"inf - inf", f128s.add(inf, minusInf, false), true, f128{}},
		{"0 * inf", f128s.mul(f128{}, inf), true, f128{}},
		{"largest * 2", f128s.mul(largest, of(2)), false, inf},
		{"largest + largest", f128s.add(largest, largest, false), false, inf},
		{"-largest * 2", f128s.mul(largest, of(-2)), false, minusInf},
		{"1 - 1", f128s.add(one, one, true), false, f128{}},
		{"-0 + -0", f128s.add(f128{hi: f128Sign}, f128{hi: f128Sign}, false), false, f128{hi: f128Sign}},
		{"-2 * 3", f128s.mul(of(-2), of(3)), false, of(-6)},
		{"1 + 2^-113 (a tie, to even)", f128s.add(one, of(0x1p-113), false), false, one},
		{"1 + 3*2^-113 (a tie, to even)", f128s.add(one, of(0x3p-113), false), false, f128{lo: 2, hi: one.hi}},
		{"smallest * 0.5 (a tie, to even: zero)", f128s.mul(smallest(1), half), false, f128{}},
		{"3 smallest * 0.5 (a tie, to even: 2)", f128s.mul(smallest(3), half), false, smallest(2)},
		{"5 smallest * 0.5 (a tie, to even: 2)", f128s.mul(smallest(5), half), false, smallest(2)},
		{"smallest * 0.75", f128s.mul(smallest(1), of(0.75)), false, smallest(1)},
		{"min normal - smallest", f128s.add(minNormal, smallest(1), true), false, f128{lo: ^uint64(0), hi: f128Frac}},
		{"largest denormal + smallest", f128s.add(f128{lo: ^uint64(0), hi: f128Frac}, smallest(1), false), false, minNormal},
		{"min normal * 0.5", f128s.mul(minNormal, half), false, f128{hi: 1 << 47}},
	} {
		if c.nan != c.got.isNaN() || !c.nan && c.got != c.want {
			t.Errorf("%s is %#x:%#x", c.name, c.got.hi, c.got.lo)
		}
	}

	// Min and Max order every kind of value, -0 below +0.
	order := []f128{minusInf, of(-2), of(-1), {hi: f128Sign, lo: 1}, {hi: f128Sign}, {}, smallest(1), minNormal, one, largest, inf}
	lo, hi := wideOp(opMin, f128s), wideOp(opMax, f128s)
	for i, a := range order {
		for j, b := range order {
			in, inout := make([]byte, 16), make([]byte, 16)
			a.store(in)
			b.store(inout)
			lo(in, inout)
			if got := loadF128(inout); got != order[min(i, j)] {
				t.Errorf("min of %d and %d is %#x:%#x", i, j, got.hi, got.lo)
			}
			b.store(inout)
			hi(in, inout)
			if got := loadF128(inout); got != order[max(i, j)] {
				t.Errorf("max of %d and %d is %#x:%#x", i, j, got.hi, got.lo)
			}
		}
	}
	in, inout := make([]byte, 16), make([]byte, 16)
	f128{hi: x87MaxExp<<48 | 1}.store(in) // a signalling NaN
	one.store(inout)
	lo(in, inout)
	if got := loadF128(inout); !got.isNaN() || got.hi&f128Quiet == 0 {
		t.Errorf("min of a NaN and 1 is %#x:%#x, want a quiet NaN", got.hi, got.lo)
	}
}

// TestComplex256: (1+2^-100 + 2i)(3+4i) is -5+3*2^-100 + (10+4*2^-100)i,
// which only 113 bits hold; the sum adds the parts.
func TestComplex256(t *testing.T) {
	of := func(v float64) f128 { return f128Of(big.NewFloat(v)) }
	tiny := new(big.Float).SetMantExp(big.NewFloat(1), -100)
	a := f128Of(new(big.Float).SetPrec(113).Add(big.NewFloat(1), tiny))
	buf := func(re, im f128) []byte {
		b := make([]byte, 32)
		re.store(b)
		im.store(b[16:])
		return b
	}
	inout := buf(of(3), of(4))
	wideComplexOp(opProd, f128s)(buf(a, of(2)), inout)
	var want big.Float
	want.SetPrec(113).Mul(tiny, big.NewFloat(3)).Add(&want, big.NewFloat(-5))
	if got := loadF128(inout); got != f128Of(&want) {
		t.Errorf("the product's real part is %#x:%#x", got.hi, got.lo)
	}
	want.SetPrec(113).Mul(tiny, big.NewFloat(4)).Add(&want, big.NewFloat(10))
	if got := loadF128(inout[16:]); got != f128Of(&want) {
		t.Errorf("the product's imaginary part is %#x:%#x", got.hi, got.lo)
	}
	inout = buf(of(3), of(4))
	wideComplexOp(opSum, f128s)(buf(of(-1), of(0.5)), inout)
	if re, im := loadF128(inout), loadF128(inout[16:]); re != of(2) || im != of(4.5) {
		t.Errorf("(-1+0.5i) + (3+4i) is %#x:%#x %#x:%#x", re.hi, re.lo, im.hi, im.lo)
	}
}
