package sm

import (
	"math"
	"testing"
	"time"
)

// pairRuleCalls are calls of 2 ranks that the pair rule serves, each in a
// size class of its own for its collective (a class's trial counts its
// calls), and two that it leaves to the segment: a reduce whose result
// could depend on the path, and allreduce.
func pairRuleCalls() (served, segment []call) {
	sum, matmul := testOps[0], testOps[2]
	served = []call{
		{k: kBcast, root: 0, size: pairMin},
		{k: kBcast, root: 1, size: 3 * pairMin},
		{k: kReduce, root: 0, size: pairMin / 8, op: sum},
		{k: kReduce, root: 1, size: 2 * pairMin / 16, op: matmul}, // not commutative: rank order on both paths
		{k: kAllgather, size: pairMin},
		{k: kAlltoall, size: pairMin / 2}, // a block a rank: pairMin in all
	}
	segment = []call{
		{k: kReduce, root: 1, size: pairMin / 8, op: sum},
		{k: kAllreduce, size: pairMin / 8, op: sum},
	}
	return served, segment
}

// TestPairPath: on 2 ranks with a CPU each, bcast, reduce, allgather and
// alltoall of pairMin bytes or more go where coll_sm_pair_path says: timed makes
// a run of calls through the segment, then one to the next module, then
// both ranks take one path, the same; every result is right whichever
// the path. Which path timed takes depends on the machine, so the test
// checks only that both ranks take the same one and keep it.
func TestPairPath(t *testing.T) {
	for _, mode := range []string{pairTimed, pairSegment, pairNext} {
		t.Run(mode, func(t *testing.T) {
			w := newWorld(t, 2)
			// Blocks of twice pairMin: the calls of 3*pairMin go in rounds.
			w.build(t, w.host(), func(int) config {
				return config{maxBytes: 2 * pairMin, maxRanks: 16, dir: w.dir, pairPath: mode}
			})
			served, segment := pairRuleCalls()
			for _, x := range served {
				t.Run(x.String(), func(t *testing.T) {
					decided := -1
					for i := range 2*pairTrial + 3 {
						next := w.pairCall(t, x)
						var want bool
						switch {
						case mode == pairSegment:
						case mode == pairNext:
							want = true
						case i < 2*pairTrial:
							want = i >= pairTrial
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
			for _, x := range segment {
				t.Run(x.String(), func(t *testing.T) {
					for i := range 2*pairTrial + 3 {
						if w.pairCall(t, x) {
							t.Fatalf("call %d went to the next module, want the segment", i)
						}
					}
				})
			}
		})
	}
}

func pathWord(next bool) string {
	if next {
		return pathNames[pathNext]
	}
	return pathNames[pathSegment]
}

// pairCall runs x on both ranks and reports whether it went to the next
// module: both ranks must have sent or received messages, or neither.
func (w *world) pairCall(t *testing.T, x call) bool {
	t.Helper()
	var before [2]int64
	for r, c := range w.comms {
		before[r] = c.sends.Load() + c.recvs.Load()
	}
	w.run(t, func(r int, c *testComm) error { return x.do(w.tables[r], c, r, w.n) })
	if t.Failed() {
		t.FailNow()
	}
	var used [2]bool
	for r, c := range w.comms {
		used[r] = c.sends.Load()+c.recvs.Load() > before[r]
	}
	if used[0] != used[1] {
		t.Fatalf("rank 0 used messages: %v, rank 1: %v: the ranks took different paths", used[0], used[1])
	}
	return used[0]
}

// TestPairPathNotServed: the rule leaves small calls, more ranks and
// shared CPUs alone.
func TestPairPathNotServed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, limit int
		yield    bool
		size     int
	}{
		{"small", 2, 1 << 20, false, pairMin - 1},
		{"three ranks", 3, 1 << 20, false, pairMin},
		{"shared CPUs", 2, 1 << 20, true, pairMin},
		{"blocks too small for rounds", 2, 2*line - 1, false, pairMin},
	} {
		m := &module{n: tc.n, limit: tc.limit, yield: tc.yield, pairMode: pairNext}
		if c, err := m.pairPath("bcast", tc.size); err != nil || c.path != 0 {
			t.Errorf("%s: path %d, %v; want 0 (the rule does not apply)", tc.name, c.path, err)
		}
	}
}

func TestPairClass(t *testing.T) {
	for _, tc := range []struct{ size, class, min int }{
		{pairMin, 0, pairMin},
		{2*pairMin - 1, 0, pairMin},
		{2 * pairMin, 1, 2 * pairMin},
		{5 * pairMin, 2, 4 * pairMin},
		{math.MaxInt32, pairClasses - 1, pairMin << (pairClasses - 1)},
	} {
		if c, m := pairClass(tc.size), pairClassMin(tc.size); c != tc.class || m != tc.min {
			t.Errorf("size %d: class %d from %d, want %d from %d", tc.size, c, m, tc.class, tc.min)
		}
	}
}

func TestMedian(t *testing.T) {
	slow := time.Duration(math.MaxInt64)
	for _, tc := range []struct {
		took [pairTrial - 1]time.Duration
		want time.Duration
	}{
		{[pairTrial - 1]time.Duration{4, 1, 3, 2}, 2},
		{[pairTrial - 1]time.Duration{9, 9, 1, 1}, 5},
		{[pairTrial - 1]time.Duration{slow, 2, 2, 7}, 4},
		{[pairTrial - 1]time.Duration{slow, slow, 1, 1}, 1 + (slow-1)/2},
	} {
		if got := median(tc.took); got != tc.want {
			t.Errorf("median(%v) = %d, want %d", tc.took, got, tc.want)
		}
	}
	if got := addSat(slow, 3); got != slow {
		t.Errorf("addSat(max, 3) = %d, want the maximum", got)
	}
}
