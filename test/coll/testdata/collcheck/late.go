package main

import (
	"time"

	"github.com/gompi/gompi/mpi"
)

// lateBy is how late the late rank comes: longer than coll sm's spinning
// and yielding (1 ms), so that the others sleep on the segment's futexes
// and the late rank's raise must wake them.
const lateBy = 5 * time.Millisecond

// late runs rooted and symmetric collectives with each rank in turn coming
// late to them while the others wait, asleep; every result is checked.
func late(x *checker, w mpi.Comm) {
	n := w.Size()
	for slow := range n {
		arrive := func() {
			if x.rank == slow {
				time.Sleep(lateBy)
			}
		}
		root := (slow + 1) % n

		buf, want := make([]int64, 9), make([]int64, 9)
		for i := range want {
			want[i] = int64(100*slow + i)
		}
		if x.rank == root {
			copy(buf, want)
		}
		arrive()
		x.ok(mpi.Bcast(buf, root, w), "bcast from %d, rank %d late", root, slow)
		same(x, buf, want, "bcast from %d, rank %d late", root, slow)

		sum := make([]int64, 2)
		arrive()
		x.ok(mpi.Allreduce([]int64{int64(x.rank + 1), int64(slow)}, sum, mpi.Sum, w), "allreduce, rank %d late", slow)
		same(x, sum, []int64{int64(n * (n + 1) / 2), int64(n * slow)}, "allreduce, rank %d late", slow)

		all, wantAll := make([]int64, n), make([]int64, n)
		for r := range wantAll {
			wantAll[r] = int64(r * (slow + 1))
		}
		arrive()
		x.ok(mpi.Allgather([]int64{int64(x.rank * (slow + 1))}, all, w), "allgather, rank %d late", slow)
		same(x, all, wantAll, "allgather, rank %d late", slow)

		arrive()
		x.ok(mpi.Barrier(w), "barrier, rank %d late", slow)
	}
}
