package pmpi

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

func TestContextsRetiredUntilSwept(t *testing.T) {
	var x contexts
	a := x.reserve(0)
	x.reserve(0)
	x.retire(a)
	busy := map[uint32]bool{a: true}
	x.sweep(func(id uint32) bool { return busy[id] })
	if got := x.reserve(0); got == a {
		t.Fatalf("reserve gave %d, retired with receives posted", a)
	} else {
		x.release(got)
	}
	busy[a] = false
	x.sweep(func(id uint32) bool { return busy[id] })
	if got := x.reserve(0); got != a {
		t.Errorf("after the sweep: reserve(0) = %d, want %d, no longer busy", got, a)
	}
}

func TestContextsReserveLowestFree(t *testing.T) {
	var x contexts
	for i := range 300 {
		if got := x.reserve(0); got != uint32(2*i) {
			t.Fatalf("reserve %d: got id %d, want %d", i, got, 2*i)
		}
	}
	if x.claim(100) {
		t.Error("claim of a taken id succeeded")
	}
	x.release(100)
	x.release(8)
	if got := x.reserve(0); got != 8 {
		t.Errorf("after releasing 8 and 100: reserve(0) = %d, want 8", got)
	}
	if got := x.reserve(9); got != 100 {
		t.Errorf("reserve(9) = %d, want 100, the lowest free at or above it", got)
	}
	if got := x.reserve(0); got != 600 {
		t.Errorf("reserve(0) = %d, want 600, above the 300 taken", got)
	}
	if got := x.reserve(1001); got != 1000 {
		t.Errorf("reserve(1001) = %d, want 1000 (ids are even)", got)
	}
	if !x.claim(1 << 20) {
		t.Error("claim of a free id far above the others failed")
	}
	if got := x.reserve(1 << 20); got != 1<<20+2 {
		t.Errorf("reserve above a claimed id = %d, want %d", got, 1<<20+2)
	}
	if got := x.reserve(0); got != 602 {
		t.Errorf("reserve(0) after a far claim = %d, want 602", got)
	}
}

// ranksAllreduce is an allreduce among n goroutines standing for the
// ranks of a communicator, counting its calls.
type ranksAllreduce struct {
	n     int
	mu    sync.Mutex
	cond  *sync.Cond
	in    [][]byte
	count int
	gen   int
	out   []byte
	calls int
}

func newRanksAllreduce(n int) *ranksAllreduce {
	a := &ranksAllreduce{n: n, in: make([][]byte, n)}
	a.cond = sync.NewCond(&a.mu)
	return a
}

func (a *ranksAllreduce) at(rank int) allreducer {
	return func(words []uint32, op coll.Op) error {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.in[rank] = putWords(words)
		gen := a.gen
		if a.count++; a.count < a.n {
			for a.gen == gen {
				a.cond.Wait()
			}
			getWords(a.out, words)
			return nil
		}
		acc := slices.Clone(a.in[a.n-1])
		for r := a.n - 2; r >= 0; r-- {
			op.Reduce(a.in[r], acc)
		}
		a.out, a.count, a.calls = acc, 0, a.calls+1
		a.gen++
		a.cond.Broadcast()
		getWords(a.out, words)
		return nil
	}
}

// agree runs one agreement on every rank of libs, rank r a member of
// the new communicator when member[r], and returns each rank's id.
func agree(t *testing.T, libs []*library, a *ranksAllreduce, member []bool) []uint32 {
	t.Helper()
	ids := make([]uint32, len(libs))
	var wg sync.WaitGroup
	for r, l := range libs {
		wg.Go(func() {
			id, err := l.agreeContextOver(a.at(r), member[r], nil)
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
			}
			ids[r] = id
		})
	}
	wg.Wait()
	return ids
}

// Communicators of one rank each, made in turn over 4 ranks (CommCreate
// of single-rank groups): each agreement takes one round, since the
// ranks outside the group have no say, and each rank's ids stay dense.
// When every rank proposed its own lowest free id, the ranks agreed only
// above every id any of them held, a round per communicator made before.
func TestAgreeContextLeavesNonMembersOut(t *testing.T) {
	const ranks, comms = 4, 400
	libs := make([]*library, ranks)
	for r := range libs {
		libs[r] = &library{}
	}
	a := newRanksAllreduce(ranks)
	held := make([]int, ranks)
	for i := range comms {
		owner := i % ranks
		member := make([]bool, ranks)
		member[owner] = true
		before := a.calls
		ids := agree(t, libs, a, member)
		if rounds := (a.calls - before) / 2; rounds != 1 {
			t.Fatalf("communicator %d: %d rounds, want 1", i, rounds)
		}
		if want := uint32(2 * held[owner]); ids[owner] != want {
			t.Fatalf("communicator %d: rank %d got id %d, want %d, its lowest free", i, owner, ids[owner], want)
		}
		held[owner]++
	}
	for r, l := range libs {
		if got := l.ctxs.reserve(0); got != uint32(2*held[r]) {
			t.Errorf("rank %d holds ids beyond its %d communicators: next free is %d", r, held[r], got)
		}
	}
}

// Members whose free ids differ agree on one free in all of them, and
// after it each holds that id and no other new one.
func TestAgreeContextFreeInEveryMember(t *testing.T) {
	libs := []*library{{}, {}, {}}
	for _, id := range []uint32{0, 2, 4, 8} {
		libs[0].ctxs.claim(id)
	}
	for _, id := range []uint32{0, 6, 10} {
		libs[1].ctxs.claim(id)
	}
	libs[2].ctxs.claim(12)
	ids := agree(t, libs, newRanksAllreduce(3), []bool{true, true, true})
	for r, id := range ids {
		if id != 14 {
			t.Fatalf("rank %d agreed on %d, want 14, the lowest free on every rank", r, id)
		}
	}
	for r, want := range []uint32{6, 2, 0} {
		if got := libs[r].ctxs.reserve(0); got != want {
			t.Errorf("rank %d: lowest free id after the agreement is %d, want %d", r, got, want)
		}
	}
}

// A group checked on the way rides on the agreement's first reduction:
// ranks that pass the same group agree in one round of two reductions,
// as without the check.
func TestAgreeContextSameGroupCostsNoExchange(t *testing.T) {
	libs := []*library{{}, {}, {}}
	a := newRanksAllreduce(3)
	group := []int{0, 1, 2}
	ids, errs := agreeOnGroups(libs, a, [][]int{group, group, group})
	for r := range libs {
		if errs[r] != nil || ids[r] != 0 {
			t.Errorf("rank %d: id %d, error %v; want id 0 and no error", r, ids[r], errs[r])
		}
	}
	if a.calls != 2 {
		t.Errorf("the agreement took %d reductions, want 2", a.calls)
	}
}

// Ranks that pass different groups all fail with the same error, naming
// the lowest rank of each group, and hold no id after.
func TestAgreeContextGroupsDiffer(t *testing.T) {
	libs := []*library{{}, {}, {}, {}}
	a := newRanksAllreduce(4)
	whole, part := []int{0, 1, 2, 3}, []int{0, 1, 2}
	_, errs := agreeOnGroups(libs, a, [][]int{whole, whole, part, part})
	failedAlike(t, libs, errs, groupsDiffer{a: 0, na: 4, b: 2, nb: 3})
}

// failedAlike checks that every rank of libs failed with want and holds
// no id after.
func failedAlike[T comparable, E interface {
	*T
	error
}](t *testing.T, libs []*library, errs []error, want T) {
	t.Helper()
	for r, err := range errs {
		var e E
		if !errors.As(err, &e) || *e != want {
			t.Errorf("rank %d: error %v, want %v", r, err, E(&want))
		}
		if got := libs[r].ctxs.reserve(0); got != 0 {
			t.Errorf("rank %d: lowest free id after the failure is %d, want 0", r, got)
		}
	}
}

// Ranks may pass groups that differ where the call allows it if they are
// disjoint (CommCreate): each rank of a group gets one id, the same in
// every group, a rank that passed the empty group none; the check costs
// two more reductions.
func TestAgreeContextDisjointGroups(t *testing.T) {
	libs := []*library{{}, {}, {}, {}, {}}
	a := newRanksAllreduce(5)
	libs[3].ctxs.reserve(0) // rank 3 holds id 0: the agreement goes above it
	low, high := []int{0, 1}, []int{4, 3}
	ids, errs := agreeOnGroupsIf(libs, a, [][]int{low, low, {}, high, high}, true)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if ids[0] != ids[1] || ids[3] != ids[4] || ids[0] != ids[3] || ids[0] == 0 {
		t.Errorf("ids by rank %v: want one id, above rank 3's 0, for all the groups' members", ids)
	}
	if got := libs[2].ctxs.reserve(0); got != 0 {
		t.Errorf("rank 2, which passed the empty group, holds id %d", got)
	}
	if a.calls != 4 {
		t.Errorf("the agreement took %d reductions, want 4", a.calls)
	}
}

// Groups that differ but meet fail every rank alike, naming the lowest
// rank whose group holds a rank that passed another.
func TestAgreeContextGroupsOverlap(t *testing.T) {
	libs := []*library{{}, {}, {}, {}}
	a := newRanksAllreduce(4)
	three := []int{0, 1, 2}
	_, errs := agreeOnGroupsIf(libs, a, [][]int{three, three, {0, 1}, three}, true)
	failedAlike(t, libs, errs, groupsOverlap{a: 0, na: 3, b: 2, nb: 2})
}

// agreeOnGroups runs one agreement on every rank of libs, rank r passing
// groups[r] to check and a member of it if it holds r.
func agreeOnGroups(libs []*library, a *ranksAllreduce, groups [][]int) ([]uint32, []error) {
	return agreeOnGroupsIf(libs, a, groups, false)
}

// agreeOnGroupsIf is agreeOnGroups where groups may differ if disjoint.
func agreeOnGroupsIf(libs []*library, a *ranksAllreduce, groups [][]int, disjoint bool) ([]uint32, []error) {
	ids, errs := make([]uint32, len(libs)), make([]error, len(libs))
	var wg sync.WaitGroup
	for r, l := range libs {
		wg.Go(func() {
			g := &sameGroup{group: groups[r], rank: r}
			if disjoint {
				g.size, g.members = len(libs), groups[r] // ranks are world ranks here
			}
			ids[r], errs[r] = l.agreeContextOver(a.at(r), slices.Contains(groups[r], r), g)
		})
	}
	wg.Wait()
	return ids, errs
}

// A rank whose arguments failed its own checks takes part in the
// agreement with a mark: every rank fails on the first reduction, the
// error naming the lowest such rank, and none holds an id after.
func TestAgreeContextBadArgs(t *testing.T) {
	libs := []*library{{}, {}, {}, {}}
	a := newRanksAllreduce(4)
	group := []int{0, 1, 2, 3}
	bad := []bool{false, true, false, true}
	errs := make([]error, len(libs))
	var wg sync.WaitGroup
	for r, l := range libs {
		wg.Go(func() {
			g := &sameGroup{group: group, rank: r, bad: bad[r]}
			if bad[r] {
				g.group = nil // a bad rank's group is none, which must not matter
			}
			_, errs[r] = l.agreeContextOver(a.at(r), !bad[r], g)
		})
	}
	wg.Wait()
	for r, err := range errs {
		var e *argsInvalid
		if !errors.As(err, &e) || e.rank != 1 {
			t.Errorf("rank %d: error %v, want rank 1's arguments named", r, err)
		}
		if got := libs[r].ctxs.reserve(0); got != 0 {
			t.Errorf("rank %d: lowest free id after the failure is %d, want 0", r, got)
		}
	}
	if a.calls != 1 {
		t.Errorf("the failing agreement took %d reductions, want 1", a.calls)
	}
}

// agreeWindows runs agreeInWindow on every rank of libs, all members,
// each with its own copy of the communicator's window, and returns each
// rank's id and verdict.
func agreeWindows(t *testing.T, libs []*library, a *ranksAllreduce, windows []atomic.Uint32) ([]uint32, []bool) {
	t.Helper()
	ids, oks := make([]uint32, len(libs)), make([]bool, len(libs))
	var wg sync.WaitGroup
	for r, l := range libs {
		wg.Go(func() {
			var err error
			ids[r], oks[r], err = l.agreeInWindow(a.at(r), &windows[r], true)
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
			}
		})
	}
	wg.Wait()
	return ids, oks
}

// One reduction agrees the lowest id free in every rank, which each then
// holds, and gives back the rest of the window; a window with no id free
// in every rank fails alike everywhere and leaves the bitmaps as they
// were; the next agreement looks where the last one ended.
func TestAgreeInWindow(t *testing.T) {
	libs := []*library{{}, {}}
	for range 5 { // rank 0 holds ids 0-8, rank 1 ids 0-4 and 12
		libs[0].ctxs.reserve(0)
	}
	for range 3 {
		libs[1].ctxs.reserve(0)
	}
	libs[1].ctxs.claim(12)
	a := newRanksAllreduce(2)
	windows := make([]atomic.Uint32, 2)
	ids, oks := agreeWindows(t, libs, a, windows)
	if !oks[0] || !oks[1] || ids[0] != 10 || ids[1] != 10 || a.calls != 1 {
		t.Fatalf("agreed %v (ok %v) in %d reductions, want 10 on both in 1", ids, oks, a.calls)
	}
	for r, l := range libs {
		if l.ctxs.claim(10) {
			t.Errorf("rank %d does not hold the agreed id", r)
		}
		if got := l.ctxs.reserve(0); got != []uint32{12, 6}[r] {
			t.Errorf("rank %d: lowest free id after the agreement %d, want %d", r, got, []uint32{12, 6}[r])
		}
	}

	// Rank 1 fills the window: no id in it is free in both.
	for w := range ctxWindow {
		for b := range 64 {
			libs[1].ctxs.claim(uint32(2 * (64*w + b)))
		}
	}
	before := slices.Clone(libs[0].ctxs.used)
	a.calls = 0
	if _, oks := agreeWindows(t, libs, a, windows); oks[0] || oks[1] || a.calls != 1 {
		t.Fatalf("a window full on one rank agreed (ok %v) in %d reductions", oks, a.calls)
	}
	if !slices.Equal(libs[0].ctxs.used[:len(before)], before) {
		t.Errorf("rank 0's bitmap changed by a failed agreement: %x, was %x", libs[0].ctxs.used, before)
	}
	want := uint32(2 * 64 * ctxWindow)
	for r := range windows {
		windows[r].Store(ctxWindow) // where agreeContextOver's id would put it
	}
	if ids, oks := agreeWindows(t, libs, a, windows); !oks[0] || ids[0] != want || ids[1] != want {
		t.Errorf("next window agreed %v (ok %v), want %d", ids, oks, want)
	}
}

// Two goroutines of each of two processes make communicators at once on
// two parents: whichever agreement holds a window, the other's finds
// another id or falls back to agreeContextOver's rounds, and the ids
// agreed are alike on both ranks and never one the rank holds already.
func TestAgreeInWindowConcurrent(t *testing.T) {
	const rounds = 200
	libs := []*library{{}, {}}
	parents := []*ranksAllreduce{newRanksAllreduce(2), newRanksAllreduce(2)}
	var windows [2][2]atomic.Uint32 // by parent, then rank
	var got [2][2][]uint32
	var wg sync.WaitGroup
	for p := range parents {
		for r, l := range libs {
			wg.Go(func() {
				for range rounds {
					id, err := l.agreeContextFrom(parents[p].at(r), &windows[p][r], true)
					if err != nil {
						t.Errorf("parent %d rank %d: %v", p, r, err)
						return
					}
					got[p][r] = append(got[p][r], id)
				}
			})
		}
	}
	wg.Wait()
	for r := range libs {
		seen := map[uint32]bool{}
		for p := range parents {
			if !slices.Equal(got[p][r], got[p][1-r]) {
				t.Fatalf("parent %d: the ranks agreed different ids", p)
			}
			for _, id := range got[p][r] {
				if seen[id] {
					t.Fatalf("rank %d was given id %d twice", r, id)
				}
				seen[id] = true
			}
		}
	}
}
