package main

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// matrix runs every collective with every count, element type, operation
// and root on world and on communicators derived from it, then large
// vectors, two communicators at once, communicator and group calls, and
// the errors each rank can see alone.
func matrix(x *checker, w mpi.Comm) {
	u := newUserOps(x)
	comms := derive(x, w)
	for _, d := range comms {
		if d.comm.IsNull() {
			continue
		}
		checkMembers(x, d)
		collectives(x, d.comm, u)
		isolation(x, d.comm)
	}
	contexts(x, w)
	large(x, w, u)
	concurrent(x, w, u)
	communicators(x, w)
	groups(x, w)
	localErrors(x, w, u)
	inPlaceAtNonRoot(x)
	for _, d := range comms {
		if !d.comm.IsNull() && d.comm != w {
			x.ok(d.comm.Free(), "free %s", d.name)
		}
	}
	x.ok(mpi.Barrier(w), "final barrier")
}

// collectives is the matrix on one communicator.
func collectives(x *checker, c mpi.Comm, u userOps) {
	x.ok(mpi.Barrier(c), "%s barrier", c.Name())
	for _, n := range []int{0, 1, 7} {
		moves(x, c, int32s, n)
		reductions(x, c, u, n)
		x.ok(mpi.Barrier(c), "%s barrier", c.Name())
	}
	moves(x, c, uint8s, 7)
	moves(x, c, float64s, 7)
	moves(x, c, complex128s, 3)
	moves(x, c, pairs, 5)
}

// large runs a few collectives on vectors of about 100k elements.
func large(x *checker, w mpi.Comm, u userOps) {
	size, name := w.Size(), w.Name()
	const n = 100_000
	bcast(x, w, int32s, n, size/2, name+" large bcast int32")
	gather(x, w, float64s, n/size, size-1, name+" large gather float64")
	scatterv(x, w, int32s, 2*n/size, 0, name+" large scatterv int32")
	recv := make([]int32, size*(n/size))
	from := make([][]int32, size)
	for i := range from {
		from[i] = int32s.block(i, 0, n/size)
	}
	x.ok(mpi.Allgather(from[w.Rank()], recv, w), "%s large allgather", name)
	same(x, recv, concat(from), "%s large allgather int32 n=%d", name, n/size)
	alltoall(x, w, float64s, 20_000/size, name+" large alltoall float64")

	sum := float64Reductions()[0]
	reduce(x, w, sum, n)
	reduce(x, w, u.affineReduction(), 20_000)
	reduce(x, w, int64Reductions()[0], 30_000)
}

// derived is a communicator and the world ranks it should hold, in its
// rank order.
type derived struct {
	name    string
	comm    mpi.Comm
	members []int
}

// derive makes the communicators the matrix runs on: world, a Split by
// rank%3 with reversed keys, a Dup, a Create of the even ranks and a
// SplitType of the (single) host's ranks.
func derive(x *checker, w mpi.Comm) []derived {
	me, size := w.Rank(), w.Size()
	all := make([]int, size)
	var mod3, evens []int
	for r := range size {
		all[r] = r
		if r%2 == 0 {
			evens = append(evens, r)
		}
	}
	for r := size - 1; r >= 0; r-- {
		if r%3 == me%3 {
			mod3 = append(mod3, r)
		}
	}
	out := []derived{{"world", w, all}}

	split, err := w.Split(me%3, -me)
	x.ok(err, "split by rank%%3")
	equal(x, split.Name(), "MPI_COMM_WORLD.split", "name of a split")
	x.ok(split.SetName("split-mod3"), "set name")
	out = append(out, derived{"split-mod3", split, mod3})

	dup, err := w.Dup()
	x.ok(err, "dup")
	equal(x, dup.Name(), "MPI_COMM_WORLD.dup", "name of a dup")
	out = append(out, derived{"world.dup", dup, all})

	g, err := w.Group()
	x.ok(err, "world group")
	eg, err := g.Incl(evens)
	x.ok(err, "group incl evens")
	created, err := w.Create(eg)
	x.ok(err, "create from the even ranks")
	if me%2 == 1 {
		equal(x, created.IsNull(), true, "create: an odd rank's communicator is null")
	} else {
		equal(x, created.Name(), "MPI_COMM_WORLD.create", "name of a created communicator")
		out = append(out, derived{"world.create", created, evens})
	}

	shared, err := w.SplitType(mpi.CommTypeShared, 0)
	x.ok(err, "split type shared")
	equal(x, shared.Name(), "MPI_COMM_WORLD.shared", "name of a shared split")
	out = append(out, derived{"world.shared", shared, all})
	return out
}

// checkMembers checks a communicator's size, rank and members, through
// its group and through a collective on it.
func checkMembers(x *checker, d derived) {
	me := mpi.CommWorld().Rank()
	equal(x, d.comm.Size(), len(d.members), "%s size", d.name)
	equal(x, d.comm.Rank(), slices.Index(d.members, me), "%s rank", d.name)
	g, err := d.comm.Group()
	x.ok(err, "%s group", d.name)
	wg, err := mpi.CommWorld().Group()
	x.ok(err, "world group")
	ranks := make([]int, len(d.members))
	for i := range ranks {
		ranks[i] = i
	}
	got, err := g.TranslateRanks(ranks, wg)
	x.ok(err, "%s translate ranks", d.name)
	same(x, got, d.members, "%s members by their group", d.name)
	all := make([]int64, len(d.members))
	x.ok(mpi.Allgather([]int64{int64(me)}, all, d.comm), "%s allgather of world ranks", d.name)
	want := make([]int64, len(d.members))
	for i, m := range d.members {
		want[i] = int64(m)
	}
	same(x, all, want, "%s members by an allgather", d.name)
}

// algorithms is the part of the matrix that an algorithm changes, every
// collective on communicators of every size from 1 to the world's, and
// the large vectors on some of them: world, then, for k from 1 to half
// the world, a Split into the first k ranks and the others, both halves
// at once (a job of 9 ranks covers 1 to 9). A duplicate of the world
// adds no shape: matrix runs the collectives on one. The tuned rows of
// the test run it once per forced algorithm; the calls that no algorithm
// touches run in matrix.
func algorithms(x *checker, w mpi.Comm) {
	u := newUserOps(x)
	me, size := w.Rank(), w.Size()
	collectives(x, w, u)
	large(x, w, u)
	for k := 1; k <= size/2; k++ {
		color := 0
		if me >= k {
			color = 1
		}
		split, err := w.Split(color, me)
		x.ok(err, "split into %d ranks and %d", k, size-k)
		want := k
		if color == 1 {
			want = size - k
		}
		equal(x, split.Size(), want, "size of a split into %d ranks and %d", k, size-k)
		x.ok(split.SetName(fmt.Sprintf("split-%d-of-%d", split.Size(), size)), "set name")
		collectives(x, split, u)
		// Large vectors on the most and the least even splits (with the
		// world, 1, 8 and 9 ranks and 4 and 5 in a job of 9): the
		// other splits' large calls cost two thirds of the job and
		// added no communicator shape that these lack.
		if k == 1 || k == size/2 {
			large(x, split, u)
		}
		x.ok(split.Free(), "free the split")
	}
	x.ok(mpi.Barrier(w), "final barrier")
}
