package pmpi

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gompi/gompi/frameworks/coll"
)

// reduce applies op to in and inout as the algorithms do: on packed data
// (a pair's padding left out).
func reduce[T Elem](t *testing.T, op Op, in, inout []T) []T {
	t.Helper()
	dt := TypeOf[T]()
	b, why := bind(op, dt)
	if why != "" {
		t.Fatalf("%v on %T: %s", op, in, why)
	}
	a, c := make([]byte, len(in)*dt.Size()), make([]byte, len(inout)*dt.Size())
	dt.t.pack(a, Bytes(in), len(in))
	dt.t.pack(c, Bytes(inout), len(inout))
	b.Reduce(a, c)
	dt.t.unpack(Bytes(inout), c, len(inout))
	return inout
}

func TestPredefinedOperations(t *testing.T) {
	eq := func(name string, got, want any) {
		t.Helper()
		if g, w := fmtv(got), fmtv(want); g != w {
			t.Errorf("%s: got %s, want %s", name, g, w)
		}
	}
	eq("sum int32", reduce(t, OpSum, []int32{1, -2}, []int32{10, 20}), []int32{11, 18})
	eq("prod float64", reduce(t, OpProd, []float64{1.5, 2}, []float64{2, 3}), []float64{3, 6})
	eq("min uint16", reduce(t, OpMin, []uint16{5, 1}, []uint16{3, 4}), []uint16{3, 1})
	eq("max float32", reduce(t, OpMax, []float32{5, 1}, []float32{3, 4}), []float32{5, 4})
	eq("land", reduce(t, OpLand, []int8{0, 3, 2}, []int8{1, 0, 5}), []int8{0, 0, 1})
	eq("lor", reduce(t, OpLor, []int64{0, 0, 2}, []int64{0, 7, 0}), []int64{0, 1, 1})
	eq("lxor", reduce(t, OpLxor, []uint32{0, 1, 2}, []uint32{0, 7, 0}), []uint32{0, 0, 1})
	eq("band", reduce(t, OpBand, []uint8{0b1100}, []uint8{0b1010}), []uint8{0b1000})
	eq("bor", reduce(t, OpBor, []uint64{0b1100}, []uint64{0b1010}), []uint64{0b1110})
	eq("bxor", reduce(t, OpBxor, []int{0b1100}, []int{0b1010}), []int{0b0110})
	eq("sum complex128", reduce(t, OpSum, []complex128{1 + 2i}, []complex128{3 - 1i}), []complex128{4 + 1i})
	eq("minloc", reduce(t, OpMinLoc, []Pair[float64]{{1, 4}, {2, 9}, {3, 1}}, []Pair[float64]{{1, 2}, {1, 3}, {5, 0}}),
		[]Pair[float64]{{1, 2}, {1, 3}, {3, 1}})
	eq("maxloc", reduce(t, OpMaxLoc, []Pair[int32]{{7, 4}, {2, 9}}, []Pair[int32]{{7, 2}, {3, 3}}),
		[]Pair[int32]{{7, 2}, {3, 3}})
	eq("minloc int16", reduce(t, OpMinLoc, []Pair[int16]{{-1, 4}, {2, 9}, {3, 1}}, []Pair[int16]{{1, 2}, {2, 3}, {-5, 0}}),
		[]Pair[int16]{{-1, 4}, {2, 3}, {-5, 0}})
	eq("maxloc int64", reduce(t, OpMaxLoc, []Pair[int64]{{1 << 40, 4}, {2, 1}}, []Pair[int64]{{7, 2}, {2, 3}}),
		[]Pair[int64]{{1 << 40, 4}, {2, 1}})
}

// TestPairTypes: a pair type's size is its value's and its index's, its
// extent C's struct's (MPI_DOUBLE_INT: 12 and 16), and its type map two
// basic elements, whatever count a message ends at.
func TestPairTypes(t *testing.T) {
	for _, tc := range []struct {
		dt           Datatype
		size, extent int
	}{
		{Float32Int, 8, 8}, {Float64Int, 12, 16}, {Int64Int, 12, 16}, {Int32Int, 8, 8}, {Int16Int, 6, 8},
	} {
		_, ext := tc.dt.Extent()
		if tc.dt.Size() != tc.size || ext != tc.extent {
			t.Errorf("%s: size %d, extent %d; want %d and %d", tc.dt.Name(), tc.dt.Size(), ext, tc.size, tc.extent)
		}
		if got := tc.dt.Elements(3 * tc.size); got != 6 {
			t.Errorf("%s: %d bytes hold %d basic elements, want 6", tc.dt.Name(), 3*tc.size, got)
		}
		if got := tc.dt.Elements(tc.size + tc.size - 4); got != 3 {
			t.Errorf("%s: a pair and a value hold %d basic elements, want 3", tc.dt.Name(), got)
		}
	}
	if _, ext := TypeOf[Pair[float64]]().Extent(); ext != int(unsafe.Sizeof(Pair[float64]{})) {
		t.Errorf("Pair[float64]'s type has extent %d, want its Go size", ext)
	}
}

func TestOperationsMPIDoesNotDefine(t *testing.T) {
	for _, tc := range []struct {
		op Op
		dt Datatype
	}{
		{OpMax, Complex128}, {OpMin, Complex64}, {OpLand, Float64}, {OpBand, Float32},
		{OpBxor, Complex64}, {OpMinLoc, Float64}, {OpSum, Float64Int}, {OpBor, Int32Int}, {Op{}, Int32},
	} {
		if _, why := bind(tc.op, tc.dt); why == "" {
			t.Errorf("%v on %s: accepted, want a refusal", tc.op, tc.dt.Name())
		}
	}
}

func TestUserOperationBoundToItsType(t *testing.T) {
	calls := 0
	op, err := theAPI.OpCreate(func(in, inout []byte, count int, dt Datatype) { calls += count }, false)
	if err != nil {
		t.Fatal(err)
	}
	int32Op, err := op.For(Int32, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, why := bind(int32Op, Int32)
	if why != "" || b.Commutative() {
		t.Fatalf("bind: %s, commutative %v", why, b.Commutative())
	}
	b.Reduce(make([]byte, 12), make([]byte, 12))
	if calls != 3 {
		t.Fatalf("the function saw %d elements, want 3", calls)
	}
	if _, why := bind(int32Op, Float64); !strings.Contains(why, "made for MPI_INT32_T") {
		t.Fatalf("an operation made for int32 applied to float64: %q, want a refusal naming the type", why)
	}
	if _, err := theAPI.OpCreate(nil, true); !errors.Is(err, ErrOp) {
		t.Fatalf("OpCreate(nil): %v, want ErrOp", err)
	}
}

// TestExactOperations: an operation says whether its result depends on
// how its operands are grouped (coll.Exact): a floating-point or complex
// sum or product and a user's operation do; integer arithmetic, min and
// max do not.
func TestExactOperations(t *testing.T) {
	user, err := theAPI.OpCreate(func(in, inout []byte, count int, dt Datatype) {}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op    Op
		dt    Datatype
		exact bool
	}{
		{OpSum, Float64, false}, {OpProd, Float32, false}, {OpSum, Complex128, false},
		{OpSum, Int64, true}, {OpProd, Uint16, true}, {OpMax, Float64, true}, {OpMinLoc, Float64Int, true},
		{OpBxor, Int32, true}, {user, Int64, false},
	} {
		b, why := bind(tc.op, tc.dt)
		if why != "" {
			t.Fatalf("%s on %s: %s", tc.op.Name(), tc.dt.Name(), why)
		}
		if got := coll.Exact(b); got != tc.exact {
			t.Errorf("%s on %s: exact %v, want %v", tc.op.Name(), tc.dt.Name(), got, tc.exact)
		}
	}
}

// TestRecordIsTheUnit: an operation made for records of several elements
// is bound with the record as its unit, which every algorithm cuts at; a
// record of no elements and a record for a predefined operation are
// refused.
func TestRecordIsTheUnit(t *testing.T) {
	op, err := theAPI.OpCreate(func(in, inout []byte, count int, dt Datatype) {}, false)
	if err != nil {
		t.Fatal(err)
	}
	triple, err := op.For(Float64, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, why := bind(triple, Float64)
	if why != "" || b.ElemSize() != 24 || triple.Record() != 3 {
		t.Fatalf("bind: %q, unit %d bytes, record %d: want a 24-byte unit, records of 3", why, b.ElemSize(), triple.Record())
	}
	if op.Record() != 1 || OpSum.Record() != 1 {
		t.Fatalf("records of %d and %d elements where none was given, want 1", op.Record(), OpSum.Record())
	}
	if _, err := op.For(Float64, 0); !errors.Is(err, ErrArg) || !strings.Contains(err.Error(), "record of 0 elements") {
		t.Fatalf("a record of 0 elements: %v, want ErrArg naming it", err)
	}
	if _, err := OpSum.For(Float64, 2); !errors.Is(err, ErrOp) || !strings.Contains(err.Error(), "MPI_SUM") {
		t.Fatalf("MPI_SUM on records of 2: %v, want ErrOp naming it", err)
	}
}

func TestInPlaceIsOnlyTheMarker(t *testing.T) {
	if !IsInPlace(InPlace) {
		t.Fatal("InPlace is not in place")
	}
	for _, b := range [][]byte{nil, {}, make([]byte, 0), make([]byte, 1)[:0]} {
		if IsInPlace(b) {
			t.Fatalf("%#v taken for InPlace", b)
		}
	}
}

func fmtv(v any) string { return fmt.Sprint(v) }

// TestVectorFormsMatchTheLoops checks every operation that has a vector
// form against the element-by-element loop, bit for bit, on lengths around
// the 64-byte blocks, with wrapping integers and fractional floats: in
// SSE2 and, where the processor has it, in AVX2.
func TestVectorFormsMatchTheLoops(t *testing.T) {
	for _, avx2 := range []bool{false, true} {
		if avx2 && !hasAVX2() {
			t.Log("this processor has no AVX2: its forms are not checked")
			continue
		}
		checked := 0
		for c := opSum; c <= opMaxLoc; c++ {
			for _, dt := range []Datatype{Byte, Int8, Int16, Int32, Int64, Uint16, Uint32, Uint64, Float32, Float64, Complex64, Complex128} {
				scalar := scalarOp(c, dt)
				vector := vectorOpIn(c, dt, scalar, avx2)
				if vector == nil {
					continue
				}
				checked++
				for _, n := range []int{0, 1, 7, 63, 64, 65, 130, 1000} {
					size := n * dt.Size()
					in, want, got := make([]byte, size), make([]byte, size), make([]byte, size)
					for i := range in {
						in[i] = byte(i*37 + 11)
						want[i] = byte(i*101 + 200)
					}
					finite(dt, in)
					finite(dt, want)
					copy(got, want)
					scalar(in, want)
					vector(in, got)
					if !bytes.Equal(got, want) {
						t.Errorf("op %d on %s, %d elements, AVX2 %v: the vector form differs from the loop", c, dt.Name(), n, avx2)
					}
				}
			}
		}
		// amd64 has sums of 12 types, products of 2 and the three bitwise
		// operations of 8 in SSE2; AVX2 adds minimum and maximum of 6.
		want := map[bool]map[string]int{false: {"amd64": 38}, true: {"amd64": 50}}[avx2][runtime.GOARCH]
		if checked != want {
			t.Errorf("%d operations have a vector form on %s (AVX2 %v), want %d", checked, runtime.GOARCH, avx2, want)
		}
	}
}

// finite replaces the NaNs and infinities that random bytes make of
// floating-point elements: which NaN a sum of two returns is the
// hardware's choice, not the operation's.
func finite(dt Datatype, b []byte) {
	switch dt {
	case Float32, Complex64:
		for i, v := range view[float32](b) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				view[float32](b)[i] = float32(i)
			}
		}
	case Float64, Complex128:
		for i, v := range view[float64](b) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				view[float64](b)[i] = float64(i)
			}
		}
	}
}
