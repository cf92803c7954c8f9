package sm

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// singleKinds are the collectives that single copy serves past the limit.
var singleKinds = map[kind]bool{kBcast: true, kReduce: true, kAllreduce: true, kGather: true, kScatter: true,
	kAllgather: true, kAlltoall: true}

// buildSingle builds a world whose ranks all have single copy on.
func (w *world) buildSingle(t *testing.T, host coll.Host, maxBytes int) {
	t.Helper()
	w.build(t, host, func(int) config {
		return config{maxBytes: maxBytes, maxRanks: 16, dir: w.dir, singleCopy: true, singleAlways: true}
	})
}

// largeCalls are calls of k well past the limit: a few times it, and for
// the reductions a vector whose slices (allreduce's) span more than one
// fold chunk on small worlds, with uneven slices.
func largeCalls(k kind, n, maxBytes int) []call {
	return callsOf(k, n, func(op testOp) []int {
		switch k {
		case kReduce, kAllreduce:
			es := op.op.ElemSize()
			lens := []int{3*maxBytes/es + 1, 5*maxBytes/es + n - 1}
			if n <= 3 && op.name == "sum" {
				lens = append(lens, (2*chunkBytes/es)*n+5)
			}
			return lens
		case kScatter, kAlltoall:
			return []int{maxBytes/n + 1, 3*maxBytes/n + 7}
		}
		return []int{maxBytes + 1, 3*maxBytes + 5}
	})
}

// TestSingleCopy runs every collective past the limit with single copy on:
// the seven it serves send no message and give the reference's results;
// the others still go to the next module.
func TestSingleCopy(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			maxBytes := maxBytesFor(n)
			w := newWorld(t, n)
			w.buildSingle(t, w.host(), maxBytes)
			for k := range nKinds {
				calls := boundaryCalls(k, n, maxBytes)
				if singleKinds[k] {
					calls = append(calls, largeCalls(k, n, maxBytes)...)
				}
				w.runServed(t, calls, func(x call) bool { return x.contribution(n) <= maxBytes || singleKinds[x.k] })
			}
		})
	}
}

// TestSingleCopyManyEpochs mixes calls through the blocks, by single copy
// and through the next module, hundreds in a row: the epochs that single
// copy adds stay in step with the others.
func TestSingleCopyManyEpochs(t *testing.T) {
	for _, tc := range []struct {
		n              int
		oversubscribed bool
	}{{2, false}, {3, false}, {4, true}, {7, false}} {
		t.Run(fmt.Sprintf("n%d/oversubscribed=%v", tc.n, tc.oversubscribed), func(t *testing.T) {
			const maxBytes = 64
			w := newWorld(t, tc.n)
			host := w.host()
			host.Oversubscribed = tc.oversubscribed
			w.buildSingle(t, host, maxBytes)
			calls := sequence(tc.n, maxBytes, 300)
			single := 0
			for _, x := range calls {
				if x.contribution(tc.n) > maxBytes && singleKinds[x.k] {
					single++
				}
			}
			if single < 30 {
				t.Fatalf("only %d of %d calls go by single copy", single, len(calls))
			}
			w.runCalls(t, calls)
		})
	}
}

// TestSingleCopyNonCommutative: reduce and allreduce by single copy fold
// every slice in rank order.
func TestSingleCopyNonCommutative(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			const maxBytes = 64
			w := newWorld(t, n)
			w.buildSingle(t, w.host(), maxBytes)
			for _, top := range testOps[1:] {
				elems := 4*maxBytes/top.op.ElemSize() + n + 1
				calls := []call{{k: kAllreduce, size: elems, op: top, seed: 9}}
				for _, root := range colltest.Roots(n) {
					calls = append(calls, call{k: kReduce, root: root, size: elems, op: top, seed: 9})
				}
				for _, x := range calls {
					t.Run(x.String(), func(t *testing.T) {
						before := w.sends()
						w.run(t, func(r int, c *testComm) error { return x.do(w.tables[r], c, r, n) })
						if w.sends() != before {
							t.Error("the call went to basic, not by single copy")
						}
					})
				}
			}
		})
	}
}

// TestSinglePays: with the default rules, the calls for which single copy
// was measured slower go to the next module.
func TestSinglePays(t *testing.T) {
	const n, maxBytes = 3, 64
	w := newWorld(t, n)
	w.build(t, w.host(), func(int) config { return config{maxBytes: maxBytes, maxRanks: 16, dir: w.dir, singleCopy: true} })
	for _, tc := range []struct {
		x      call
		single bool
	}{
		{call{k: kBcast, size: 3 * maxBytes, seed: 1}, true},
		{call{k: kAllgather, size: 3 * maxBytes, seed: 2}, true},
		{call{k: kAlltoall, size: maxBytes, seed: 3}, false},
		{call{k: kReduce, size: 3 * maxBytes, op: testOps[0], seed: 4}, true},
		{call{k: kReduce, size: 128<<7 + 1, op: testOps[0], seed: 7}, false}, // past 128 KiB of 8-byte elements
		{call{k: kAlltoall, size: 256<<10/n + 1, seed: 8}, false},
		{call{k: kAlltoall, size: 2<<20/n + 1, seed: 9}, true},
		{call{k: kAllreduce, size: 3 * maxBytes, op: testOps[0], seed: 5}, false},
		{call{k: kAllreduce, size: 256 << 7, op: testOps[0], seed: 6}, true}, // 256 KiB of 8-byte elements
	} {
		before := w.sends()
		w.runCalls(t, []call{tc.x})
		if sent := w.sends() != before; sent == tc.single {
			t.Errorf("%v: messages sent %v, want single copy %v", tc.x, sent, tc.single)
		}
	}
}

// TestSingleCopyOneRankSaysNo: a rank whose coll_sm_single_copy is false
// makes every rank send large calls to the next module, not hang.
func TestSingleCopyOneRankSaysNo(t *testing.T) {
	const n, maxBytes = 3, 64
	w := newWorld(t, n)
	w.build(t, w.host(), func(r int) config {
		return config{maxBytes: maxBytes, maxRanks: 16, dir: w.dir, singleCopy: r != 2, singleAlways: true}
	})
	for _, x := range []call{
		{k: kBcast, root: 1, size: 3 * maxBytes, seed: 1},
		{k: kAllreduce, size: 3 * maxBytes, op: testOps[0], seed: 2},
		{k: kAlltoall, size: maxBytes, seed: 3},
	} {
		before := w.sends()
		w.runCalls(t, []call{x})
		if w.sends() == before {
			t.Errorf("%v: no message was sent: single copy was used though rank 2 said no", x)
		}
	}
}

// TestSingleCopyCountsDisagree: rank 1 passes shorter buffers than the
// others, all past the limit. The ranks that read a buffer of the wrong
// length fail with ErrTooLong or ErrTooShort, every rank returns, and
// the next calls work.
func TestSingleCopyCountsDisagree(t *testing.T) {
	const maxBytes = 64
	sum := testOps[0].op
	cases := []disagreement{
		{"allreduce", func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, 40*8, 8)
			return tab.Allreduce(c, colltest.Data(1, r, l), make([]byte, l), sum)
		}, everyReads},
		{"allgather", func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, 3*maxBytes, 1)
			return tab.Allgather(c, colltest.Data(1, r, l), make([]byte, n*l))
		}, everyReads},
		{"alltoall", func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := n * shortLength(r, maxBytes, 4)
			return tab.Alltoall(c, colltest.Data(1, r, l), make([]byte, l))
		}, everyReads},
	}
	for _, root := range []int{0, 1} {
		cases = append(cases,
			disagreement{fmt.Sprintf("reduce/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
				l := shortLength(r, 40*8, 8)
				return tab.Reduce(c, colltest.Data(1, r, l), make([]byte, l), sum, root)
			}, rootReads(root)},
			disagreement{fmt.Sprintf("gather/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
				l := shortLength(r, 3*maxBytes, 2)
				return tab.Gather(c, colltest.Data(1, r, l), make([]byte, n*l), root)
			}, rootReads(root)},
			disagreement{fmt.Sprintf("bcast/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
				return tab.Bcast(c, colltest.Data(1, root, shortLength(r, 3*maxBytes, 3)), root)
			}, readRoot(root)},
			disagreement{fmt.Sprintf("scatter/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
				l := shortLength(r, maxBytes, 4)
				return tab.Scatter(c, colltest.Data(1, root, n*l), make([]byte, l), root)
			}, readRoot(root)},
		)
	}
	// The warm calls settle single copy's verdict and pass the first two
	// epochs, whose writes wait for no one.
	runDisagreements(t, cases, func(t *testing.T, w *world) { w.buildSingle(t, w.host(), maxBytes) },
		[]call{{k: kBarrier}, {k: kBcast, size: 2 * maxBytes, seed: 1}, {k: kBarrier}}, maxBytes)
}

// TestSingleCopyFailedMember: a rank waiting in a single-copy call for a
// member that never arrives returns the error Poll reports.
func TestSingleCopyFailedMember(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rank1 []call
		last  call
	}{
		{"verdict", nil, call{k: kBcast, size: 200}},
		{"bcast-root", []call{{k: kBcast, size: 200}}, call{k: kBcast, size: 200}},
		{"allgather", []call{{k: kBcast, size: 200}}, call{k: kAllgather, size: 200}},
		{"reduce", []call{{k: kBcast, size: 200}}, call{k: kReduce, size: 50, op: testOps[0]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2)
			w.buildSingle(t, w.host(), 64)
			var got error
			w.cw.Run(t, func(cc coll.Comm) error {
				r := cc.Rank()
				c, tab := w.comms[r], w.tables[r]
				for _, x := range tc.rank1 {
					if err := x.do(tab, c, r, 2); err != nil {
						return err
					}
				}
				if r == 1 {
					return nil
				}
				c.failAfter, c.failErr = c.polls.Load()+3, errFailed
				got = tc.last.do(tab, c, r, 2)
				return nil
			})
			if !errors.Is(got, errFailed) {
				t.Fatalf("rank 0's %v returned %v, want the failure Poll reported", tc.last.k, got)
			}
		})
	}
}

// TestSingleCopyKeepsBuffersAlive: buffers that only the call references
// stay valid while the other ranks read them, with collections forced
// all the while (a buffer freed and reused under a reader would show as a
// wrong result).
func TestSingleCopyKeepsBuffersAlive(t *testing.T) {
	const n, maxBytes = 3, 64
	w := newWorld(t, n)
	w.buildSingle(t, w.host(), maxBytes)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			runtime.GC()
		}
	}()
	defer func() { stop.Store(true); <-done }()
	var calls []call
	for i := range 60 {
		for _, k := range []kind{kBcast, kAllgather, kAlltoall, kAllreduce, kGather, kScatter, kReduce} {
			x := call{k: k, root: i % n, size: 4096 + i, op: testOps[0], seed: i}
			if k == kAlltoall || k == kScatter {
				x.size = 1024 + i
			}
			calls = append(calls, x)
		}
	}
	w.runCalls(t, calls)
}

// TestSegmentLimits: with ranks outnumbering CPUs every collective but
// bcast may fill a block of coll_sm_max_bytes; with a CPU per rank the
// blocks take 64 KiB, and are no larger than that needs; a smaller
// coll_sm_max_bytes caps them all.
func TestSegmentLimits(t *testing.T) {
	const k = 1 << 10
	for _, tc := range []struct {
		maxBytes       int
		oversubscribed bool
		block          int
		want           limits
	}{
		{256 * k, true, 256 * k, limits{base: 256 * k, bcast: 128 * k}},
		{256 * k, false, 64 * k, limits{base: 64 * k, bcast: 64 * k}},
		{8 * k, true, 8 * k, limits{base: 8 * k, bcast: 8 * k}},
		{32 * k, false, 32 * k, limits{base: 32 * k, bcast: 32 * k}},
	} {
		block := segmentBlock(tc.maxBytes, tc.oversubscribed)
		if got := segmentLimits(block, tc.oversubscribed); block != tc.block || got != tc.want {
			t.Errorf("max %d, oversubscribed %v: block %d and limits %+v, want %d and %+v",
				tc.maxBytes, tc.oversubscribed, block, got, tc.block, tc.want)
		}
	}
}
