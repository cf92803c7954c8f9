package pmpi

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// apply reduces in into inout with op on dt, as the algorithms do.
func apply(op Op, dt Datatype, in, inout []byte) string {
	b, why := bind(op, dt)
	if why == "" {
		b.Reduce(in, inout)
	}
	return why
}

// raw is v's memory.
func raw[T any](v []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(v[0])))
}

// TestFortranLogicals: the logical operations keep the operands' own
// .TRUE. (Intel's -1 here, gfortran's 1) and write zero for false; the
// arithmetic ones are refused, naming what they take.
func TestFortranLogicals(t *testing.T) {
	cases := []struct {
		op              Op
		in, inout, want []int32
	}{
		{op: OpLand, in: []int32{0, -1, -1, 0}, inout: []int32{0, 0, 1, 1}, want: []int32{0, 0, 1, 0}},
		{op: OpLor, in: []int32{0, -1, -1, 0}, inout: []int32{0, 0, 1, 1}, want: []int32{0, -1, -1, 1}},
		{op: OpLxor, in: []int32{0, -1, -1, 0}, inout: []int32{0, 0, 1, 1}, want: []int32{0, -1, 0, 1}},
	}
	for _, c := range cases {
		if why := apply(c.op, Logical4, raw(c.in), raw(c.inout)); why != "" {
			t.Fatalf("%v on MPI_LOGICAL4: %s", c.op, why)
		}
		if !slices.Equal(c.inout, c.want) {
			t.Errorf("%v: got %v, want %v", c.op, c.inout, c.want)
		}
	}
	for _, dt := range []Datatype{Logical1, Logical2, Logical8} {
		b := make([]byte, 2*dt.Size())
		b[0], b[dt.Size()] = 5, 0 // true, false
		in := make([]byte, len(b))
		in[dt.Size()] = 9
		if why := apply(OpLor, dt, in, b); why != "" {
			t.Fatalf("MPI_LOR on %s: %s", dt.Name(), why)
		}
		if b[0] != 5 || b[dt.Size()] != 9 {
			t.Errorf("MPI_LOR on %s: got %v, want the true operands 5 and 9", dt.Name(), b)
		}
	}
	if why := apply(OpSum, Logical4, make([]byte, 4), make([]byte, 4)); !strings.Contains(why, "MPI_LOGICAL4") {
		t.Errorf("MPI_SUM on MPI_LOGICAL4: %q, want a refusal naming the type", why)
	}
}

// TestTwinPairs: MINLOC and MAXLOC on pairs whose index has the value's
// type, ties going to the smaller index.
func TestTwinPairs(t *testing.T) {
	f64, f64o := []float64{1, 4, 2, 9, 3, 1}, []float64{1, 2, 1, 3, 5, 0}
	f32, f32o := []float32{7, 4, 2, 9}, []float32{7, 2, 3, 3}
	i64, i64o := []int64{-8, 1, 5, 2}, []int64{-8, 0, 6, 1}
	for _, c := range []struct {
		name      string
		op        Op
		dt        Datatype
		in, inout []byte
		got, want func() any
	}{
		{"MPI_MINLOC on MPI_2DOUBLE_PRECISION", OpMinLoc, Float64Float64, raw(f64), raw(f64o),
			func() any { return f64o }, func() any { return []float64{1, 2, 1, 3, 3, 1} }},
		{"MPI_MAXLOC on MPI_2REAL", OpMaxLoc, Float32Float32, raw(f32), raw(f32o),
			func() any { return f32o }, func() any { return []float32{7, 2, 3, 3} }},
		{"MPI_MINLOC on 8-byte MPI_2INTEGER", OpMinLoc, Int64Int64, raw(i64), raw(i64o),
			func() any { return i64o }, func() any { return []int64{-8, 0, 5, 2} }},
	} {
		if why := apply(c.op, c.dt, c.in, c.inout); why != "" {
			t.Fatalf("%s: %s", c.name, why)
		}
		if g, w := fmtv(c.got()), fmtv(c.want()); g != w {
			t.Errorf("%s: got %s, want %s", c.name, g, w)
		}
	}
	if n := Float32Float32.Size(); n != 8 {
		t.Errorf("MPI_2REAL is %d bytes, want 8", n)
	}
	if why := apply(OpSum, Float32Float32, make([]byte, 8), make([]byte, 8)); why == "" {
		t.Error("MPI_SUM on MPI_2REAL was accepted")
	}
}

// TestInt128: the operations on 16-byte integers agree with math/big,
// sums and products taken modulo 2^128 as two's complement, across the
// words' carries and signs.
func TestInt128(t *testing.T) {
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	toBig := func(w word128) *big.Int {
		v := new(big.Int).SetUint64(w[1])
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(w[0]))
		if int64(w[1]) < 0 {
			v.Sub(v, mod)
		}
		return v
	}
	fromBig := func(v *big.Int) word128 {
		u := new(big.Int).Mod(v, mod)
		lo := new(big.Int).And(u, new(big.Int).SetUint64(^uint64(0))).Uint64()
		return word128{lo, new(big.Int).Rsh(u, 64).Uint64()}
	}
	values := []word128{
		{0, 0}, {1, 0}, {^uint64(0), 0}, {^uint64(0), ^uint64(0)}, // 0, 1, 2^64-1, -1
		{0, 1 << 63}, {^uint64(0), 1<<63 - 1}, // the smallest and the largest
		{5, ^uint64(0)}, {1 << 63, 3}, {12345, 0},
	}
	for _, c := range []struct {
		op   Op
		want func(a, b *big.Int) *big.Int
	}{
		{OpSum, func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }},
		{OpProd, func(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }},
		{OpMin, func(a, b *big.Int) *big.Int {
			if a.Cmp(b) < 0 {
				return a
			}
			return b
		}},
		{OpMax, func(a, b *big.Int) *big.Int {
			if a.Cmp(b) > 0 {
				return a
			}
			return b
		}},
		{OpBxor, func(a, b *big.Int) *big.Int { return new(big.Int).Xor(a, b) }},
		{OpBand, func(a, b *big.Int) *big.Int { return new(big.Int).And(a, b) }},
		{OpBor, func(a, b *big.Int) *big.Int { return new(big.Int).Or(a, b) }},
		{OpLand, truthOf(func(x, y bool) bool { return x && y })},
		{OpLor, truthOf(func(x, y bool) bool { return x || y })},
		{OpLxor, truthOf(func(x, y bool) bool { return x != y })},
	} {
		for _, a := range values {
			for _, b := range values {
				in, inout := []word128{a}, []word128{b}
				if why := apply(c.op, Int128, raw(in), raw(inout)); why != "" {
					t.Fatalf("%v on MPI_INTEGER16: %s", c.op, why)
				}
				if want := fromBig(c.want(toBig(a), toBig(b))); inout[0] != want {
					t.Errorf("%v of %v and %v: got %v, want %v", c.op, toBig(a), toBig(b), toBig(inout[0]), toBig(want))
				}
			}
		}
	}
}

// truthOf is a logical operation's reference on integers: 1 when join
// holds of their truths, else 0.
func truthOf(join func(x, y bool) bool) func(a, b *big.Int) *big.Int {
	return func(a, b *big.Int) *big.Int {
		if join(a.Sign() != 0, b.Sign() != 0) {
			return big.NewInt(1)
		}
		return big.NewInt(0)
	}
}

// TestLogical16: a 16-byte logical whose .TRUE. lies in its high word is
// true, and the logical operations keep it.
func TestLogical16(t *testing.T) {
	yes, no := word128{0, 7}, word128{}
	in, inout := []word128{yes, no, yes}, []word128{no, no, {1, 0}}
	if why := apply(OpLor, Logical16, raw(in), raw(inout)); why != "" {
		t.Fatalf("MPI_LOR on MPI_LOGICAL16: %s", why)
	}
	if want := []word128{yes, no, yes}; !slices.Equal(inout, want) {
		t.Errorf("MPI_LOR: got %v, want %v", inout, want)
	}
	in, inout = []word128{yes, yes, no}, []word128{yes, no, yes}
	if why := apply(OpLxor, Logical16, raw(in), raw(inout)); why != "" {
		t.Fatalf("MPI_LXOR on MPI_LOGICAL16: %s", why)
	}
	if want := []word128{no, yes, yes}; !slices.Equal(inout, want) {
		t.Errorf("MPI_LXOR: got %v, want %v", inout, want)
	}
	if why := apply(OpSum, Logical16, make([]byte, 16), make([]byte, 16)); !strings.Contains(why, "MPI_LOGICAL16") {
		t.Errorf("MPI_SUM on MPI_LOGICAL16: %q, want a refusal naming the type", why)
	}
}
