package pmpi

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestX87RoundTrips: every finite x87 value goes to a big.Float and back,
// and to binary128 and back, unchanged; a float64 widened is the value.
func TestX87RoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []x87{{x87Int, x87Bias}, {x87Int, 0x8000 | x87Bias}, {1, 0}, {^uint64(0), x87MaxExp - 1}, {x87Int - 1, 0}}
	for range 2000 {
		e := uint16(rng.IntN(x87MaxExp))
		m := rng.Uint64()
		if e == 0 {
			m &^= x87Int
		} else {
			m |= x87Int
		}
		values = append(values, x87{m, e | uint16(rng.IntN(2))<<15})
	}
	var f big.Float
	mem, ext := make([]byte, 16), make([]byte, 16)
	for _, x := range values {
		if got := x87Of(x.big(&f)); got != x && !(x.m == 0 && got.m == 0) {
			t.Fatalf("%#x %#x through big.Float came back as %#x %#x", x.se, x.m, got.se, got.m)
		}
		x.store(mem)
		x87External(ext, mem, true)
		clear(mem)
		x87External(ext, mem, false)
		if got := loadX87(mem); got != x {
			t.Fatalf("%#x %#x through binary128 came back as %#x %#x", x.se, x.m, got.se, got.m)
		}
	}
	for _, v := range []float64{1, -0.1, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		if got, _ := x87Of(big.NewFloat(v)).big(&f).Float64(); got != v {
			t.Errorf("%v as x87 is %v", v, got)
		}
	}
}

// TestX87Arithmetic: sums and products rounded once, the special values.
func TestX87Arithmetic(t *testing.T) {
	of := func(v float64) x87 { return x87Of(big.NewFloat(v)) }
	one := of(1)
	tiny := x87{m: x87Int, se: x87Bias - 64} // 2^-64: half of one's last place
	if got := x87s.add(one, tiny, false); got != one {
		t.Errorf("1 + 2^-64 is %#x %#x, want 1 (a tie rounds to even)", got.se, got.m)
	}
	if got := x87s.add(one, x87s.add(tiny, tiny, false), false); got != (x87{m: x87Int | 1, se: x87Bias}) {
		t.Errorf("1 + 2^-63 is %#x %#x", got.se, got.m)
	}
	inf := x87{m: x87Int, se: x87MaxExp}
	minusInf := x87{m: x87Int, se: 0x8000 | x87MaxExp}
	for _, c := range []struct {
		name string
		got  x87
		nan  bool
		want x87
	}{
		{"inf - inf", x87s.add(inf, minusInf, false), true, x87{}},
		{"0 * inf", x87s.mul(x87{}, inf), true, x87{}},
		{"max * 2", x87s.mul(x87{m: ^uint64(0), se: x87MaxExp - 1}, of(2)), false, inf},
		{"1 - 1", x87s.add(one, one, true), false, x87{}},
		{"-2 * 3", x87s.mul(of(-2), of(3)), false, of(-6)},
		{"smallest / 2", x87s.mul(x87{m: 1}, of(0.5)), false, x87{}},
		// 59 * 3751880150584993549 is 3*2^66-1: the product is 1.5-2^-67
		// times the smallest denormal, which rounds to it; rounded to 64
		// bits first, it would be 1.5, a tie that rounds to 2.
		{"a product just under a denormal tie", x87s.mul(x87Of(big.NewFloat(0).SetMantExp(big.NewFloat(59), -8000)),
			x87Of(new(big.Float).SetMantExp(new(big.Float).SetUint64(3751880150584993549), -8512))), false, x87{m: 1}},
	} {
		if c.nan != c.got.isNaN() || !c.nan && c.got != c.want {
			t.Errorf("%s is %#x %#x", c.name, c.got.se, c.got.m)
		}
	}
}
