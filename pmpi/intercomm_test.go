package pmpi

import (
	"math"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

// TestHiddenTag: every caller's tag maps to an int32 tag below the coll
// framework's and the library's own, and nearby tags stay apart.
func TestHiddenTag(t *testing.T) {
	lowest := coll.TagShared
	seen := map[int]int{}
	for _, tag := range []int{0, 1, 2, 126, 127, 1000, 1 << 20, TagUB - 127, TagUB - 126, TagUB - 1, TagUB} {
		h := hiddenTag(tag)
		if h < math.MinInt32 || h > tagUserBase || h >= lowest || h == tagInterLeaders || h == tagInterBcast {
			t.Errorf("hiddenTag(%d) = %d: outside [%d, %d] or a tag the library uses", tag, h, math.MinInt32, tagUserBase)
		}
		if other, ok := seen[h]; ok && other+TagUB+1+tagUserBase != tag {
			t.Errorf("tags %d and %d share hidden tag %d", other, tag, h)
		}
		seen[h] = tag
	}
	for tag := range 10000 {
		if h := hiddenTag(tag); h != tagUserBase-tag {
			t.Fatalf("hiddenTag(%d) = %d, want %d", tag, h, tagUserBase-tag)
		}
	}
}

// TestCompareInter: two intercommunicators compare by both groups; an
// inter- and an intracommunicator are Unequal.
func TestCompareInter(t *testing.T) {
	inter := func(local, remote []int) *Comm { return &Comm{group: remote, inter: &interPart{local: local}} }
	a := inter([]int{0, 2}, []int{1, 3})
	for _, tc := range []struct {
		b    *Comm
		want Comparison
	}{
		{inter([]int{0, 2}, []int{1, 3}), Congruent},
		{inter([]int{2, 0}, []int{1, 3}), Similar},
		{inter([]int{0, 2}, []int{3, 1}), Similar},
		{inter([]int{0, 2}, []int{1}), Unequal},
		{inter([]int{1, 3}, []int{0, 2}), Unequal},
		{&Comm{group: []int{0, 1, 2, 3}}, Unequal},
	} {
		if got := compareInter(a, tc.b); got != tc.want {
			t.Errorf("compare with local %v remote %v: %v, want %v", tc.b.localGroup(), tc.b.group, got, tc.want)
		}
	}
}
