package basic

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// runErrs runs f on every rank of a communicator of n ranks and returns
// every rank's error; unlike World.Run it expects some.
func runErrs(n int, f func(c coll.Comm) error) []error {
	w := colltest.NewWorld(n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() { errs[r] = f(w.Comm(r)) })
	}
	wg.Wait()
	return errs
}

// TestMismatchedCounts gives rank odd a count that differs from the other
// ranks'. The ranks that receive a message of the wrong length, or a
// failure mark from a rank that did, must return an error naming the
// collective, and no rank may hang.
func TestMismatchedCounts(t *testing.T) {
	const n, odd, k = 4, 2, 8
	m := newModule()
	sum := colltest.SumInt64{}
	// size is k, or 2k at the odd rank.
	size := func(c coll.Comm) int {
		if c.Rank() == odd {
			return 2 * k
		}
		return k
	}
	cases := []struct {
		name   string
		detect []int // ranks that must fail
		f      func(c coll.Comm) error
	}{
		{"bcast", []int{odd}, func(c coll.Comm) error {
			return m.Bcast(c, make([]byte, size(c)), 0)
		}},
		{"reduce", []int{1}, func(c coll.Comm) error {
			return m.Reduce(c, make([]byte, size(c)), make([]byte, size(c)), sum, 1)
		}},
		{"allreduce", []int{0, 1, odd, 3}, func(c coll.Comm) error {
			return m.Allreduce(c, make([]byte, size(c)), make([]byte, size(c)), sum)
		}},
		{"gather", []int{0}, func(c coll.Comm) error {
			return m.Gather(c, make([]byte, k+size(c)), make([]byte, n*(k+size(c))), 0)
		}},
		{"gatherv", []int{n - 1}, func(c coll.Comm) error {
			counts, displs := even(n, k)
			return m.Gatherv(c, make([]byte, size(c)), make([]byte, n*k), counts, displs, n-1)
		}},
		{"scatter", []int{odd}, func(c coll.Comm) error {
			return m.Scatter(c, make([]byte, n*size(c)), make([]byte, size(c)), 0)
		}},
		{"scatterv", []int{odd}, func(c coll.Comm) error {
			counts, displs := even(n, k)
			return m.Scatterv(c, make([]byte, n*k), counts, displs, make([]byte, size(c)), 0)
		}},
		{"allgather", []int{0, 1, odd, 3}, func(c coll.Comm) error {
			return m.Allgather(c, make([]byte, size(c)), make([]byte, n*size(c)))
		}},
		{"allgatherv", []int{0, 1, 3}, func(c coll.Comm) error {
			counts, displs := even(n, k)
			if c.Rank() == odd { // it alone believes everyone sends 2k
				counts, displs = even(n, 2*k)
			}
			return m.Allgatherv(c, make([]byte, counts[c.Rank()]), make([]byte, n*counts[0]), counts, displs)
		}},
		{"alltoall", []int{0, 1, odd, 3}, func(c coll.Comm) error {
			return m.Alltoall(c, make([]byte, n*size(c)), make([]byte, n*size(c)))
		}},
		{"alltoallv", []int{0}, func(c coll.Comm) error {
			counts, displs := even(n, k)
			scounts := counts
			if c.Rank() == odd { // sends rank 0 more than it expects
				scounts = []int{2 * k, k, k, k}
			}
			return m.Alltoallv(c, make([]byte, n*2*k), scounts, displs, make([]byte, n*k), counts, displs)
		}},
		{"reduce_scatter", []int{odd}, func(c coll.Comm) error {
			counts := []int{k, k, k, 2 * k}
			if c.Rank() == odd { // same total, another split
				counts = []int{k, k, 2 * k, k}
			}
			return m.ReduceScatter(c, make([]byte, 5*k), make([]byte, counts[c.Rank()]), counts, sum)
		}},
		{"reduce_scatter_block", []int{0, 1, odd, 3}, func(c coll.Comm) error {
			return m.ReduceScatterBlock(c, make([]byte, n*size(c)), make([]byte, size(c)), sum)
		}},
		{"scan", []int{odd, odd + 1}, func(c coll.Comm) error {
			return m.Scan(c, make([]byte, size(c)), make([]byte, size(c)), sum)
		}},
		{"exscan", []int{odd, odd + 1}, func(c coll.Comm) error {
			return m.Exscan(c, make([]byte, size(c)), make([]byte, size(c)), sum)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := runErrs(n, tc.f)
			for _, r := range tc.detect {
				if errs[r] == nil {
					t.Errorf("rank %d: no error", r)
				}
			}
			// The caller names the component, the collective and the
			// communicator: the component's error leaves them out.
			for r, err := range errs {
				if err != nil && (strings.Contains(err.Error(), "coll basic") || strings.Contains(err.Error(), tc.name+" on ")) {
					t.Errorf("rank %d: error %q names the component or the call", r, err)
				}
			}
		})
	}
}

// TestBadArguments calls each collective with arguments that are wrong at
// one rank: it must fail at once, before sending anything, so the test
// runs that rank alone.
func TestBadArguments(t *testing.T) {
	m := newModule()
	sum := colltest.SumInt64{}
	b := func(n int) []byte { return make([]byte, n) }
	cases := []struct {
		name, coll, want string
		rank             int
		f                func(c coll.Comm) error
	}{
		{"bcast root high", "bcast", "root 3 is not a rank", 0, func(c coll.Comm) error { return m.Bcast(c, b(8), 3) }},
		{"bcast root negative", "bcast", "root -1 is not a rank", 0, func(c coll.Comm) error { return m.Bcast(c, b(8), -1) }},
		{"reduce short recv", "reduce", "the root's recv holds 0 bytes, want 8", 0, func(c coll.Comm) error { return m.Reduce(c, b(8), nil, sum, 0) }},
		{"reduce partial element", "reduce", "12 bytes are not a whole number of the operation's 8-byte elements", 1, func(c coll.Comm) error { return m.Reduce(c, b(12), nil, sum, 0) }},
		{"reduce no op", "reduce", "no reduction operation", 1, func(c coll.Comm) error { return m.Reduce(c, b(8), nil, nil, 0) }},
		{"allreduce recv", "allreduce", "recv holds 16 bytes, want 8", 2, func(c coll.Comm) error { return m.Allreduce(c, b(8), b(16), sum) }},
		{"gather recv", "gather", "the root's recv holds 20 bytes, want 24", 1, func(c coll.Comm) error { return m.Gather(c, b(8), b(20), 1) }},
		{"gatherv counts", "gatherv", "2 recv counts and 3 displacements, want one of each per rank (3)", 0, func(c coll.Comm) error {
			return m.Gatherv(c, b(8), b(24), []int{8, 8}, []int{0, 8, 16}, 0)
		}},
		{"gatherv negative", "gatherv", "recv count of rank 1 is -8 bytes: negative", 0, func(c coll.Comm) error {
			return m.Gatherv(c, b(8), b(24), []int{8, -8, 8}, []int{0, 8, 16}, 0)
		}},
		{"gatherv beyond", "gatherv", "recv block of rank 2 (displacement 20, 8 bytes) does not fit in the 24-byte recv buffer", 0, func(c coll.Comm) error {
			return m.Gatherv(c, b(8), b(24), []int{8, 8, 8}, []int{0, 8, 20}, 0)
		}},
		{"gatherv own", "gatherv", "the root's send holds 16 bytes, want 8", 0, func(c coll.Comm) error {
			return m.Gatherv(c, b(16), b(24), []int{8, 8, 8}, []int{0, 8, 16}, 0)
		}},
		{"scatter send", "scatter", "the root's send holds 8 bytes, want 24", 2, func(c coll.Comm) error { return m.Scatter(c, b(8), b(8), 2) }},
		{"scatterv displacement", "scatterv", "send block of rank 0 (displacement -1, 0 bytes)", 0, func(c coll.Comm) error {
			return m.Scatterv(c, b(24), []int{0, 8, 8}, []int{-1, 8, 16}, nil, 0)
		}},
		{"allgather recv", "allgather", "recv holds 8 bytes, want 24", 1, func(c coll.Comm) error { return m.Allgather(c, b(8), b(8)) }},
		{"allgatherv own", "allgatherv", "send holds 0 bytes, want 8 (this rank's count)", 1, func(c coll.Comm) error {
			return m.Allgatherv(c, nil, b(24), []int{8, 8, 8}, []int{0, 8, 16})
		}},
		{"alltoall blocks", "alltoall", "send holds 8 bytes, not a whole block for each of 3 ranks", 0, func(c coll.Comm) error { return m.Alltoall(c, b(8), b(8)) }},
		{"alltoall recv", "alltoall", "recv holds 48 bytes, want 24", 0, func(c coll.Comm) error { return m.Alltoall(c, b(24), b(48)) }},
		{"alltoallw blocks", "alltoallw", "2 send blocks and 3 receive blocks, want one of each per rank (3)", 0, func(c coll.Comm) error {
			return m.Alltoallw(c, [][]byte{nil, nil}, [][]byte{nil, nil, nil})
		}},
		{"reduce_scatter sum", "reduce_scatter", "send holds 16 bytes, want 24 (the sum of the counts)", 0, func(c coll.Comm) error {
			return m.ReduceScatter(c, b(16), b(8), []int{8, 8, 8}, sum)
		}},
		{"reduce_scatter partial", "reduce_scatter", "the count of rank 1 is 4 bytes", 0, func(c coll.Comm) error {
			return m.ReduceScatter(c, b(16), b(8), []int{8, 4, 4}, sum)
		}},
		{"reduce_scatter_block send", "reduce_scatter_block", "send holds 16 bytes, want 24", 0, func(c coll.Comm) error {
			return m.ReduceScatterBlock(c, b(16), b(8), sum)
		}},
		{"scan recv", "scan", "recv holds 0 bytes, want 8", 2, func(c coll.Comm) error { return m.Scan(c, b(8), nil, sum) }},
		{"exscan recv", "exscan", "recv holds 0 bytes, want 8", 1, func(c coll.Comm) error { return m.Exscan(c, b(8), nil, sum) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f(colltest.NewWorld(3).Comm(tc.rank))
			if err == nil {
				t.Fatal("no error")
			}
			// The caller names the component, the collective and the
			// communicator: the component's error begins with the cause.
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want %q...", err, tc.want)
			}
		})
	}
}

// TestNilAwayFromRoot checks that only the root's buffers are read: the
// others pass nil for them. Exscan's rank 0 may pass no recv at all.
func TestNilAwayFromRoot(t *testing.T) {
	m := newModule()
	run(t, 3, func(c coll.Comm) error {
		if c.Rank() == 0 {
			return m.Exscan(c, make([]byte, 8), nil, colltest.SumInt64{})
		}
		return m.Exscan(c, make([]byte, 8), make([]byte, 8), colltest.SumInt64{})
	})
}

// TestOwnBlockMismatch: rank 1's block to itself is longer or shorter
// than the one it expects from itself. Its error has the class of a
// message of the wrong length; it still exchanges with the others, who
// would wait for ever on it, sending them failure marks, so every rank
// fails and every message sent is received (World.Run checks).
func TestOwnBlockMismatch(t *testing.T) {
	const n, odd = 3, 1
	m := newModule()
	cases := []struct {
		name, want string
		class      error
		f          func(c coll.Comm) error
	}{
		{"alltoallv short", "rank 1 sends itself 8 bytes but expects 16", coll.ErrTooShort, func(c coll.Comm) error {
			rcounts := []int{8, 8, 8}
			if c.Rank() == odd {
				rcounts[odd] = 16
			}
			return m.Alltoallv(c, make([]byte, 24), []int{8, 8, 8}, []int{0, 8, 16}, make([]byte, 32), rcounts, []int{0, 8, 16})
		}},
		{"alltoallv long", "rank 1 sends itself 8 bytes but expects 0", coll.ErrTooLong, func(c coll.Comm) error {
			rcounts := []int{8, 8, 8}
			if c.Rank() == odd {
				rcounts[odd] = 0
			}
			return m.Alltoallv(c, make([]byte, 24), []int{8, 8, 8}, []int{0, 8, 16}, make([]byte, 24), rcounts, []int{0, 8, 16})
		}},
		{"alltoallw", "rank 1 sends itself 4 bytes but expects 5", coll.ErrTooShort, func(c coll.Comm) error {
			send, recv := [][]byte{make([]byte, 4), make([]byte, 4), make([]byte, 4)}, [][]byte{make([]byte, 4), make([]byte, 4), make([]byte, 4)}
			if c.Rank() == odd {
				recv[odd] = make([]byte, 5)
			}
			return m.Alltoallw(c, send, recv)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := make([]error, n)
			colltest.NewWorld(n).Run(t, func(c coll.Comm) error {
				errs[c.Rank()] = tc.f(c)
				return nil
			})
			for r, err := range errs {
				switch {
				case r == odd && (!errors.Is(err, tc.class) || !strings.HasPrefix(err.Error(), tc.want)):
					t.Errorf("rank %d: %v, want %q... of class %v", r, err, tc.want, tc.class)
				case r != odd && !errors.Is(err, coll.ErrPeerFailed):
					t.Errorf("rank %d: %v, want a peer's failure", r, err)
				}
			}
		})
	}
}
