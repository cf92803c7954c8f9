package main

import (
	"math"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// determinism checks that reductions of values whose sum depends on the
// order of the additions give the same bits every time, and the same on
// every rank: the order is the algorithm's, never the messages' arrival.
// Counts span the small and large paths (and coll sm's split reduction).
func determinism(x *checker, w mpi.Comm) {
	n := w.Size()
	for _, count := range []int{1, 7, 1000, 40000, 300000} {
		send := make([]float64, count)
		for i := range send {
			// Magnitudes that differ by orders, so that addition rounds.
			send[i] = math.Sqrt(float64(x.rank*count+i+2)) * math.Pow(10, float64((x.rank*7+i)%13-6))
		}
		var first, firstScan, firstBlock []float64
		blockLen := count / n
		for rep := range 4 {
			recv := make([]float64, count)
			x.ok(mpi.Allreduce(send, recv, mpi.Sum, w), "allreduce of %d", count)
			if rep == 0 {
				first = recv
				// Every rank has the same bits: gather them all and compare.
				all := make([]float64, count*n)
				x.ok(mpi.Allgather(recv, all, w), "allgather of the result of %d", count)
				for r := range n {
					if !sameBits(all[r*count:(r+1)*count], recv) {
						x.errorf("allreduce of %d: rank %d's result differs from this rank's", count, r)
					}
				}
			} else if !sameBits(recv, first) {
				x.errorf("allreduce of %d: repetition %d differs from the first", count, rep)
			}

			scan := make([]float64, count)
			x.ok(mpi.Scan(send, scan, mpi.Sum, w), "scan of %d", count)
			if rep == 0 {
				firstScan = scan
			} else if !sameBits(scan, firstScan) {
				x.errorf("scan of %d: repetition %d differs from the first", count, rep)
			}

			if blockLen > 0 {
				block := make([]float64, blockLen)
				x.ok(mpi.ReduceScatterBlock(send[:blockLen*n], block, mpi.Sum, w), "reduce-scatter of %d", count)
				if rep == 0 {
					firstBlock = block
				} else if !sameBits(block, firstBlock) {
					x.errorf("reduce-scatter of %d: repetition %d differs from the first", count, rep)
				}
			}
		}
	}
}

// setupAfter is more calls than coll sm makes before its segment
// (coll_sm_segment_after, 256 by default).
const setupAfter = 300

// regrouped checks that a reduction whose sum depends on the grouping
// gives the same bits on a communicator's first calls, before coll sm
// makes its segment, as after it: each reduction is made on a new
// communicator, then again after setupAfter barriers.
func regrouped(x *checker, w mpi.Comm) {
	c, err := w.Dup()
	x.ok(err, "dup")
	n, me := c.Size(), c.Rank()
	const small, large = 7, 3000
	data := func(count int) []float64 {
		v := make([]float64, count)
		for i := range v {
			v[i] = math.Sqrt(float64(me*count+i+2)) * math.Pow(10, float64((me*7+i)%13-6))
		}
		if me == 1 || me == 2 {
			v[0] = float64(3-2*me) * 1e16 // +1e16 at rank 1, -1e16 at rank 2
		}
		return v
	}
	counts := make([]int, n)
	for r := range counts {
		counts[r] = r + 1
	}
	// Each call leaves its result in r, of the length it was made with.
	calls := []struct {
		name string
		n    int
		call func(r []float64) error
	}{
		{"reduce to 0", small, func(r []float64) error { return mpi.Reduce(data(small), r, mpi.Sum, 0, c) }},
		{"reduce to 1", small, func(r []float64) error { return mpi.Reduce(data(small), r, mpi.Sum, 1, c) }},
		{"allreduce", small, func(r []float64) error { return mpi.Allreduce(data(small), r, mpi.Sum, c) }},
		{"allreduce large", large, func(r []float64) error { return mpi.Allreduce(data(large), r, mpi.Sum, c) }},
		{"allreduce prod", small, func(r []float64) error { return mpi.Allreduce(data(small), r, mpi.Prod, c) }},
		{"reduce-scatter", counts[me], func(r []float64) error {
			return mpi.ReduceScatter(data(n*(n+1)/2), r, counts, mpi.Sum, c)
		}},
		{"reduce-scatter-block", small, func(r []float64) error {
			return mpi.ReduceScatterBlock(data(n*small), r, mpi.Sum, c)
		}},
		{"scan", small, func(r []float64) error { return mpi.Scan(data(small), r, mpi.Sum, c) }},
		{"exscan", small, func(r []float64) error { return mpi.Exscan(data(small), r, mpi.Sum, c) }},
		{"iallreduce", small, func(r []float64) error {
			req, err := mpi.Iallreduce(data(small), r, mpi.Sum, c)
			if err == nil {
				_, err = req.Wait()
			}
			return err
		}},
	}
	run := func(i int) []float64 {
		r := make([]float64, calls[i].n)
		x.ok(calls[i].call(r), "%s", calls[i].name)
		return r
	}
	before := make([][]float64, len(calls))
	for i := range calls {
		before[i] = run(i)
	}
	for range setupAfter {
		x.ok(mpi.Barrier(c), "barrier")
	}
	for i, k := range calls {
		if got := run(i); !sameBits(got, before[i]) {
			x.errorf("%s: %v after coll sm's set-up, %v before", k.name, got, before[i])
		}
		x.checks++
	}
	x.ok(c.Free(), "free")
}

// sameBits reports whether a and b hold the same float64 bits.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
}
