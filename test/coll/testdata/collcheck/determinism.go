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

// sameBits reports whether a and b hold the same float64 bits.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
}
