package pmpi

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestSpansAgainstWhole packs and unpacks random types in random pieces,
// as the engine does fragment by fragment, and checks the pieces against
// packing and unpacking the whole at once.
func TestSpansAgainstWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	mk := committer(t)
	for round := range 300 {
		dt, m, ok := randomType(rng)
		if !ok {
			continue
		}
		count := 1 + rng.IntN(4)
		if m.extent() <= 0 {
			count = 1
		}
		dt = mk(dt, nil)
		want := m.expected(count)
		buf := Bytes(seq(int(slices.Max(want)) + 1))
		whole := make([]byte, count*dt.t.size)
		dt.t.pack(whole, buf, count)
		cuts := []int{0, len(whole)}
		for range rng.IntN(6) {
			cuts = append(cuts, rng.IntN(len(whole)+1))
		}
		slices.Sort(cuts)
		got := make([]byte, len(whole))
		back := make([]byte, len(buf))
		ref := make([]byte, len(buf))
		order := rng.Perm(len(cuts) - 1) // unpacking in any order: fragments may arrive so
		for _, i := range order {
			lo, hi := cuts[i], cuts[i+1]
			// Each piece alone, with a guard after it: a copy past its end
			// would go unseen in a slice of the whole.
			piece := slices.Repeat([]byte{0xee}, hi-lo+16)
			dt.t.copySpan(piece[:hi-lo], buf, count, lo, true)
			if g := piece[hi-lo:]; !slices.Equal(g, slices.Repeat([]byte{0xee}, 16)) {
				t.Fatalf("round %d: %s: packing [%d, %d) wrote past the piece: %v", round, dt.Name(), lo, hi, g)
			}
			copy(got[lo:], piece[:hi-lo])
			// The blocks that hold the piece, for vectored transports.
			c := &conversion{user: buf, t: dt.t, count: count}
			parts := c.Blocks(nil, lo, hi-lo)
			if b := slices.Concat(parts...); !slices.Equal(b, whole[lo:hi]) {
				t.Fatalf("round %d: %s: the blocks of [%d, %d) hold %v, want %v", round, dt.Name(), lo, hi, b, whole[lo:hi])
			}
			if got, want := partOffsets(buf, parts), blocksIn(dt, count, lo, hi); !slices.Equal(got, want) {
				t.Fatalf("round %d: %s: the blocks of [%d, %d) lie at %v in the buffer, want %v", round, dt.Name(), lo, hi, got, want)
			}
			copy(piece, whole[lo:hi])
			dt.t.copySpan(piece[:hi-lo], back, count, lo, false)
		}
		if !slices.Equal(got, whole) {
			t.Fatalf("round %d: %s, count %d, cut at %v: pieces pack %v, want %v", round, dt.Name(), count, cuts, got, whole)
		}
		dt.t.unpack(ref, whole, count)
		if !slices.Equal(back, ref) {
			t.Fatalf("round %d: %s, count %d, cut at %v: pieces unpack %v, want %v", round, dt.Name(), count, cuts, back, ref)
		}
	}
}

// partOffsets gives each part's offset and length in buf, which it must
// lie in (offset -1 for one that does not).
func partOffsets(buf []byte, parts [][]byte) [][2]int {
	var out [][2]int
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	for _, p := range parts {
		at := int(uintptr(unsafe.Pointer(unsafe.SliceData(p))) - base)
		if at < 0 || at+len(p) > len(buf) {
			at = -1
		}
		out = append(out, [2]int{at, len(p)})
	}
	return out
}

// blocksIn is the offset in the buffer and length of each of
// Datatype.Blocks' blocks of count elements of dt, cut to the packed bytes
// [lo, hi).
func blocksIn(dt Datatype, count, lo, hi int) [][2]int {
	var out [][2]int
	pos := 0
	dt.Blocks(count, func(off, n int) {
		if a, b := max(pos, lo), min(pos+n, hi); a < b {
			out = append(out, [2]int{off + a - pos, b - a})
		}
		pos += n
	})
	return out
}
