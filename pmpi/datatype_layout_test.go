package pmpi

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// runsIn counts the runs of rs, those of loops' bodies included: the
// size of a type's description.
func runsIn(rs []run) int {
	n := len(rs)
	for _, r := range rs {
		n += runsIn(r.body)
	}
	return n
}

// TestCompactRuns checks that a type's description does not grow with
// its count where its blocks repeat at one stride: a vector, of numbers,
// structs or vectors, a resized type repeated, a subarray.
func TestCompactRuns(t *testing.T) {
	mk := committer(t)
	pair := mk(theAPI.TypeStruct([]int{1, 1}, []int{0, 8}, []Datatype{Float64, Int32}))
	for _, c := range []struct {
		name         string
		dt           Datatype
		segs, blocks int
	}{
		{"vector of 1e6", mk(theAPI.TypeVector(1_000_000, 1, 8, Float64)), 1, 1},
		{"vector of 1e6 blocks of 3", mk(theAPI.TypeVector(1_000_000, 3, -8, Float64)), 1, 1},
		{"contiguous 1e6 resized", mk(theAPI.TypeContiguous(1_000_000, mk(theAPI.TypeResized(Float64, 0, 16)))), 1, 1},
		// The struct's fields are two runs of the type map, one block.
		{"hvector of a struct", mk(theAPI.TypeHvector(1_000_000, 1, 64, pair)), 3, 1},
		{"contiguous of a struct", mk(theAPI.TypeContiguous(1_000_000, pair)), 3, 1},
		{"vector of padded Go structs", mk(theAPI.TypeVector(1_000_000, 2, 3, TypeOf[record]())), 6, 5},
		{"vector of vectors", mk(theAPI.TypeVector(1_000_000, 1, 10, mk(theAPI.TypeVector(2, 1, 2, Int32)))), 2, 2},
		{"vector of vectors of vectors", mk(theAPI.TypeVector(1_000_000, 1, 5, mk(theAPI.TypeVector(1000, 1, 3, mk(theAPI.TypeVector(2, 1, 2, Int32)))))), 3, 3},
		{"subarray 2-D", mk(theAPI.TypeSubarray([]int{4096, 4096}, []int{2000, 1000}, []int{7, 9}, OrderC, Float64)), 1, 1},
		{"subarray 2-D Fortran", mk(theAPI.TypeSubarray([]int{4096, 4096}, []int{2000, 1000}, []int{7, 9}, OrderFortran, Float64)), 1, 1},
		{"subarray 3-D", mk(theAPI.TypeSubarray([]int{64, 512, 512}, []int{30, 500, 400}, []int{1, 2, 3}, OrderC, Float32)), 2, 2},
	} {
		if segs, blocks := runsIn(c.dt.t.segs), runsIn(c.dt.t.blocks); segs != c.segs || blocks != c.blocks {
			t.Errorf("%s: %d runs in the type map and %d of blocks, want %d and %d", c.name, segs, blocks, c.segs, c.blocks)
		}
	}
}

// TestRunsAgainstHandPacked covers the ways runs merge and split: blocks
// that continue a stride, a block that continues a run's last block, a
// run of one element whose count continues its stride.
func TestRunsAgainstHandPacked(t *testing.T) {
	mk := committer(t)
	vec := mk(theAPI.TypeVector(2, 1, 2, Int32)) // 0, 2
	for _, c := range []struct {
		name  string
		dt    Datatype
		count int
		want  []int32
	}{
		{"vector of vectors", mk(theAPI.TypeVector(3, 1, 2, vec)), 1, []int32{0, 2, 6, 8, 12, 14}},
		{"vector of vectors, count 2", mk(theAPI.TypeVector(2, 2, 3, vec)), 2, []int32{0, 2, 3, 5, 9, 11, 12, 14, 15, 17, 18, 20, 24, 26, 27, 29}},
		{"negative stride, count 2", mk(theAPI.TypeResized(mk(theAPI.TypeHindexed([]int{1}, []int{32}, mk(theAPI.TypeVector(3, 1, -4, Int32)))), 0, 36)), 2, []int32{8, 4, 0, 17, 13, 9}},
		{"resized count continues the stride", mk(theAPI.TypeContiguous(2, mk(theAPI.TypeResized(vec, 0, 16)))), 2, []int32{0, 2, 4, 6, 8, 10, 12, 14}},
		{"a block continues a run's last", mk(theAPI.TypeIndexed([]int{1, 1, 1, 2}, []int{0, 3, 6, 7}, Int32)), 1, []int32{0, 3, 6, 7, 8}},
		{"then a run continues the joined block", mk(theAPI.TypeIndexed([]int{1, 1, 2, 2, 2}, []int{0, 3, 6, 10, 14}, Int32)), 1, []int32{0, 3, 6, 7, 10, 11, 14, 15}},
		{"a joined block off the run's stride", mk(theAPI.TypeIndexed([]int{2, 2, 1, 1}, []int{0, 4, 10, 11}, Int32)), 1, []int32{0, 1, 4, 5, 10, 11}},
		{"zero stride", mk(theAPI.TypeHvector(3, 1, 0, Int32)), 1, []int32{0, 0, 0}},
		{"struct of runs", mk(theAPI.TypeStruct([]int{1, 2}, []int{40, 0}, []Datatype{vec, Int32})), 1, []int32{10, 12, 0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := picks(t, seq(64), c.count, c.dt); !slices.Equal(got, c.want) {
				t.Errorf("%s packs %v, want %v", c.dt.Name(), got, c.want)
			}
		})
	}
}

// model is a type map the plain way, for random types: the byte offset
// of each int32 in order, and the bounds.
type model struct {
	offs   []int
	lb, ub int
}

func (m model) extent() int { return m.ub - m.lb }

// place is buildType on models: n copies of m at disp, per entry.
func place(entries ...struct {
	disp, n int
	m       model
}) model {
	var out model
	bounded := false
	for _, e := range entries {
		for k := range e.n {
			at := e.disp + k*e.m.extent()
			for _, o := range e.m.offs {
				out.offs = append(out.offs, at+o)
			}
			if !bounded || at+e.m.lb < out.lb {
				out.lb = at + e.m.lb
			}
			if !bounded || at+e.m.ub > out.ub {
				out.ub = at + e.m.ub
			}
			bounded = true
		}
	}
	return out
}

type entry = struct {
	disp, n int
	m       model
}

// TestRandomTypesAgainstModel builds random nestings of the
// constructors, with negative strides and resized extents, and checks
// that packing and partial unpacking pick the int32s the plain type map
// says.
// randomType builds a random type of int32 out of every constructor
// nested up to three deep, with its model, its data moved to the origin
// or after it; ok is false for a type with no data.
func randomType(rng *rand.Rand) (dt Datatype, m model, ok bool) {
	{
		dt, m = Int32, model{[]int{0}, 0, 4}
		for range 1 + rng.IntN(3) {
			ext := m.extent()
			switch rng.IntN(5) {
			case 0:
				n := rng.IntN(4)
				dt, _ = theAPI.TypeContiguous(n, dt)
				m = place(entry{0, n, m})
			case 1:
				count, bl, stride := rng.IntN(5), rng.IntN(3), rng.IntN(13)-6
				dt, _ = theAPI.TypeVector(count, bl, stride, dt)
				var es []entry
				for i := range count {
					es = append(es, entry{i * stride * ext, bl, m})
				}
				m = place(es...)
			case 2:
				count, bl, stride := rng.IntN(5), rng.IntN(3), 4*(rng.IntN(17)-8)
				dt, _ = theAPI.TypeHvector(count, bl, stride, dt)
				var es []entry
				for i := range count {
					es = append(es, entry{i * stride, bl, m})
				}
				m = place(es...)
			case 3:
				bls, displs := []int{rng.IntN(3), rng.IntN(3), rng.IntN(3)}, []int{rng.IntN(9) - 2, rng.IntN(9) - 2, rng.IntN(9) - 2}
				dt, _ = theAPI.TypeIndexed(bls, displs, dt)
				var es []entry
				for i := range bls {
					es = append(es, entry{displs[i] * ext, bls[i], m})
				}
				m = place(es...)
			case 4:
				lb, extent := m.lb-4*rng.IntN(3), m.extent()+4*(rng.IntN(5)-1)
				if extent <= 0 {
					extent = 4
				}
				dt, _ = theAPI.TypeResized(dt, lb, extent)
				m.lb, m.ub = lb, lb+extent
			}
		}
		if len(m.offs) == 0 {
			return dt, m, false
		}
		// Move the data to the buffer's origin or after it.
		lo := slices.Min(m.offs)
		if lo < 0 {
			dt, _ = theAPI.TypeHindexed([]int{1}, []int{-lo}, dt)
			m = place(entry{-lo, 1, m})
		}
	}
	return dt, m, true
}

// expected is what count elements of a random type pick from seq.
func (m model) expected(count int) []int32 {
	var want []int32
	for e := range count {
		for _, o := range m.offs {
			want = append(want, int32((e*m.extent()+o)/4))
		}
	}
	return want
}

func TestRandomTypesAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	mk := committer(t)
	for round := range 400 {
		dt, m, ok := randomType(rng)
		if !ok {
			continue
		}
		count := 1
		if m.extent() > 0 {
			count += rng.IntN(3)
		}
		want := m.expected(count)
		dt = mk(dt, nil)
		if lb, ext := dt.Extent(); lb != m.lb || ext != m.extent() {
			t.Fatalf("round %d: %s: lb %d extent %d, want %d %d", round, dt.Name(), lb, ext, m.lb, m.extent())
		}
		buf := seq(int(slices.Max(want)) + 1)
		got := picks(t, buf, count, dt)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: %s packs %v, want %v", round, dt.Name(), got, want)
		}
		// A truncated message fills the type map's first elements.
		keep := rng.IntN(len(want)) * 4
		back := make([]int32, len(buf))
		for i := range back {
			back[i] = -1
		}
		if n := dt.t.unpack(Bytes(back), Bytes(want)[:keep], count); n != keep {
			t.Fatalf("round %d: unpack took %d bytes, want %d", round, n, keep)
		}
		written := map[int32]bool{}
		for _, v := range want[:keep/4] {
			written[v] = true
		}
		for i, v := range back {
			if written[int32(i)] != (v == int32(i)) || (!written[int32(i)] && v != -1) {
				t.Fatalf("round %d: %s: after unpacking %d bytes, int32 %d is %d", round, dt.Name(), keep, i, v)
			}
		}
	}
}

// TestLoopsElementsAndExternal checks the readers of a type map with
// loops: GetElements of partial data ending inside a repetition, and
// external32, against a struct of a double and an int32 packed by hand.
func TestLoopsElementsAndExternal(t *testing.T) {
	type pairGo struct {
		X float64
		N int32
	}
	vec := committer(t)(theAPI.TypeVector(3, 1, 2, TypeOf[pairGo]())) // pairs 0, 2 and 4; extent 5 pairs
	picked := []int{0, 2, 4, 5, 7, 9}                                 // of a count of 2
	for _, c := range []struct{ bytes, want int }{
		{8, 1}, {12, 2}, {20, 3}, {22, Undefined}, {36, 6}, {36 + 20, 9},
	} {
		if got := vec.Elements(c.bytes); got != c.want {
			t.Errorf("%d bytes of %s: %d elements, want %d", c.bytes, vec.Name(), got, c.want)
		}
	}
	in := make([]pairGo, 12)
	for i := range in {
		in[i] = pairGo{float64(i) + 0.5, int32(-i)}
	}
	var want []byte
	for _, i := range picked {
		want = binary.BigEndian.AppendUint64(want, math.Float64bits(in[i].X))
		want = binary.BigEndian.AppendUint32(want, uint32(in[i].N))
	}
	size, err := theAPI.PackExternalSize(External32, 2, vec)
	if err != nil || size != len(want) {
		t.Fatalf("external size %d, %v; want %d", size, err, len(want))
	}
	out := make([]byte, size)
	if _, err := theAPI.PackExternal(External32, Bytes(in), 2, vec, out, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("external32\n%x\nwant\n%x", out, want)
	}
	back := make([]pairGo, 12)
	if _, err := theAPI.UnpackExternal(External32, out, 0, Bytes(back), 2, vec); err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if w := (pairGo{}); slices.Contains(picked, i) && back[i] != in[i] || !slices.Contains(picked, i) && back[i] != w {
			t.Errorf("unpacked pair %d: %+v", i, back[i])
		}
	}
}

// TestBlockSizes packs blocks of every length from 1 to 40 bytes, alone
// and repeated at a stride, against their bytes copied one by one, and
// checks that unpacking them writes nothing between them.
func TestBlockSizes(t *testing.T) {
	mk := committer(t)
	buf := make([]byte, 512)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for n := 1; n <= 40; n++ {
		for _, dt := range []Datatype{
			mk(theAPI.TypeHindexed([]int{n, 1}, []int{3, 60}, Byte)), // a block of n, one of 1
			mk(theAPI.TypeHvector(5, n, n+9, Byte)),                  // a run of blocks of n
		} {
			var want []byte
			dt.Blocks(2, func(off, k int) { want = append(want, buf[off:off+k]...) })
			got := make([]byte, 2*dt.Size())
			if _, err := theAPI.Pack(buf, 2, dt, got, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: packed %x, want %x", dt.Name(), got, want)
			}
			back := make([]byte, len(buf))
			if _, err := theAPI.Unpack(got, 0, back, 2, dt); err != nil {
				t.Fatal(err)
			}
			inBlock := make([]bool, len(buf))
			dt.Blocks(2, func(off, k int) {
				if !bytes.Equal(back[off:off+k], buf[off:off+k]) {
					t.Errorf("%s: unpacked %x at %d, want %x", dt.Name(), back[off:off+k], off, buf[off:off+k])
				}
				for i := off; i < off+k; i++ {
					inBlock[i] = true
				}
			})
			for i, b := range back {
				if !inBlock[i] && b != 0 {
					t.Fatalf("%s: unpacking wrote %#x at %d, outside every block", dt.Name(), b, i)
				}
			}
		}
	}
}
