package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// timedRepeats is how often timed repeats each call at the smallest size:
// past the calls coll sm makes on a fixed path (128), its trial of the
// size class (4 calls on each path) and its choice after it. The larger
// sizes repeat fewer times, still through the fixed path's calls.
const timedRepeats = 137

// timedLargeRepeats is how often the larger sizes repeat each call.
const timedLargeRepeats = 14

// timed repeats the collectives whose path coll sm times (bcast, allgather
// and alltoall from 2 KiB on 2 ranks and 16 KiB on more; reduce to rank 0
// or of a non-commutative operation on 2 ranks) at 4, 64 and 256 KiB,
// at 4 KiB often enough for the trial and the choice after it: every
// result must be right on whichever path each call took. coll_sm_path fixes the path.
func timed(x *checker, w mpi.Comm) {
	me, size := w.Rank(), w.Size()
	u := newUserOps(x)
	sum := float64Reductions()[0]
	affine := u.affineReduction()
	for _, kib := range []int{4, 64, 256} {
		n := kib << 10 / 4 // int32 elements
		repeats := timedLargeRepeats
		if kib == 4 {
			repeats = timedRepeats
		}
		for i := range repeats {
			what := func(coll string) string { return fmt.Sprintf("timed %s %d KiB call %d", coll, kib, i) }
			bcast(x, w, int32s, n, i%size, what("bcast"))

			from := make([][]int32, size)
			for r := range from {
				from[r] = int32s.block(r, 0, n)
			}
			recv := int32s.holes(size * n)
			x.ok(mpi.Allgather(from[me], recv, w), "%s", what("allgather"))
			same(x, recv, concat(from), "%s", what("allgather"))

			alltoall(x, w, int32s, n/size, what("alltoall"))
			timedReduce(x, w, sum, n/2, 0, what("reduce sum"))
			timedReduce(x, w, affine, n/2, size-1, what("reduce affine"))
		}
	}
}

// timedReduce reduces n elements of d to root and checks the result there.
func timedReduce[T mpi.Elem](x *checker, w mpi.Comm, d reduction[T], n, root int, what string) {
	var recv []T
	if w.Rank() == root {
		recv = make([]T, n)
	}
	x.ok(mpi.Reduce(d.input(w.Rank(), n), recv, d.op, root, w), "%s root %d", what, root)
	if w.Rank() == root {
		same(x, recv, d.fold(0, w.Size()-1, n), "%s root %d", what, root)
	}
}
