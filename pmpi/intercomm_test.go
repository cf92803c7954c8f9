package pmpi

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
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

// TestSubgroupsError: an intercommunicator's CommCreate fails when a rank
// of either group marked its group bad, naming it first, or when two
// ranks of one group passed different subgroups; not when each group's
// ranks agree, whatever the other group passed.
func TestSubgroupsError(t *testing.T) {
	rec := func(color, key int, group ...int) []byte {
		return binary.LittleEndian.AppendUint64(colorOf(color, key, 8), (&sameGroup{group: group}).digest())
	}
	comm := &Comm{}
	a, b := rec(0, 0, 10, 12), rec(Undefined, 0, 10, 12)
	other := rec(0, 0, 11)
	bad := rec(badArgs, 0)
	for _, c := range []struct {
		all, theirs [][]byte
		want        string // "" for no error
	}{
		{[][]byte{a, b}, [][]byte{other, other}, ""},
		{[][]byte{a, b, rec(0, 1, 10)}, [][]byte{other}, "ranks 0 and 2 of the local group passed different groups"},
		{[][]byte{a, b}, [][]byte{other, rec(0, 0, 13)}, "ranks 0 and 1 of the remote group passed different groups"},
		{[][]byte{a, rec(0, 0, 10)}, [][]byte{other, bad}, "rank 1 of the remote group passed an invalid group"},
	} {
		err := subgroupsError("comm create", comm, slices.Concat(c.all...), slices.Concat(c.theirs...))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("error %v, want none", err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrArg)):
			t.Errorf("error %v, want ErrArg saying %q", err, c.want)
		}
	}
	if got, want := colorsOnly(slices.Concat(a, b), createRecord), slices.Concat(colorOf(0, 0, 0), colorOf(Undefined, 0, 0)); !slices.Equal(got, want) {
		t.Errorf("colorsOnly = %x, want %x", got, want)
	}
}
