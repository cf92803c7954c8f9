package sm

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// timedRuleCalls are calls of n ranks that the rule serves, from its
// smallest size least on, each in a size class of its own for its
// collective (a class's trial counts its calls), and those that it leaves
// to the segment: reduces whose result could depend on the path, and
// allreduce.
func timedRuleCalls(n, least int) (served, segment []call) {
	sum, matmul := testOps[0], testOps[2]
	served = []call{
		{k: kBcast, root: 0, size: least},
		{k: kBcast, root: n - 1, size: 3 * least},
		{k: kAllgather, size: least},
		{k: kAlltoall, size: least / n}, // a block a rank: least in all
	}
	reduces := []call{
		{k: kReduce, root: 0, size: least / 8, op: sum},
		{k: kReduce, root: 1, size: 2 * least / 16, op: matmul}, // not commutative: rank order on both paths
	}
	segment = []call{
		{k: kReduce, root: 1, size: least / 8, op: sum},
		{k: kAllreduce, size: least / 8, op: sum},
	}
	if n == 2 {
		return append(served, reduces...), segment
	}
	return served, append(segment, reduces...)
}

// TestTimedPath: bcast, allgather and alltoall of pairMin bytes or more on
// 2 ranks and manyMin on more, and reduce on 2 ranks, go where
// coll_sm_path says: timed takes the segment for a class's first
// trialFrom calls (these sizes are below pairBcastNextMin), then makes a run
// of calls through the segment, then one to the next module, then every
// rank takes one path, the same; every result is right whichever the
// path. Which path timed takes after its trial depends on the machine, so
// the test checks only that the ranks take the same one and keep it.
func TestTimedPath(t *testing.T) {
	for _, n := range []int{2, 4} {
		least := pairMin
		if n > 2 {
			least = manyMin
		}
		for _, mode := range []string{modeTimed, modeSegment, modeNext} {
			t.Run(fmt.Sprintf("n%d/%s", n, mode), func(t *testing.T) { testTimedPath(t, n, least, mode) })
		}
	}
}

func testTimedPath(t *testing.T, n, least int, mode string) {
	w := newWorld(t, n)
	// Blocks of twice least: the calls of 3*least go in rounds.
	w.build(t, w.host(), func(int) config {
		return config{maxBytes: 2 * least, maxRanks: 16, dir: w.dir, path: mode}
	})
	served, segment := timedRuleCalls(n, least)
	// A forced path keeps no state from call to call: a few calls show it.
	calls := trialFrom + 2*trialCalls + 3
	if mode != modeTimed {
		calls = 4
	}
	for _, x := range served {
		t.Run(x.String(), func(t *testing.T) {
			decided := -1
			for i := range calls {
				next := w.timedCall(t, x)
				var want bool
				switch {
				case mode == modeSegment:
				case mode == modeNext:
					want = true
				case i < trialFrom:
				case i < trialFrom+2*trialCalls:
					want = i >= trialFrom+trialCalls
				case decided < 0:
					want = next // the first call after the trial: either path
					decided = map[bool]int{false: pathSegment, true: pathNext}[next]
				default:
					want = decided == pathNext
				}
				if next != want {
					t.Fatalf("call %d went %s, want %s", i, pathWord(next), pathWord(want))
				}
			}
		})
	}
	// The rule leaves these out whatever the call's number
	// (TestTimedPathNotServed): a few calls show they stay on the segment.
	for _, x := range segment {
		t.Run(x.String(), func(t *testing.T) {
			for i := range 4 {
				if w.timedCall(t, x) {
					t.Fatalf("call %d went to the next module, want the segment", i)
				}
			}
		})
	}
}

// TestTimedPathNonBlocking: calls that serve a non-blocking or persistent
// collective (coll.NonBlocking) count for no trial: before the class's
// first trial they take firstPath's path however many they are, the
// blocking calls alone bring the trial, and after it they take the path it
// chose, the same on every rank.
func TestTimedPathNonBlocking(t *testing.T) {
	w := newWorld(t, 2)
	w.build(t, w.host(), func(int) config {
		return config{maxBytes: 2 * pairMin, maxRanks: 16, dir: w.dir, path: modeTimed}
	})
	x := call{k: kBcast, root: 0, size: pairMin}
	setNonBlocking := func(on bool) {
		for _, c := range w.comms {
			c.nonBlocking.Store(on)
		}
	}
	setNonBlocking(true)
	for i := range trialFrom + 2*trialCalls + 1 {
		if w.timedCall(t, x) {
			t.Fatalf("non-blocking call %d went %s, want %s: no trial before the blocking calls'", i,
				pathWord(true), pathWord(false))
		}
	}
	setNonBlocking(false)
	decided := false
	for i := range trialFrom + 2*trialCalls + 1 {
		next := w.timedCall(t, x)
		switch {
		case i < trialFrom+trialCalls:
			if next {
				t.Fatalf("blocking call %d went %s, want %s", i, pathWord(next), pathWord(false))
			}
		case i < trialFrom+2*trialCalls:
			if !next {
				t.Fatalf("blocking call %d went %s, want the trial's %s", i, pathWord(next), pathWord(true))
			}
		default:
			decided = next
		}
	}
	setNonBlocking(true)
	for i := range 4 {
		if next := w.timedCall(t, x); next != decided {
			t.Fatalf("non-blocking call %d after the trial went %s, want the trial's choice, %s", i,
				pathWord(next), pathWord(decided))
		}
	}
}

// TestFirstPath: before its first trial a class takes firstPath's path,
// no trial among a program's first hundred calls: on 2 ranks the next
// module's messages for a bcast from pairBcastNextMin, else the segment;
// on more ranks the segment. A trial there cost the first calls of a
// class 2-3 times Open MPI's time.
func TestFirstPath(t *testing.T) {
	const big = pairBcastNextMin
	for _, tc := range []struct {
		n    int
		x    call
		next bool
	}{
		{2, call{k: kBcast, root: 0, size: big}, true},
		{2, call{k: kBcast, root: 1, size: big / 2}, false},
		{2, call{k: kAllgather, size: big}, false},
		{2, call{k: kAlltoall, size: big / 2}, false},                        // a block a rank: big in all
		{2, call{k: kReduce, root: 0, size: big / 8, op: testOps[0]}, false}, // int64s: big bytes
		{4, call{k: kBcast, root: 0, size: big}, false},
		{4, call{k: kAlltoall, size: big / 4}, false},
	} {
		t.Run(fmt.Sprintf("n%d/%s", tc.n, tc.x), func(t *testing.T) {
			w := newWorld(t, tc.n)
			w.build(t, w.host(), func(int) config {
				return config{maxBytes: 1 << 20, maxRanks: 16, dir: w.dir, path: modeTimed}
			})
			// The path of a class's first trialFrom calls depends on
			// nothing that changes between them (checked below): a few
			// calls show every rank takes it.
			for i := range 4 {
				if next := w.timedCall(t, tc.x); next != tc.next {
					t.Fatalf("call %d went %s, want %s", i, pathWord(next), pathWord(tc.next))
				}
			}
		})
	}
	if trialFrom < 100 {
		t.Errorf("the first trial at call %d, among a program's first hundred", trialFrom)
	}
	for _, tc := range []struct{ n, size int }{{2, big}, {2, big / 2}, {4, big}} {
		m := &module{n: tc.n, limit: 1 << 20, pathMode: modeTimed}
		want := firstPath("bcast", tc.n, tc.size)
		for i := range trialFrom {
			c, err := m.timedPath("bcast", tc.size, true, true)
			if err != nil || c.path != want || c.timer != nil {
				t.Fatalf("n%d size %d: call %d took path %d (timed %v, %v), want %s untimed",
					tc.n, tc.size, i, c.path, c.timer != nil, err, pathNames[want])
			}
		}
		if c, _ := m.timedPath("bcast", tc.size, true, true); c.path != pathSegment {
			t.Errorf("n%d size %d: call %d took path %d, want the trial's first, the segment", tc.n, tc.size, trialFrom, c.path)
		}
	}
	for _, tc := range []struct {
		name          string
		n, size, want int
	}{
		{"bcast", 2, big - 1, pathSegment},
		{"bcast", 2, big, pathNext},
		{"alltoall", 2, 8 << 20, pathSegment},
		{"bcast", 3, 1 << 20, pathSegment},
		{"bcast", 8, big, pathSegment},
	} {
		if got := firstPath(tc.name, tc.n, tc.size); got != tc.want {
			t.Errorf("firstPath(%s, %d, %d) = %s, want %s", tc.name, tc.n, tc.size, pathNames[got], pathNames[tc.want])
		}
	}
}

func pathWord(next bool) string {
	if next {
		return pathNames[pathNext]
	}
	return pathNames[pathSegment]
}

// timedCall runs x on every rank and reports whether it went to the next
// module: every rank must have sent or received messages, or none.
func (w *world) timedCall(t *testing.T, x call) bool {
	t.Helper()
	before := make([]int64, w.n)
	for r, c := range w.comms {
		before[r] = c.sends.Load() + c.recvs.Load()
	}
	w.run(t, func(r int, c *testComm) error { return x.do(w.tables[r], c, r, w.n) })
	if t.Failed() {
		t.FailNow()
	}
	used := make([]bool, w.n)
	for r, c := range w.comms {
		used[r] = c.sends.Load()+c.recvs.Load() > before[r]
	}
	for r := range used {
		if used[r] != used[0] {
			t.Fatalf("rank 0 used messages: %v, rank %d: %v: the ranks took different paths", used[0], r, used[r])
		}
	}
	return used[0]
}

// TestTimedPathNotServed: the rule leaves small calls, more ranks and
// shared CPUs alone.
func TestTimedPathNotServed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, limit int
		yield    bool
		size     int
	}{
		{"small", 2, 1 << 20, false, pairMin - 1},
		{"small on three ranks", 3, 1 << 20, true, manyMin - 1},
		{"blocks too small for rounds", 2, 2*line - 1, false, pairMin},
	} {
		m := &module{n: tc.n, limit: tc.limit, yield: tc.yield, pathMode: modeNext}
		if c, err := m.timedPath("bcast", tc.size, true, true); err != nil || c.path != 0 {
			t.Errorf("%s: path %d, %v; want 0 (the rule does not apply)", tc.name, c.path, err)
		}
	}
	m := &module{n: 3, limit: 1 << 20, yield: true, pathMode: modeNext}
	if c, _ := m.timedPath("reduce", 1<<20, true, true); c.path != 0 {
		t.Error("a reduce on three ranks is timed: its result could change with the path")
	}
	if c, _ := m.timedPath("bcast", 1<<20, false, true); c.path != 0 {
		t.Error("a call that cannot go through the segment is timed")
	}
	if c, _ := m.timedPath("bcast", manyMin, true, true); c.path != pathNext {
		t.Errorf("a bcast of %d bytes on three ranks sharing CPUs: path %d, want the next component's", manyMin, c.path)
	}
}

func TestSizeClass(t *testing.T) {
	for _, tc := range []struct{ size, class, min int }{
		{pairMin, 0, pairMin},
		{2*pairMin - 1, 0, pairMin},
		{2 * pairMin, 1, 2 * pairMin},
		{5 * pairMin, 2, 4 * pairMin},
		{math.MaxInt32, sizeClasses - 1, pairMin << (sizeClasses - 1)},
	} {
		if c, m := sizeClass(tc.size), sizeClassMin(tc.size); c != tc.class || m != tc.min {
			t.Errorf("size %d: class %d from %d, want %d from %d", tc.size, c, m, tc.class, tc.min)
		}
	}
}

func TestMedian(t *testing.T) {
	slow := time.Duration(math.MaxInt64)
	for _, tc := range []struct {
		took []time.Duration
		want time.Duration
	}{
		{[]time.Duration{4, 1, 3}, 3},
		{[]time.Duration{4, 1, 3, 2}, 2},
		{[]time.Duration{9, 9, 1, 1}, 5},
		{[]time.Duration{slow, 2, 7}, 7},
		{[]time.Duration{slow, slow, 1, 1}, 1 + (slow-1)/2},
	} {
		if got := median(slices.Clone(tc.took)); got != tc.want {
			t.Errorf("median(%v) = %d, want %d", tc.took, got, tc.want)
		}
	}
	if got := addSat(slow, 3); got != slow {
		t.Errorf("addSat(max, 3) = %d, want the maximum", got)
	}
}
