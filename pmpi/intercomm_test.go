package pmpi

import (
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
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

// leaderRun runs IntercommCreate's first round on a group of
// len(leaders) goroutines, rank r passing leaders[r] (out of range if not
// below len(leaders)), the leader's swap answering with theirs. It
// returns each rank's error, the ranks that swapped with what they sent,
// the remote group and reduced word (its own rank, at first) each rank
// read, and the group's reductions.
func leaderRun(leaders []int, theirs []byte) (errs []error, swapped map[int][]uint32, remote [][]int, words []uint32, reductions int) {
	n := len(leaders)
	a := newRanksAllreduce(n)
	errs, remote, words = make([]error, n), make([][]int, n), make([]uint32, n)
	group := make([]int, n)
	for r := range group {
		group[r] = 10 + r
	}
	swapped = map[int][]uint32{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() {
			swap := func(mine []byte) ([]byte, error) {
				mu.Lock()
				defer mu.Unlock()
				words := make([]uint32, len(mine)/4)
				getWords(mine, words)
				swapped[r] = words
				return theirs, nil
			}
			x := &leaderRound{reduce: a.at(r), swap: swap, rank: r, leader: leaders[r], bad: leaders[r] >= n, group: group}
			x.across = func(mine []byte) ([]byte, error) {
				if r == x.leader {
					return swap(mine)
				}
				return theirs, nil
			}
			maxOp, _ := bind(OpMax, Uint32)
			w := []uint32{uint32(r)}
			errs[r] = x.allreduceWords(w, maxOp)
			remote[r], words[r] = x.remote, w[0]
		})
	}
	wg.Wait()
	return errs, swapped, remote, words, a.calls
}

// IntercommCreate's first round checks the local leaders on the group's
// reduction: a correct call makes no other exchange within the group; a
// leader out of range at any rank, or leaders that differ, fail every
// rank of the group, and the other group's leader hears of it where the
// ranks in range agree on who the leader is.
func TestLeaderRound(t *testing.T) {
	ok := slices.Concat(putWords([]uint32{leaderOK, 7}), encodeRanks([]int{20, 21}))
	for _, c := range []struct {
		name    string
		leaders []int
		theirs  []byte
		want    string // every rank's error; "" for none
		swapped map[int][]uint32
		calls   int
	}{
		{"agree", []int{1, 1, 1}, ok, "", map[int][]uint32{1: {leaderOK, 2, 10, 11, 12}}, 1},
		{"one out of range", []int{0, 5, 0, 0}, ok, "rank 1 of the local group passed an invalid local leader", map[int][]uint32{0: {leaderBad, 1}}, 1},
		{"the leader's out of range", []int{3, 0, 0}, ok, "rank 0 of the local group passed an invalid local leader", map[int][]uint32{0: {leaderBad, 0}}, 1},
		{"all out of range", []int{4, 4}, ok, "rank 0 of the local group passed an invalid local leader", map[int][]uint32{}, 1},
		{"out of range and differ", []int{0, 9, 2}, ok, "rank 1 of the local group passed an invalid local leader", map[int][]uint32{}, 1},
		{"differ", []int{0, 0, 2, 0}, ok, "rank 2 of the local group passed local leader 2 where rank 0 passed 0 (MPI requires the same local leader at every rank of a group)", map[int][]uint32{}, 2},
		{"the remote group's out of range", []int{0, 0}, putWords([]uint32{leaderBad, 3}), "rank 3 of the remote group passed an invalid local leader", map[int][]uint32{0: {leaderOK, 1, 10, 11}}, 1},
	} {
		errs, swapped, remote, words, calls := leaderRun(c.leaders, c.theirs)
		for r, err := range errs {
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s: rank %d: %v", c.name, r, err)
			case c.want != "" && (!errors.Is(err, ErrArg) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s: rank %d: error %v, want ErrArg saying %q", c.name, r, err, c.want)
			case c.want == "" && (!slices.Equal(remote[r], []int{20, 21}) || words[r] != 7):
				t.Errorf("%s: rank %d: remote group %v and word %d, want [20 21] and 7, the other group's", c.name, r, remote[r], words[r])
			}
		}
		if len(swapped) != len(c.swapped) {
			t.Errorf("%s: ranks %v swapped with the other leader, want %v", c.name, slices.Sorted(maps.Keys(swapped)), slices.Sorted(maps.Keys(c.swapped)))
		}
		for r, w := range c.swapped {
			if got := swapped[r]; !slices.Equal(got, w) {
				t.Errorf("%s: rank %d sent %v to the other leader, want %v", c.name, r, got, w)
			}
		}
		if calls != c.calls {
			t.Errorf("%s: %d reductions within the group, want %d", c.name, calls, c.calls)
		}
	}
}
