package sm

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// TestCountsDisagree: rank 1 passes shorter buffers than the others, all
// within the segment. The ranks that read a block of the wrong length
// return ErrTooLong (theirs is shorter) or ErrTooShort, every rank
// returns, and the epochs stay in step: the next calls work.
func TestCountsDisagree(t *testing.T) {
	const short = 1
	sum := testOps[0].op
	// want is the error each rank must return: the ranks that read rank
	// 1's block find it short; rank 1 finds the others' long.
	const (
		none = iota
		tooLong
		tooShort
	)
	type tcase struct {
		name string
		do   func(tab *coll.Table, c coll.Comm, r, n int) error
		want func(r, n int) int
	}
	readersOf1 := func(r, _ int) int { // every rank reads every block
		if r == short {
			return tooLong
		}
		return tooShort
	}
	rootReads := func(root int) func(r, n int) int {
		return func(r, _ int) int {
			switch {
			case r != root:
				return none
			case r == short:
				return tooLong
			}
			return tooShort
		}
	}
	// length is rank r's length: k, or less on rank 1.
	length := func(r, k, less int) int {
		if r == short {
			return k - less
		}
		return k
	}
	var cases []tcase
	cases = append(cases, tcase{"allreduce", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := length(r, 24, 8)
		return tab.Allreduce(c, colltest.Data(1, r, l), make([]byte, l), sum)
	}, readersOf1})
	for _, root := range []int{0, 1} {
		cases = append(cases, tcase{fmt.Sprintf("reduce/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := length(r, 24, 8)
			return tab.Reduce(c, colltest.Data(1, r, l), make([]byte, l), sum, root)
		}, rootReads(root)})
		cases = append(cases, tcase{fmt.Sprintf("gather/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := length(r, 9, 2)
			return tab.Gather(c, colltest.Data(1, r, l), make([]byte, n*l), root)
		}, rootReads(root)})
		// bcast and scatter: the non-roots read the root's block.
		cases = append(cases, tcase{fmt.Sprintf("bcast/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			return tab.Bcast(c, colltest.Data(1, root, length(r, 20, 3)), root)
		}, func(r, _ int) int {
			switch {
			case r == root:
				return none
			case r == short:
				return tooLong
			case root == short:
				return tooShort
			}
			return none
		}})
		cases = append(cases, tcase{fmt.Sprintf("scatter/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := length(r, 8, 4)
			return tab.Scatter(c, colltest.Data(1, root, n*l), make([]byte, l), root)
		}, func(r, _ int) int {
			switch {
			case r == root:
				return none
			case r == short:
				return tooLong
			case root == short:
				return tooShort
			}
			return none
		}})
	}
	cases = append(cases, tcase{"allgather", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := length(r, 11, 1)
		return tab.Allgather(c, colltest.Data(1, r, l), make([]byte, n*l))
	}, readersOf1})
	cases = append(cases, tcase{"alltoall", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := n * length(r, 8, 4)
		return tab.Alltoall(c, colltest.Data(1, r, l), make([]byte, l))
	}, readersOf1})

	// scan and exscan: rank i reads the blocks of the ranks below it (its
	// own included for scan, which is send): rank 0 reads none, rank 1
	// finds rank 0's long, the others rank 1's short.
	prefixReads := func(r, _ int) int {
		switch r {
		case 0:
			return none
		case short:
			return tooLong
		}
		return tooShort
	}
	cases = append(cases, tcase{"scan", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := length(r, 24, 8)
		return tab.Scan(c, colltest.Data(1, r, l), make([]byte, l), sum)
	}, prefixReads})
	cases = append(cases, tcase{"exscan", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := length(r, 24, 8)
		return tab.Exscan(c, colltest.Data(1, r, l), make([]byte, l), sum)
	}, prefixReads})
	// The reduce-scatters: every rank reads every block (its part of
	// each); rank 1's whole vector is shorter. In bytes, so that n of
	// them fit in the segment on 5 ranks.
	cases = append(cases, tcase{"reduce_scatter_block", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := length(r, 12, 4)
		return tab.ReduceScatterBlock(c, colltest.Data(1, r, n*l), make([]byte, l), byteSum{})
	}, readersOf1})
	cases = append(cases, tcase{"reduce_scatter", func(tab *coll.Table, c coll.Comm, r, n int) error {
		// Rank 1 counts its own part 4 bytes short; all agree on the others'.
		counts := make([]int, n)
		total := 0
		for q := range counts {
			counts[q] = 12
			if q == short {
				counts[q] = length(r, 12, 4)
			}
			total += counts[q]
		}
		return tab.ReduceScatter(c, colltest.Data(1, r, total), make([]byte, counts[r]), counts, byteSum{})
	}, readersOf1})
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
					counts[q] = length(r, 10, 4)
				}
				displs[q] = size
				size += counts[q]
			}
			return tab.Allgatherv(c, colltest.Data(1, r, counts[r]), make([]byte, size), counts, displs)
		}
	}
	cases = append(cases, tcase{"allgatherv/own-count", allgatherv(false), func(r, _ int) int {
		if r == short {
			return none
		}
		return tooShort
	}})
	cases = append(cases, tcase{"allgatherv/all-counts", allgatherv(true), readersOf1})

	for _, n := range []int{2, 3, 5} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("n%d/%s", n, tc.name), func(t *testing.T) {
				w := newWorld(t, n)
				w.buildSm(t, 64)
				// Past the first two epochs, whose writes wait for no one.
				w.runCalls(t, []call{{k: kBarrier}, {k: kBarrier}, {k: kBarrier}})
				errs := make([]error, n)
				before := w.sends() // the set-up's
				w.run(t, func(r int, c *testComm) error {
					errs[r] = tc.do(w.tables[r], c, r, n)
					return nil
				})
				for r, err := range errs {
					switch want := tc.want(r, n); {
					case w.sends() != before:
						t.Fatalf("the call went to basic: the test does not test sm")
					case want == none && err != nil:
						t.Errorf("rank %d: %v, want no error", r, err)
					case want == tooLong && !errors.Is(err, coll.ErrTooLong):
						t.Errorf("rank %d: %v, want ErrTooLong", r, err)
					case want == tooShort && !errors.Is(err, coll.ErrTooShort):
						t.Errorf("rank %d: %v, want ErrTooShort", r, err)
					case want != none && !strings.Contains(err.Error(), "coll sm: "+strings.SplitN(tc.name, "/", 2)[0]+" on "):
						t.Errorf("rank %d: %q does not name sm and the collective", r, err)
					}
				}
				// The epochs are still in step on every rank.
				w.runCalls(t, sequence(n, 64, 30))
			})
		}
	}
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
