package sm

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
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
		return tab.Allreduce(c, data(1, r, l), make([]byte, l), sum)
	}, readersOf1})
	for _, root := range []int{0, 1} {
		cases = append(cases, tcase{fmt.Sprintf("reduce/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := length(r, 24, 8)
			return tab.Reduce(c, data(1, r, l), make([]byte, l), sum, root)
		}, rootReads(root)})
		cases = append(cases, tcase{fmt.Sprintf("gather/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := length(r, 9, 2)
			return tab.Gather(c, data(1, r, l), make([]byte, n*l), root)
		}, rootReads(root)})
		// bcast and scatter: the non-roots read the root's block.
		cases = append(cases, tcase{fmt.Sprintf("bcast/root%d", root), func(tab *coll.Table, c coll.Comm, r, n int) error {
			return tab.Bcast(c, data(1, root, length(r, 20, 3)), root)
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
			return tab.Scatter(c, data(1, root, n*l), make([]byte, l), root)
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
		return tab.Allgather(c, data(1, r, l), make([]byte, n*l))
	}, readersOf1})
	cases = append(cases, tcase{"alltoall", func(tab *coll.Table, c coll.Comm, r, n int) error {
		l := n * length(r, 8, 4)
		return tab.Alltoall(c, data(1, r, l), make([]byte, l))
	}, readersOf1})

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
					}
				}
				// The epochs are still in step on every rank.
				w.runCalls(t, sequence(n, 64, 30))
			})
		}
	}
}
