package pmpi

import (
	"math/rand/v2"
	"slices"
	"testing"
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
			if b := slices.Concat(c.Blocks(nil, lo, hi-lo)...); !slices.Equal(b, whole[lo:hi]) {
				t.Fatalf("round %d: %s: the blocks of [%d, %d) hold %v, want %v", round, dt.Name(), lo, hi, b, whole[lo:hi])
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
