package sm

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// The tests of counts that disagree: rank short passes smaller buffers
// than the others, and each rank must return the error its want says.
const short = 1

const (
	wantNone     = iota
	wantTooLong  // it read a buffer longer than its own
	wantTooShort // it read rank short's
	wantRoot     // it found that the ranks' roots disagree
)

// disagreement is one call of such a test.
type disagreement struct {
	name string
	do   func(tab *coll.Table, c coll.Comm, r, n int) error
	want func(r, n int) int
	// roots, where they disagree: rank r passes roots(r, n).
	roots func(r, n int) int
}

// everyReads: every rank reads every other's contribution.
func everyReads(r, _ int) int {
	if r == short {
		return wantTooLong
	}
	return wantTooShort
}

// rootReads: the root reads every other rank's contribution.
func rootReads(root int) func(r, n int) int {
	return func(r, _ int) int {
		switch {
		case r != root:
			return wantNone
		case r == short:
			return wantTooLong
		}
		return wantTooShort
	}
}

// readRoot: every other rank reads the root's contribution.
func readRoot(root int) func(r, n int) int {
	return func(r, _ int) int {
		switch {
		case r == root:
			return wantNone
		case r == short:
			return wantTooLong
		case root == short:
			return wantTooShort
		}
		return wantNone
	}
}

// shortLength is rank r's length: k, or k-less on rank short.
func shortLength(r, k, less int) int {
	if r == short {
		return k - less
	}
	return k
}

// runDisagreements runs each case on worlds of 2, 3 and 5 ranks made by
// build, after the warm calls: every rank must return, with the error its
// want says and no message sent (sm served the call), and the epochs must
// stay in step: the next calls work.
func runDisagreements(t *testing.T, cases []disagreement, build func(*testing.T, *world), warm []call, maxBytes int) {
	for _, n := range []int{2, 3, 5} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("n%d/%s", n, tc.name), func(t *testing.T) {
				w := newWorld(t, n)
				build(t, w)
				w.runCalls(t, warm)
				errs := make([]error, n)
				before := w.sends() // the set-up's
				w.run(t, func(r int, c *testComm) error {
					errs[r] = tc.do(w.tables[r], c, r, n)
					return nil
				})
				if w.sends() != before {
					t.Fatal("the call went to basic: the test does not test sm")
				}
				for r, err := range errs {
					switch want := tc.want(r, n); {
					case want == wantNone && err != nil:
						t.Errorf("rank %d: %v, want no error", r, err)
					case want == wantTooLong && !errors.Is(err, coll.ErrTooLong):
						t.Errorf("rank %d: %v, want ErrTooLong", r, err)
					case want == wantTooShort && !errors.Is(err, coll.ErrTooShort):
						t.Errorf("rank %d: %v, want ErrTooShort", r, err)
					case want == wantRoot:
						checkRootError(t, r, n, err, tc.roots)
					case want != wantNone && (strings.Contains(err.Error(), "coll sm") || strings.Contains(err.Error(), " on colltest")):
						// The caller names the component, the collective and the communicator.
						t.Errorf("rank %d: %q names the component or the call", r, err)
					}
				}
				w.runCalls(t, sequence(n, maxBytes, 30))
			})
		}
	}
}

// TestCountsDisagree: rank 1 passes shorter buffers than the others, all
// within the segment. The ranks that read a block of the wrong length
// return ErrTooLong (theirs is shorter) or ErrTooShort, every rank
// returns, and the epochs stay in step: the next calls work.
func TestCountsDisagree(t *testing.T) {
	sum := testOps[0].Op
	var cases []disagreement
	cases = append(cases, disagreement{"allreduce", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := shortLength(r, 24, 8)
		return tab.Allreduce(c, colltest.Data(1, r, l), make([]byte, l), sum)
	}, everyReads, nil})
	for _, root := range []int{0, 1} {
		cases = append(cases, disagreement{fmt.Sprintf("reduce/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, 24, 8)
			return tab.Reduce(c, colltest.Data(1, r, l), make([]byte, l), sum, root)
		}, rootReads(root), nil})
		cases = append(cases, disagreement{fmt.Sprintf("gather/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, 9, 2)
			return tab.Gather(c, colltest.Data(1, r, l), make([]byte, n*l), root)
		}, rootReads(root), nil})
		// bcast and scatter: the non-roots read the root's block.
		cases = append(cases, disagreement{fmt.Sprintf("bcast/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			return tab.Bcast(c, colltest.Data(1, root, shortLength(r, 20, 3)), root)
		}, readRoot(root), nil})
		cases = append(cases, disagreement{fmt.Sprintf("scatter/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, 8, 4)
			return tab.Scatter(c, colltest.Data(1, root, n*l), make([]byte, l), root)
		}, readRoot(root), nil})
	}
	cases = append(cases, disagreement{"allgather", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := shortLength(r, 11, 1)
		return tab.Allgather(c, colltest.Data(1, r, l), make([]byte, n*l))
	}, everyReads, nil})
	cases = append(cases, disagreement{"alltoall", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := n * shortLength(r, 8, 4)
		return tab.Alltoall(c, colltest.Data(1, r, l), make([]byte, l))
	}, everyReads, nil})

	// scan and exscan: rank i reads the blocks of the ranks below it (its
	// own included for scan, which is send): rank 0 reads none, rank 1
	// finds rank 0's long, the others rank 1's short.
	prefixReads := func(r, _ int) int {
		switch r {
		case 0:
			return wantNone
		case short:
			return wantTooLong
		}
		return wantTooShort
	}
	cases = append(cases, disagreement{"scan", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := shortLength(r, 24, 8)
		return tab.Scan(c, colltest.Data(1, r, l), make([]byte, l), sum)
	}, prefixReads, nil})
	cases = append(cases, disagreement{"exscan", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := shortLength(r, 24, 8)
		return tab.Exscan(c, colltest.Data(1, r, l), make([]byte, l), sum)
	}, prefixReads, nil})
	// The reduce-scatters: every rank reads every block (its part of
	// each); rank 1's whole vector is shorter. In bytes, so that n of
	// them fit in the segment on 5 ranks.
	cases = append(cases, disagreement{"reduce_scatter_block", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := shortLength(r, 12, 4)
		return tab.ReduceScatterBlock(c, colltest.Data(1, r, n*l), make([]byte, l), byteSum{})
	}, everyReads, nil})
	cases = append(cases, disagreement{"reduce_scatter", func(tab *coll.Table, c coll.Comm, r, n int) error {
		// Rank 1 counts its own part 4 bytes short; all agree on the others'.
		counts := make([]int, n)
		total := 0
		for q := range counts {
			counts[q] = 12
			if q == short {
				counts[q] = shortLength(r, 12, 4)
			}
			total += counts[q]
		}
		return tab.ReduceScatter(c, colltest.Data(1, r, total), make([]byte, counts[r]), counts, byteSum{})
	}, everyReads, nil})
	// allgatherv: each rank reads every other's block at the length its
	// own counts give. Rank 1 contributes less than the others' counts say.
	// When only its own count is short (its counts of the others agree
	// with theirs), it finds every block right and only the others fail;
	// when all its counts are short (its datatype differs), it finds every
	// other block long.
	allgatherv := func(allShort bool) func(tab *coll.Table, c coll.Comm, r, n int) error {
		return func(tab *coll.Table, c coll.Comm, r, n int) error {
			counts, displs := make([]int, n), make([]int, n)
			size := 0
			for q := n - 1; q >= 0; q-- { // not in rank order
				counts[q] = 10
				if q == short || allShort {
					counts[q] = shortLength(r, 10, 4)
				}
				displs[q] = size
				size += counts[q]
			}
			return tab.Allgatherv(c, colltest.Data(1, r, counts[r]), make([]byte, size), counts, displs)
		}
	}
	cases = append(cases, disagreement{"allgatherv/own-count", allgatherv(false), func(r, _ int) int {
		if r == short {
			return wantNone
		}
		return wantTooShort
	}, nil})
	cases = append(cases, disagreement{"allgatherv/all-counts", allgatherv(true), everyReads, nil})

	// Past the first two epochs, whose writes wait for no one.
	runDisagreements(t, cases, func(t *testing.T, w *world) { w.buildSm(t, 64) },
		[]call{{k: kBarrier}, {k: kBarrier}, {k: kBarrier}}, 64)
}

// byteSum adds bytes, wrapping: an operation of 1-byte elements, so that
// n blocks of a reduce-scatter of a few elements fit in the segment.
type byteSum struct{}

func (byteSum) Reduce(in, inout []byte) {
	for i := range in {
		inout[i] += in[i]
	}
}
func (byteSum) Commutative() bool { return true }
func (byteSum) ElemSize() int     { return 1 }

// TestReduceScatterPartialElements: a count that is not whole elements
// fails on every rank, as it does in basic, instead of reducing parts of
// elements.
func TestReduceScatterPartialElements(t *testing.T) {
	w := newWorld(t, 2)
	w.buildSm(t, 64)
	counts := []int{8, 24} // colltest.Affine's elements are 16 bytes
	var failed atomic.Int32
	w.run(t, func(r int, c *testComm) error {
		err := w.tables[r].ReduceScatter(c, make([]byte, 32), make([]byte, counts[r]), counts, colltest.Affine{})
		if err == nil || !strings.Contains(err.Error(), "whole number of 16-byte elements") {
			return fmt.Errorf("error %v, want one about whole elements", err)
		}
		failed.Add(1)
		return nil
	})
	if failed.Load() != 2 {
		t.Errorf("%d ranks failed, want 2", failed.Load())
	}
}

// rootErrorRE finds the ranks and roots that a root error names.
var rootErrorRE = regexp.MustCompile(`rank (\d+) passed root (\d+) where this rank passed root (\d+) to `)

// checkRootError checks that rank r's err says that the roots disagree
// and names a member's root and r's, as roots gives them.
func checkRootError(t *testing.T, r, n int, err error, roots func(r, n int) int) {
	t.Helper()
	if !errors.Is(err, coll.ErrRootsDisagree) {
		t.Errorf("rank %d: %v, want coll.ErrRootsDisagree", r, err)
		return
	}
	m := rootErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		t.Errorf("rank %d: %q does not name both roots", r, err)
		return
	}
	other, theirs, mine := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if other >= n || theirs != roots(other, n) || mine != roots(r, n) || theirs == mine {
		t.Errorf("rank %d: %q, but rank %d passed root %d and this rank root %d", r, err, other, roots(other, n), roots(r, n))
	}
}

func atoi(s string) int {
	i, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return i
}

// Patterns of roots that disagree, rank r passing root(r, n), and what
// each rank of a call of one round then returns: its reads find a root
// that is not its own, or nothing (announce.go).
type rootPattern struct {
	name string
	root func(r, n int) int
	// readRoot: a bcast's or scatter's, each non-root reading the block of
	// the rank it takes for the root; rootReads: a reduce's or gather's,
	// each rank that takes itself for the root reading every block.
	readRoot, rootReads func(r, n int) int
}

var rootPatterns = []rootPattern{
	// The audit's: rank 1 takes itself for the root. A bcast's ranks 0 and
	// 1 each write and read nothing, the others read rank 0's block, as
	// they should: nothing tells that rank 1 did not get rank 0's data. A
	// reduce's ranks 0 and 1 each read the other's block.
	{"second-root", func(r, _ int) int {
		if r == 1 {
			return 1
		}
		return 0
	}, func(int, int) int { return wantNone },
		func(r, _ int) int {
			if r <= 1 {
				return wantRoot
			}
			return wantNone
		}},
	// Rank 2 takes rank 1, a non-root, for the root: it reads the length
	// word that rank 1 wrote when it raised its word (pass). Rank 0, the
	// reduce's root, reads rank 2's block.
	{"follows-non-root", func(r, _ int) int {
		if r == 2 {
			return 1
		}
		return 0
	}, func(r, _ int) int {
		if r == 2 {
			return wantRoot
		}
		return wantNone
	}, func(r, _ int) int {
		if r == 0 {
			return wantRoot
		}
		return wantNone
	}},
	// Rank 0 takes rank 1 for the root, the others rank 0: ranks 0 and 1
	// each wait for the other (this used to hang) until one finds the
	// other's announcement; the others read rank 0's word, raised after
	// its error, and its announcement. No reduce's rank takes itself for
	// the root: no rank reads anything.
	{"cycle", func(r, _ int) int {
		if r == 0 {
			return 1
		}
		return 0
	}, func(int, int) int { return wantRoot }, func(int, int) int { return wantNone }},
}

// rootsDiffer reports whether the ranks of a world of n pass different
// roots.
func rootsDiffer(root func(r, n int) int, n int) bool {
	for r := 1; r < n; r++ {
		if root(r, n) != root(0, n) {
			return true
		}
	}
	return false
}

// TestRootsDisagree: ranks pass different roots to a bcast, reduce,
// gather or scatter. In a call of one round each rank returns what its
// reads find (rootPatterns); in a call of several, whose first round has
// every rank read every member's length word, every rank fails. No rank
// hangs, and the epochs stay in step: the next calls work.
func TestRootsDisagree(t *testing.T) {
	sum := testOps[0].Op
	calls := []struct {
		name     string
		rootRead bool // the root reads (reduce, gather), not the others
		do       func(tab *coll.Table, c coll.Comm, r, n, k, root int) error
	}{
		{"bcast", false, func(tab *coll.Table, c coll.Comm, r, n, k, root int) error {
			return tab.Bcast(c, colltest.Data(1, root, k), root)
		}},
		{"reduce", true, func(tab *coll.Table, c coll.Comm, r, n, k, root int) error {
			return tab.Reduce(c, colltest.Data(1, r, k), make([]byte, k), sum, root)
		}},
		{"gather", true, func(tab *coll.Table, c coll.Comm, r, n, k, root int) error {
			return tab.Gather(c, colltest.Data(1, r, k), make([]byte, n*k), root)
		}},
		{"scatter", false, func(tab *coll.Table, c coll.Comm, r, n, k, root int) error {
			return tab.Scatter(c, colltest.Data(1, root, n*k), make([]byte, k), root)
		}},
	}
	for _, rounds := range []struct {
		name     string
		maxBytes int
		k        int // bytes a rank (scatter: a rank's part), 8-byte elements
	}{{"one-round", 64, 8}, {"rounds", 512, 1200}} {
		t.Run(rounds.name, func(t *testing.T) {
			var cases []disagreement
			for _, pat := range rootPatterns {
				for _, call := range calls {
					reads := pat.readRoot
					if call.rootRead {
						reads = pat.rootReads
					}
					want := func(r, n int) int {
						switch {
						case !rootsDiffer(pat.root, n): // follows-non-root on 2 ranks
							return wantNone
						case rounds.maxBytes > 64:
							return wantRoot
						}
						return reads(r, n)
					}
					cases = append(cases, disagreement{call.name + "/" + pat.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
						return call.do(tab, c, r, n, rounds.k, pat.root(r, n))
					}, want, pat.root})
				}
			}
			runDisagreements(t, cases, func(t *testing.T, w *world) { w.buildSm(t, rounds.maxBytes) },
				[]call{{k: kBarrier}, {k: kBarrier}, {k: kBarrier}}, rounds.maxBytes)
		})
	}
}

// TestPathsDisagree: rank 1's count fits the blocks where the others'
// do not (counts that disagree across the limit), in blocks too small for
// rounds. The others go to the next module, whose messages rank 1 never
// sees, while rank 1 waits for a block that never comes. This used to
// hang. Every rank must now return, and those that fail say that the
// counts disagree; rank 1 names the member that went to the next module.
// The cases are those where the ranks that went there wait for no message
// from rank 1.
func TestPathsDisagree(t *testing.T) {
	const maxBytes = 64
	sum := testOps[0].Op
	cases := []struct {
		name string
		do   func(tab *coll.Table, c coll.Comm, r, n, k int) error
	}{
		{"bcast/root0", func(tab *coll.Table, c coll.Comm, r, n, k int) error {
			return tab.Bcast(c, colltest.Data(1, 0, k), 0)
		}},
		{"reduce/root1", func(tab *coll.Table, c coll.Comm, r, n, k int) error {
			return tab.Reduce(c, colltest.Data(1, r, k), make([]byte, k), sum, short)
		}},
		{"gather/root1", func(tab *coll.Table, c coll.Comm, r, n, k int) error {
			return tab.Gather(c, colltest.Data(1, r, k), make([]byte, n*k), short)
		}},
		{"scatter/root0", func(tab *coll.Table, c coll.Comm, r, n, k int) error {
			return tab.Scatter(c, colltest.Data(1, 0, n*k), make([]byte, k), 0)
		}},
	}
	for _, n := range []int{2, 3} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("n%d/%s", n, tc.name), func(t *testing.T) {
				w := newWorld(t, n)
				w.buildSm(t, maxBytes)
				// What they send rank 1 in the call that goes wrong,
				// rank 1, gone with its error, never receives.
				for _, c := range w.comms {
					c.dropTo = short
				}
				// 8-byte elements: the small count fits the blocks (scatter's
				// n of it too), the large does not.
				small, large := 8, 4*maxBytes
				errs := make([]error, n)
				w.run(t, func(r int, c *testComm) error {
					k := large
					if r == short {
						k = small
					}
					errs[r] = tc.do(w.tables[r], c, r, n, k)
					return nil
				})
				failed := 0
				for r, err := range errs {
					if err == nil {
						continue
					}
					failed++
					if !errors.Is(err, coll.ErrTooLong) && !errors.Is(err, coll.ErrTooShort) {
						t.Errorf("rank %d: %v, want ErrTooLong or ErrTooShort", r, err)
					}
					if !strings.Contains(err.Error(), "disagree") {
						t.Errorf("rank %d: %q does not say that the counts disagree", r, err)
					}
				}
				if failed == 0 {
					t.Error("no rank failed")
				}
				if err := errs[short]; err == nil || !strings.Contains(err.Error(), "goes to the next component") {
					t.Errorf("rank %d: %v, want an error that names the member that went to the next component", short, err)
				}
			})
		}
	}
}

// TestAnnouncementWord: a call survives its word, whatever the collective,
// and sizes past 16 GiB saturate; call numbers compare across their wrap.
func TestAnnouncementWord(t *testing.T) {
	for _, name := range callNames {
		for _, path := range []int{pathSegment, pathNext} {
			for _, size := range []int{0, 1, 1 << 20, sizeMax} {
				for _, root := range []int{noRoot, 0, 3, maxMaxRanks - 1} {
					c := callInfo{seq: 77, name: name, path: path, size: size, root: root}
					if got := callOf(c.word()).withRoot(c.rootWord()); got != c {
						t.Errorf("%+v came back as %+v", c, got)
					}
					later := c
					later.seq++
					if got := callOf(c.word()).withRoot(later.rootWord()); got.root != unknownRoot {
						t.Errorf("%+v with the root word of the next call: root %d, want unknown", c, got.root)
					}
				}
			}
		}
	}
	if got := callOf(callInfo{seq: 1, name: "bcast", path: pathNext, size: 1 << 40}.word()); got.size != sizeMax ||
		!strings.Contains(got.describe(), "at least 16 GiB") {
		t.Errorf("a 1 TiB call came back as %+v (%s)", got, got.describe())
	}
	for _, tc := range []struct {
		theirs, mine uint64
		want         int
	}{{5, 5, 0}, {6, 5, 1}, {4, 5, -1}, {seqMask + 3, 1<<seqBits + seqMask + 1, 2}, {1 << seqBits, seqMask, 1}} {
		if got := callOf(callInfo{seq: tc.theirs, name: "scan", path: pathSegment}.word()).since(tc.mine); got != tc.want {
			t.Errorf("call %d since %d: %d, want %d", tc.theirs, tc.mine, got, tc.want)
		}
	}
}
