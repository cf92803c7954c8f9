package pmpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// seq is n int32s 0, 1, ...: packing them shows which elements a type picks.
func seq(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// committer returns a function that commits a constructor's type, or
// fails t with its error.
func committer(t *testing.T) func(Datatype, error) Datatype {
	return func(dt Datatype, err error) Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := theAPI.TypeCommit(dt); err != nil {
			t.Fatal(err)
		}
		return dt
	}
}

// picks packs count elements of dt from buf and returns the int32s packed.
func picks(t *testing.T, buf []int32, count int, dt Datatype) []int32 {
	t.Helper()
	size, err := theAPI.PackSize(count, dt)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, size)
	pos, err := theAPI.Pack(Bytes(buf), count, dt, out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if pos != size {
		t.Fatalf("pack ended at %d, want %d", pos, size)
	}
	got := view[int32](out)
	// Unpacking into a zeroed buffer and packing again gives the same bytes.
	back := make([]int32, len(buf))
	if _, err := theAPI.Unpack(out, 0, Bytes(back), count, dt); err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if back[v] != v {
			t.Fatalf("unpack put %d at %d, want %d", back[v], v, v)
		}
	}
	return slices.Clone(got)
}

func TestConstructorsAgainstHandPacked(t *testing.T) {
	mk := committer(t)
	vec := mk(theAPI.TypeVector(3, 2, 4, Int32))
	rev, err := theAPI.TypeVector(3, 1, -2, Int32) // elements at 0, -2, -4
	if err != nil {
		t.Fatal(err)
	}
	shifted := mk(theAPI.TypeHindexed([]int{1}, []int{16}, rev)) // moved to 4, 2, 0
	sub3C := mk(theAPI.TypeSubarray([]int{2, 3, 4}, []int{1, 2, 2}, []int{1, 1, 2}, OrderC, Int32))
	sub3F := mk(theAPI.TypeSubarray([]int{2, 3, 4}, []int{1, 2, 2}, []int{1, 1, 2}, OrderFortran, Int32))
	pair, _ := theAPI.TypeVector(2, 1, 2, Int32)
	for _, c := range []struct {
		name  string
		dt    Datatype
		count int
		want  []int32
	}{
		{"contiguous", mk(theAPI.TypeContiguous(3, Int32)), 2, []int32{0, 1, 2, 3, 4, 5}},
		{"vector", vec, 1, []int32{0, 1, 4, 5, 8, 9}},
		{"vector count 2", vec, 2, []int32{0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}},
		{"vector, negative stride", shifted, 1, []int32{4, 2, 0}},
		{"hvector", mk(theAPI.TypeHvector(2, 1, 12, Int32)), 1, []int32{0, 3}},
		{"indexed, unsorted", mk(theAPI.TypeIndexed([]int{2, 1, 0}, []int{5, 0, 1}, Int32)), 1, []int32{5, 6, 0}},
		{"hindexed", mk(theAPI.TypeHindexed([]int{1, 2}, []int{8, 0}, Int32)), 1, []int32{2, 0, 1}},
		{"indexed block", mk(theAPI.TypeIndexedBlock(2, []int{4, 1}, Int32)), 1, []int32{4, 5, 1, 2}},
		{"hindexed block", mk(theAPI.TypeHindexedBlock(1, []int{12, 4}, Int32)), 1, []int32{3, 1}},
		{"subarray 3-D C", sub3C, 1, []int32{18, 19, 22, 23}},
		{"subarray 3-D C, count 2", sub3C, 2, []int32{18, 19, 22, 23, 42, 43, 46, 47}},
		{"subarray 3-D Fortran", sub3F, 1, []int32{15, 17, 21, 23}},
		{"resized, count 3", mk(theAPI.TypeResized(Int32, 0, 12)), 3, []int32{0, 3, 6}},
		{"resized vector interleaves", mk(theAPI.TypeResized(pair, 0, 4)), 3, []int32{0, 2, 1, 3, 2, 4}},
		{"struct", mk(theAPI.TypeStruct([]int{1, 2}, []int{20, 4}, []Datatype{Int32, vec})), 1, []int32{5, 1, 2, 5, 6, 9, 10, 11, 12, 15, 16, 19, 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := picks(t, seq(64), c.count, c.dt); !slices.Equal(got, c.want) {
				t.Errorf("%s packs %v, want %v", c.dt.Name(), got, c.want)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	mk := committer(t)
	vec := mk(theAPI.TypeVector(3, 2, 4, Int32))
	if lb, ext := vec.Extent(); lb != 0 || ext != 40 || vec.Size() != 24 {
		t.Errorf("vector: lb %d extent %d size %d, want 0 40 24", lb, ext, vec.Size())
	}
	rev, _ := theAPI.TypeVector(3, 1, -2, Float64)
	if lb, ext := rev.Extent(); lb != -32 || ext != 40 {
		t.Errorf("reversed vector: lb %d extent %d, want -32 40", lb, ext)
	}
	if lb, ext := rev.TrueExtent(); lb != -32 || ext != 40 {
		t.Errorf("reversed vector: true lb %d extent %d, want -32 40", lb, ext)
	}
	r := mk(theAPI.TypeResized(vec, -4, 64))
	if lb, ext := r.Extent(); lb != -4 || ext != 64 {
		t.Errorf("resized: lb %d extent %d", lb, ext)
	}
	if lb, ext := r.TrueExtent(); lb != 0 || ext != 40 {
		t.Errorf("resized: true lb %d extent %d, want 0 40", lb, ext)
	}
	sub := mk(theAPI.TypeSubarray([]int{4, 5}, []int{2, 2}, []int{1, 1}, OrderC, Float64))
	if lb, ext := sub.Extent(); lb != 0 || ext != 160 {
		t.Errorf("subarray: lb %d extent %d, want 0 160", lb, ext)
	}
	if !mk(theAPI.TypeVector(2, 2, 2, Float64)).Contiguous() || vec.Contiguous() {
		t.Error("a vector with no gaps is contiguous, one with gaps is not")
	}
}

func TestBlocks(t *testing.T) {
	mk := committer(t)
	v := mk(theAPI.TypeVector(2, 1, 2, Int32))
	type block struct{ off, len int }
	var got []block
	v.Blocks(2, func(off, n int) { got = append(got, block{off, n}) })
	// Elements lie 12 bytes apart: the second's first block continues the first's last.
	want := []block{{0, 4}, {8, 8}, {20, 4}}
	if !slices.Equal(got, want) {
		t.Errorf("blocks %v, want %v", got, want)
	}
}

type padded struct {
	A int8
	B float64
	C [2]int16
	D struct {
		X int32
		Y [3]uint8
	}
}

func TestGoStruct(t *testing.T) {
	dt := TypeOf[padded]()
	if !dt.Committed() || dt.Contiguous() {
		t.Fatalf("%s: committed %v contiguous %v", dt.Name(), dt.Committed(), dt.Contiguous())
	}
	if dt.Size() != 1+8+4+4+3 {
		t.Errorf("size %d, want 20 (no padding)", dt.Size())
	}
	if _, ext := dt.Extent(); ext != int(unsafe.Sizeof(padded{})) {
		t.Errorf("extent %d, want %d", ext, unsafe.Sizeof(padded{}))
	}
	if TypeOf[padded]() != dt {
		t.Error("TypeOf builds the struct's type again")
	}
	in := []padded{{A: -1, B: 2.5, C: [2]int16{3, -4}}, {A: 5, B: -6}}
	in[0].D.X, in[0].D.Y = 7, [3]uint8{8, 9, 10}
	in[1].D.X = -11
	var want bytes.Buffer
	for _, r := range in {
		_ = binary.Write(&want, binary.LittleEndian, r.A)
		_ = binary.Write(&want, binary.LittleEndian, r.B)
		_ = binary.Write(&want, binary.LittleEndian, r.C)
		_ = binary.Write(&want, binary.LittleEndian, r.D.X)
		_ = binary.Write(&want, binary.LittleEndian, r.D.Y)
	}
	out := make([]byte, 2*dt.Size())
	if _, err := theAPI.Pack(Bytes(in), 2, dt, out, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want.Bytes()) {
		t.Errorf("packed\n%x\nwant\n%x", out, want.Bytes())
	}
	back := make([]padded, 2)
	if _, err := theAPI.Unpack(out, 0, Bytes(back), 2, dt); err != nil || !reflect.DeepEqual(back, in) {
		t.Errorf("unpacked %+v, %v", back, err)
	}
	if got := dt.Elements(2 * dt.Size()); got != 2*(1+1+2+1+3) {
		t.Errorf("elements of two records %d, want 16", got)
	}
	// A struct with no padding moves as it lies.
	type tight struct{ A, B float64 }
	if !TypeOf[tight]().Contiguous() {
		t.Error("a struct of two float64 is not contiguous")
	}
}

func TestGoTypeRefused(t *testing.T) {
	type rec struct {
		X    float64
		Name string
	}
	type outer struct {
		In [2]struct{ P *int }
	}
	for _, c := range []struct {
		dt   Datatype
		want string
	}{
		{TypeOf[rec](), "element type pmpi.rec: field Name is a string; allowed: fixed-size numbers, arrays and structs of them"},
		{TypeOf[outer](), "field In: field P is a pointer"},
		{TypeOf[bool](), "element type bool: is a bool"},
		{TypeOf[*int](), "element type *int: is a pointer"},
		{TypeOf[any](), "element type interface {}: is an interface"},
	} {
		if c.dt.Committed() || c.dt.Size() != 0 {
			t.Errorf("%s is usable", c.dt.Name())
		}
		_, err := theAPI.Pack(nil, 1, c.dt, nil, 0)
		if !errors.Is(err, ErrType) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pack with %s: %v, want ErrType saying %q", c.dt.Name(), err, c.want)
		}
	}
}

func TestExternal32(t *testing.T) {
	b, err := theAPI.PackExternalSize(External32, 2, Int32)
	if err != nil || b != 8 {
		t.Fatalf("size %d, %v", b, err)
	}
	out := make([]byte, 8)
	if _, err := theAPI.PackExternal(External32, Bytes([]int32{1, -2}), 2, Int32, out, 0); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}; !bytes.Equal(out, want) {
		t.Errorf("int32s: %x, want %x", out, want)
	}
	type mixed struct {
		A int16
		B float64
		P Pair[float64]
		C complex64
	}
	in := []mixed{{A: 0x0102, B: 1.5, P: Pair[float64]{Value: -2, Index: 7}, C: complex(1, -1)}}
	dt := TypeOf[mixed]()
	n, _ := theAPI.PackExternalSize(External32, 1, dt)
	ext := make([]byte, n)
	if _, err := theAPI.PackExternal(External32, Bytes(in), 1, dt, ext, 0); err != nil {
		t.Fatal(err)
	}
	var want []byte
	want = binary.BigEndian.AppendUint16(want, 0x0102)
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(1.5))
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(-2))
	want = binary.BigEndian.AppendUint32(want, 7)
	want = binary.BigEndian.AppendUint32(want, math.Float32bits(1))
	want = binary.BigEndian.AppendUint32(want, math.Float32bits(-1))
	if !bytes.Equal(ext, want) {
		t.Errorf("struct:\n%x\nwant\n%x", ext, want)
	}
	back := make([]mixed, 1)
	if _, err := theAPI.UnpackExternal(External32, ext, 0, Bytes(back), 1, dt); err != nil || back[0] != in[0] {
		t.Errorf("unpacked %+v, %v", back, err)
	}
	// A predefined pair is 12 bytes in external32, 16 in Go.
	p := make([]byte, 12)
	if _, err := theAPI.PackExternal(External32, Bytes([]Pair[float64]{{Value: 1, Index: 2}}), 1, Float64Int, p, 0); err != nil {
		t.Fatal(err)
	}
	if want := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, math.Float64bits(1)), 2); !bytes.Equal(p, want) {
		t.Errorf("pair: %x, want %x", p, want)
	}
	if _, err := theAPI.PackExternal("native", nil, 0, Int32, nil, 0); !errors.Is(err, ErrArg) || !strings.Contains(err.Error(), `want "external32"`) {
		t.Errorf("another representation: %v", err)
	}
}

// C's long, unsigned long and wchar_t are 4, 4 and 2 bytes in external32,
// derived types of them too; they reduce as the Go types of their size.
func TestExternal32OfCTypes(t *testing.T) {
	vec, err := theAPI.TypeVector(2, 1, 2, CLong)
	if err != nil || theAPI.TypeCommit(vec) != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		dt   Datatype
		want []byte
	}{
		{"long", Bytes([]int64{-2, 0x01020304}), CLong, []byte{0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4}},
		{"unsigned long", Bytes([]uint64{0xfffffffe, 5}), CUnsignedLong, []byte{0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 5}},
		{"wchar", Bytes([]int32{'A', 0x20ac}), CWchar, []byte{0, 'A', 0x20, 0xac}},
		{"a vector of long", Bytes([]int64{-3, 99, 4, 99}), vec, []byte{0xff, 0xff, 0xff, 0xfd, 0, 0, 0, 4}},
	} {
		count := 2
		if c.dt == vec {
			count = 1
		}
		if n, err := theAPI.PackExternalSize(External32, count, c.dt); err != nil || n != len(c.want) {
			t.Errorf("%s: size %d, %v; want %d", c.name, n, err, len(c.want))
			continue
		}
		ext := make([]byte, len(c.want))
		if _, err := theAPI.PackExternal(External32, c.in, count, c.dt, ext, 0); err != nil || !bytes.Equal(ext, c.want) {
			t.Errorf("%s: packed %x, %v; want %x", c.name, ext, err, c.want)
			continue
		}
		back := make([]byte, len(c.in))
		if c.dt == vec {
			copy(back, c.in) // the gaps stay as they were
		}
		if _, err := theAPI.UnpackExternal(External32, ext, 0, back, count, c.dt); err != nil || !bytes.Equal(back, c.in) {
			t.Errorf("%s: unpacked %x, %v; want %x", c.name, back, err, c.in)
		}
	}
	ext := make([]byte, 8)
	for _, c := range []struct {
		in []byte
		dt Datatype
		v  string
	}{
		{Bytes([]int64{1 << 40}), CLong, "MPI_LONG value 1099511627776"},
		{Bytes([]int64{-1<<31 - 1}), CLong, "MPI_LONG value -2147483649"},
		{Bytes([]uint64{1 << 32}), CUnsignedLong, "MPI_UNSIGNED_LONG value 4294967296"},
		{Bytes([]int32{-1}), CWchar, "MPI_WCHAR value 4294967295"},
	} {
		if _, err := theAPI.PackExternal(External32, c.in, 1, c.dt, ext, 0); !errors.Is(err, ErrArg) || !strings.Contains(err.Error(), c.v+" does not fit") {
			t.Errorf("%s: %v, want ErrArg naming %s", c.dt.Name(), err, c.v)
		}
	}
	if _, err := theAPI.PackExternal(External32, Bytes([]int64{-1 << 31}), 1, CLong, ext, 0); err != nil {
		t.Errorf("the least 4-byte long: %v", err)
	}
	if op, msg := bind(OpSum, CLong); op == nil {
		t.Errorf("Sum on MPI_LONG: %s", msg)
	}
	if op, msg := bind(OpMinLoc, CLongInt); op == nil {
		t.Errorf("MinLoc on MPI_LONG_INT: %s", msg)
	}
}

func TestElementsOfPartialData(t *testing.T) {
	mk := committer(t)
	dt := mk(theAPI.TypeStruct([]int{1, 1}, []int{0, 8}, []Datatype{Float64, Int32}))
	for _, c := range []struct{ n, want int }{{0, 0}, {8, 1}, {12, 2}, {20, 3}, {24, 4}, {10, Undefined}, {14, Undefined}} {
		if got := dt.Elements(c.n); got != c.want {
			t.Errorf("elements in %d bytes: %d, want %d", c.n, got, c.want)
		}
	}
	if got := dt.countOf(24); got != 2 {
		t.Errorf("count of 24 bytes: %d, want 2", got)
	}
	if got := dt.countOf(20); got != Undefined {
		t.Errorf("count of 20 bytes: %d, want Undefined", got)
	}
	for _, c := range []struct {
		dt      Datatype
		n, want int
	}{{Int32, 8, 2}, {Int32, 7, Undefined}, {Byte, 7, 7}, {Float64, 12, Undefined}, {Complex128, 32, 2}} {
		if got := c.dt.countOf(c.n); got != c.want {
			t.Errorf("count of %d bytes of %v: %d, want %d", c.n, c.dt, got, c.want)
		}
	}
	vec := mk(theAPI.TypeVector(2, 1, 3, Float32))
	if got := vec.Elements(12); got != 3 {
		t.Errorf("vector of float32, 12 bytes: %d elements, want 3", got)
	}
}

func TestConstructorErrors(t *testing.T) {
	mk := committer(t)
	freed := mk(theAPI.TypeContiguous(2, Int32))
	if err := theAPI.TypeFree(freed); err != nil {
		t.Fatal(err)
	}
	uncommitted, _ := theAPI.TypeContiguous(2, Int32)
	for _, c := range []struct {
		name  string
		err   error
		class error
		want  string
	}{
		{"negative count", second(theAPI.TypeContiguous(-1, Int32)), ErrCount, "count -1 is negative (want 0 or more)"},
		{"vector negative count", second(theAPI.TypeVector(-2, 1, 1, Int32)), ErrCount, "count -2 is negative"},
		{"negative block length", second(theAPI.TypeVector(2, -1, 1, Int32)), ErrArg, "block length -1 is negative (want 0 or more)"},
		{"indexed negative block", second(theAPI.TypeIndexed([]int{1, -3}, []int{0, 4}, Int32)), ErrArg, "block length -3 of block 1"},
		{"indexed lengths", second(theAPI.TypeIndexed([]int{1}, []int{0, 4}, Int32)), ErrArg, "1 block lengths and 2 displacements"},
		{"struct lengths", second(theAPI.TypeStruct([]int{1}, []int{0}, nil)), ErrArg, "0 types"},
		{"null old type", second(theAPI.TypeContiguous(1, Datatype{})), ErrType, "MPI_DATATYPE_NULL"},
		{"freed old type", second(theAPI.TypeContiguous(1, freed)), ErrType, "was freed"},
		{"subarray start", second(theAPI.TypeSubarray([]int{4}, []int{2}, []int{3}, OrderC, Int32)), ErrArg, "start 3 of dimension 0 (want 0 to 2"},
		{"subarray order", second(theAPI.TypeSubarray([]int{4}, []int{2}, []int{0}, Order(7), Int32)), ErrArg, "want OrderC or OrderFortran"},
		{"subarray no dims", second(theAPI.TypeSubarray(nil, nil, nil, OrderC, Int32)), ErrArg, "no dimensions"},
		{"pack uncommitted", second(theAPI.Pack(make([]byte, 8), 1, uncommitted, make([]byte, 8), 0)), ErrType, "is not committed"},
		{"pack freed", second(theAPI.Pack(make([]byte, 8), 1, freed, make([]byte, 8), 0)), ErrType, "was freed"},
		{"pack short buffer", second(theAPI.Pack(make([]byte, 4), 1, mk(theAPI.TypeVector(2, 1, 2, Int32)), make([]byte, 8), 0)), ErrBuffer, "they need 12 bytes"},
		{"pack below origin", second(theAPI.Pack(make([]byte, 64), 1, mk(theAPI.TypeVector(2, 1, -2, Int32)), make([]byte, 8), 0)), ErrBuffer, "8 bytes below the buffer's first byte"},
		{"pack short output", second(theAPI.Pack(make([]byte, 8), 2, Int32, make([]byte, 6), 0)), ErrTruncate, "take 8 bytes"},
		{"free predefined", theAPI.TypeFree(Float64), ErrType, "predefined"},
		{"free twice", theAPI.TypeFree(freed), ErrType, "type free: the datatype contiguous(2,MPI_INT32_T) was freed"},
		{"commit freed", theAPI.TypeCommit(freed), ErrType, "type commit: the datatype contiguous(2,MPI_INT32_T) was freed"},
		{"free Go type", theAPI.TypeFree(TypeOf[padded]()), ErrType, "Go type"},
		// Extents and counts whose bytes no buffer holds: the products
		// that check a buffer would overflow and let the copy run wild.
		{"resized huge extent", second(theAPI.TypeResized(mk(theAPI.TypeVector(2, 1, 2, Float64)), 0, 1<<62-8)), ErrArg, "want each, and their sum, within"},
		{"resized huge bound", second(theAPI.TypeResized(Float64, -(1 << 55), 8)), ErrArg, "lower bound -36028797018963968"},
		{"subarray huge extent", second(theAPI.TypeSubarray([]int{1 << 42, 2}, []int{1, 1}, []int{0, 0}, OrderC, mk(theAPI.TypeContiguous(1<<20, Byte)))),
			ErrArg, "spans more than the 1125899906842624 bytes"},
		{"pack huge count", second(theAPI.Pack(make([]byte, 32), 1<<60+1, mk(theAPI.TypeIndexed([]int{1, 1}, []int{1, 0}, Float64)), make([]byte, 16), 0)),
			ErrCount, "span more than the 4611686018427387904 bytes"},
		{"unpack huge count", second(theAPI.Unpack(make([]byte, 16), 0, make([]byte, 32), 1<<60+1, mk(theAPI.TypeIndexed([]int{1, 1}, []int{1, 0}, Float64)))),
			ErrCount, "span more than"},
		{"pack huge count of a zero extent", second(theAPI.Pack(make([]byte, 8), 1<<61, mk(theAPI.TypeResized(Float64, 0, 0)), make([]byte, 16), 0)),
			ErrCount, "span more than"},
		{"pack size huge", second(theAPI.PackSize(1<<61, Float64)), ErrCount, "pack to more than"},
	} {
		if !errors.Is(c.err, c.class) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %v saying %q", c.name, c.err, c.class, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestOpsOnStructTypes(t *testing.T) {
	type gap struct {
		A int32
		B float64
	}
	dt := TypeOf[gap]()
	user, _ := theAPI.OpCreate(func(in, inout []byte, count int, _ Datatype) {
		a, b := view[gap](in)[:count], view[gap](inout)[:count]
		for i := range b {
			b[i].A += a[i].A
			b[i].B = max(a[i].B, b[i].B)
		}
	}, true)
	o, why := bind(user, dt)
	if why != "" {
		t.Fatal(why)
	}
	pack := func(v []gap) []byte {
		out := make([]byte, len(v)*dt.Size())
		if _, err := theAPI.Pack(Bytes(v), len(v), dt, out, 0); err != nil {
			t.Fatal(err)
		}
		return out
	}
	inout := pack([]gap{{1, 5}, {2, -1}})
	o.Reduce(pack([]gap{{10, 3}, {20, 4}}), inout)
	got := make([]gap, 2)
	if _, err := theAPI.Unpack(inout, 0, Bytes(got), 2, dt); err != nil {
		t.Fatal(err)
	}
	if want := []gap{{11, 5}, {22, 4}}; !slices.Equal(got, want) {
		t.Errorf("user op over a padded struct: %v, want %v", got, want)
	}
	if _, why := bind(OpSum, dt); !strings.Contains(why, "mix basic types") {
		t.Errorf("sum over a mixed struct: %q", why)
	}
	type xyz struct {
		X float32
		V [2]float32
	}
	o, why = bind(OpSum, TypeOf[xyz]())
	if why != "" {
		t.Fatal(why)
	}
	b := Bytes([]xyz{{1, [2]float32{2, 3}}})
	o.Reduce(Bytes([]xyz{{10, [2]float32{20, 30}}}), b)
	if got := view[xyz](b)[0]; got != (xyz{11, [2]float32{22, 33}}) {
		t.Errorf("sum over a struct of float32: %v", got)
	}
}

// TestTypeNames reads each constructor's name, made when first asked
// for: from the arguments as the call had them, though the caller has
// changed its slices since, and once for all readers.
func TestTypeNames(t *testing.T) {
	must := func(d Datatype, err error) Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	lens, displs := []int{2, 1}, []int{4, 0}
	sizes, subsizes, starts := []int{4, 5}, []int{2, 2}, []int{1, 1}
	structTypes := []Datatype{Int32, Float64}
	vec := must(theAPI.TypeVector(3, 1, 4, Float64))
	cases := []struct {
		d    Datatype
		want string
	}{
		{must(theAPI.TypeContiguous(3, Int32)), "contiguous(3,MPI_INT32_T)"},
		{vec, "vector(3,1,4,MPI_DOUBLE)"},
		{must(theAPI.TypeHvector(2, 1, 16, vec)), "hvector(2,1,16,vector(3,1,4,MPI_DOUBLE))"},
		{must(theAPI.TypeIndexed(lens, displs, Int32)), "indexed(2,1;4,0;MPI_INT32_T)"},
		{must(theAPI.TypeIndexedBlock(2, displs, Int32)), "indexed_block(2,2;4,0;MPI_INT32_T)"},
		{must(theAPI.TypeStruct(lens, displs, structTypes)), "struct(2*MPI_INT32_T@4,1*MPI_DOUBLE@0)"},
		{must(theAPI.TypeSubarray(sizes, subsizes, starts, OrderC, Int32)), "subarray(4,5;2,2;1,1,C,MPI_INT32_T)"},
		{must(theAPI.TypeResized(Int32, -4, 12)), "resized(MPI_INT32_T,-4,12)"},
		{must(theAPI.TypeDup(Float64)), "MPI_DOUBLE"},
		{must(theAPI.TypeDup(vec)), "vector(3,1,4,MPI_DOUBLE)"},
	}
	for _, s := range [][]int{lens, displs, sizes, subsizes, starts} {
		for i := range s {
			s[i] = 99
		}
	}
	structTypes[0] = Byte
	for _, c := range cases {
		names := make(chan string, 4)
		for range cap(names) {
			go func() { names <- c.d.Name() }()
		}
		for range cap(names) {
			if got := <-names; got != c.want {
				t.Errorf("name %q, want %q", got, c.want)
			}
		}
	}
}
