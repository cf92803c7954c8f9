package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

// localErrors makes calls that every rank passes alike and that each rank
// can refuse without talking to the others: a root out of range, an
// operation MPI does not define on a type, overlapping buffers, counts
// that do not divide, malformed count vectors, a null communicator. The
// communicator must work normally afterwards.
func localErrors(x *checker, w mpi.Comm, u userOps) {
	size := w.Size()
	one := []int32{1}
	for _, root := range []int{size, -1, size + 5} {
		what := fmt.Sprintf("root %d of %d ranks", root, size)
		x.wantErr(mpi.Bcast(one, root, w), mpi.ErrRoot, "bcast %s", what)
		x.wantErr(mpi.Reduce(one, make([]int32, 1), mpi.Sum, root, w), mpi.ErrRoot, "reduce %s", what)
		x.wantErr(mpi.ReduceInPlace([]int32{1}, mpi.Sum, root, w), mpi.ErrRoot, "reduce in place %s", what)
		x.wantErr(mpi.Gather(one, make([]int32, size), root, w), mpi.ErrRoot, "gather %s", what)
		x.wantErr(mpi.GatherInPlace([]int32{1}, root, w), mpi.ErrRoot, "gather in place %s", what)
		x.wantErr(mpi.Gatherv(one, nil, nil, nil, root, w), mpi.ErrRoot, "gatherv %s", what)
		x.wantErr(mpi.Scatter(make([]int32, size), make([]int32, 1), root, w), mpi.ErrRoot, "scatter %s", what)
		x.wantErr(mpi.Scatterv(nil, nil, nil, make([]int32, 1), root, w), mpi.ErrRoot, "scatterv %s", what)
		x.wantErr(mpi.ScatterInPlace(make([]int32, 1), root, w), mpi.ErrRoot, "scatter in place %s", what)
	}

	// Operations on types MPI does not define them on, and user
	// operations on a type they were not made for.
	x.wantErr(mpi.Allreduce([]complex128{1}, make([]complex128, 1), mpi.Max, w), mpi.ErrOp, "allreduce Max on complex128")
	x.wantErr(mpi.Allreduce([]float64{1}, make([]float64, 1), mpi.Band, w), mpi.ErrOp, "allreduce Band on float64")
	x.wantErr(mpi.Allreduce([]int32{1}, make([]int32, 1), mpi.MinLoc, w), mpi.ErrOp, "allreduce MinLoc on int32")
	x.wantErr(mpi.Reduce([]mpi.Pair[float64]{{}}, make([]mpi.Pair[float64], 1), mpi.Sum, 0, w), mpi.ErrOp, "reduce Sum on Pair[float64]")
	x.wantErr(mpi.Scan([]float64{1}, make([]float64, 1), mpi.Lxor, w), mpi.ErrOp, "scan Lxor on float64")
	x.wantErr(mpi.ReduceScatterBlock(make([]complex128, size), make([]complex128, 1), mpi.Min, w), mpi.ErrOp, "reduce scatter block Min on complex128")
	x.wantErr(mpi.Allreduce([]int32{1}, make([]int32, 1), u.affine, w), mpi.ErrOp, "allreduce of a Pair[int32] user op on int32")
	x.wantErr(mpi.Exscan([]float64{1}, make([]float64, 1), u.plusOne, w), mpi.ErrOp, "exscan of an int64 user op on float64")
	x.wantErr(mpi.AllreduceInPlace([]uint8{1}, u.plusOne, w), mpi.ErrOp, "allreduce in place of an int64 user op on uint8")
	x.wantErr(mpi.Allreduce([]int32{1}, make([]int32, 1), mpi.Op{}, w), mpi.ErrOp, "allreduce with the null op")

	// Overlapping send and receive buffers; adjacent ones are fine.
	b := make([]int32, 4*size+8)
	x.wantErr(mpi.Allreduce(b[:4], b[:4], mpi.Sum, w), mpi.ErrBuffer, "allreduce with send = recv")
	x.wantErr(mpi.Allreduce(b[0:4], b[2:6], mpi.Sum, w), mpi.ErrBuffer, "allreduce with overlapping buffers")
	x.wantErr(mpi.Scan(b[3:7], b[0:4], mpi.Max, w), mpi.ErrBuffer, "scan with overlapping buffers")
	x.wantErr(mpi.Exscan(b[:2], b[1:3], mpi.Sum, w), mpi.ErrBuffer, "exscan with overlapping buffers")
	x.wantErr(mpi.Allgather(b[:1], b[:size], w), mpi.ErrBuffer, "allgather with overlapping buffers")
	x.wantErr(mpi.Alltoall(b[:size], b[:size], w), mpi.ErrBuffer, "alltoall with send = recv")
	x.wantErr(mpi.ReduceScatterBlock(b[:size], b[size-1:size], mpi.Sum, w), mpi.ErrBuffer, "reduce scatter block with overlapping buffers")
	ones, at := make([]int, size), make([]int, size)
	for i := range size {
		ones[i], at[i] = 1, i
	}
	x.wantErr(mpi.Allgatherv(b[size-1:size], b[:size], ones, at, w), mpi.ErrBuffer, "allgatherv with overlapping buffers")
	x.wantErr(mpi.Alltoallv(b[:size], ones, at, b[size-1:2*size-1], ones, at, w), mpi.ErrBuffer, "alltoallv with overlapping buffers")
	for i := range b {
		b[i] = int32(i)
	}
	x.ok(mpi.Allreduce(b[0:4], b[4:8], mpi.Sum, w), "allreduce with adjacent buffers")
	same(x, b[:8], []int32{0, 1, 2, 3, 0, int32(size), int32(2 * size), int32(3 * size)}, "allreduce with adjacent buffers")

	// Counts.
	if size > 1 {
		x.wantErr(mpi.AlltoallInPlace(make([]int32, size+1), w), mpi.ErrCount, "alltoall in place of %d elements on %d ranks", size+1, size)
		x.wantErr(mpi.AllgatherInPlace(make([]int32, size+1), w), mpi.ErrCount, "allgather in place of %d elements on %d ranks", size+1, size)
		x.wantErr(mpi.ReduceScatterBlockInPlace(make([]int32, size+1), mpi.Sum, w), mpi.ErrCount, "reduce scatter block in place of %d elements on %d ranks", size+1, size)
	}
	x.wantErr(mpi.Alltoall(make([]int32, 2*size), make([]int32, size), w), mpi.ErrCount, "alltoall sending blocks of 2, receiving blocks of 1")
	neg := append([]int{-1}, ones[1:]...)
	x.wantErr(mpi.Allgatherv(one, make([]int32, size), neg, at, w), mpi.ErrCount, "allgatherv with a negative count")
	x.wantErr(mpi.Allgatherv(one, make([]int32, size+1), append(ones, 1), append(at, size), w), mpi.ErrArg, "allgatherv with a count too many")
	x.wantErr(mpi.ReduceScatter(make([]int32, size), make([]int32, 1), ones[1:], mpi.Sum, w), mpi.ErrArg, "reduce scatter with a count too few")
	far := append([]int{}, at...)
	far[size-1] = size
	x.wantErr(mpi.Allgatherv(one, make([]int32, size), ones, far, w), mpi.ErrBuffer, "allgatherv with a block past the buffer")
	x.wantErr(mpi.Alltoallv(make([]int32, size), ones, at, make([]int32, size), ones, far, w), mpi.ErrBuffer, "alltoallv with a block past the buffer")

	var null mpi.Comm
	x.wantErr(mpi.Barrier(null), mpi.ErrComm, "barrier on the null communicator")
	x.wantErr(mpi.Allreduce(one, make([]int32, 1), mpi.Sum, null), mpi.ErrComm, "allreduce on the null communicator")
	x.wantErr(mpi.Bcast(one, 0, null), mpi.ErrComm, "bcast on the null communicator")

	// After all that the communicator works.
	got := make([]int32, 1)
	x.ok(mpi.Allreduce(one, got, mpi.Sum, w), "allreduce after the errors")
	equal(x, got[0], int32(size), "allreduce after the errors")
}

// inPlaceAtNonRoot passes InPlace where only the root may, through pmpi
// (package mpi never does). Each non-root must refuse; the root fails on
// a buffer too small, so that no rank waits for another.
func inPlaceAtNonRoot(x *checker) {
	api := pmpi.Real()
	w := api.CommWorld()
	me, size := mpi.CommWorld().Rank(), mpi.CommWorld().Size()
	if size == 1 {
		return
	}
	root := size - 1
	dt := pmpi.Int32
	small := make([]byte, 1)
	check := func(err error, what string) {
		if me != root {
			x.wantErr(err, mpi.ErrBuffer, "%s with InPlace at a non-root", what)
			if err != nil && !strings.Contains(err.Error(), "InPlace is allowed only at the root") {
				x.errorf("%s with InPlace at a non-root: the error %q does not say why", what, err)
			}
			return
		}
		x.wantErr(err, mpi.ErrBuffer, "%s with a buffer too small at the root", what)
	}
	if me == root {
		check(api.Reduce(pmpi.InPlace, small, 4, dt, pmpi.OpSum, root, w), "reduce")
		check(api.Gather(pmpi.InPlace, 0, dt, small, 1, dt, root, w), "gather")
		ones := make([]int, size)
		for i := range ones {
			ones[i] = 1
		}
		check(api.Gatherv(pmpi.InPlace, 0, dt, small, ones, nil, dt, root, w), "gatherv")
		check(api.Scatter(small, 1, dt, pmpi.InPlace, 0, dt, root, w), "scatter")
		check(api.Scatterv(small, ones, nil, dt, pmpi.InPlace, 0, dt, root, w), "scatterv")
		return
	}
	buf := make([]byte, 4)
	check(api.Reduce(pmpi.InPlace, buf, 1, dt, pmpi.OpSum, root, w), "reduce")
	check(api.Gather(pmpi.InPlace, 0, dt, nil, 1, dt, root, w), "gather")
	check(api.Gatherv(pmpi.InPlace, 0, dt, nil, nil, nil, dt, root, w), "gatherv")
	check(api.Scatter(nil, 1, dt, pmpi.InPlace, 0, dt, root, w), "scatter")
	check(api.Scatterv(nil, nil, nil, dt, pmpi.InPlace, 0, dt, root, w), "scatterv")
}

// mismatch runs one collective where some ranks' counts disagree with
// the others' (collcheck mismatch KIND), or, for the kinds root-*, their
// roots. A rank that sees the error says "detected" and leaves without
// Finalize, which ends the job; the job must not hang, and some rank must
// detect the mismatch.
func mismatch(x *checker, w mpi.Comm) {
	if len(x.args) != 1 {
		x.fatalf("usage: collcheck mismatch KIND")
	}
	kind := x.args[0]
	if strings.HasPrefix(kind, "root-") {
		rootMismatch(x, w, kind)
		return
	}
	me, size := w.Rank(), w.Size()
	n := 4
	if kind == "bcast-large" {
		n = 100_000
	}
	// Rank 1 has fewer elements than the others; rank 2 more where the
	// collective allows it.
	count := n
	switch me {
	case 1:
		count = n - 1
	case 2:
		count = n + 1
	}
	// The straddles: rank 1's count fits coll sm's blocks, the others' go
	// in rounds (or to the next component, where the blocks are too small
	// for rounds), after a large call that agrees.
	if strings.HasSuffix(kind, "-straddle") {
		x.ok(mpi.Bcast(make([]int32, 200_000), 0, w), "large bcast")
		count = 200_000
		if me == 1 {
			count = 4
		}
	}
	var err error
	switch kind {
	case "bcast", "bcast-large", "bcast-straddle":
		err = mpi.Bcast(make([]int32, count), 0, w)
	case "reduce":
		err = mpi.Reduce(make([]int32, count), make([]int32, count), mpi.Sum, 0, w)
	case "allreduce", "allreduce-straddle":
		err = mpi.Allreduce(make([]int32, count), make([]int32, count), mpi.Sum, w)
	case "scan":
		err = mpi.Scan(make([]int32, count), make([]int32, count), mpi.Sum, w)
	case "gather":
		err = mpi.Gather(make([]int32, count), make([]int32, size*count), 0, w)
	case "scatter":
		err = mpi.Scatter(make([]int32, size*count), make([]int32, count), 0, w)
	case "allgather":
		err = mpi.Allgather(make([]int32, count), make([]int32, size*count), w)
	case "alltoall":
		err = mpi.Alltoall(make([]int32, size*count), make([]int32, size*count), w)
	default:
		x.fatalf("mismatch: unknown kind %q", kind)
	}
	detected(x, kind, err, mpi.ErrTruncate, mpi.ErrCount)
}

// rootMismatch runs one rooted collective where the ranks' roots
// disagree (root-COLLECTIVE[-second|-cycle][-large]): rank 2 passes root
// 1 and the others root 0; with -second rank 1 passes root 1 (a second
// rank takes itself for the root); with -cycle rank 0 passes root 1 (ranks
// 0 and 1 each take the other for the root). -large takes several rounds
// in coll sm. Some rank must report MPI_ERR_ROOT.
func rootMismatch(x *checker, w mpi.Comm, kind string) {
	me, size := w.Rank(), w.Size()
	if size < 3 {
		x.fatalf("mismatch %s: wants 3 ranks or more, not %d", kind, size)
	}
	words := strings.Split(kind, "-")
	second, cycle := slices.Contains(words, "second"), slices.Contains(words, "cycle")
	root := 0
	if second && me == 1 || cycle && me == 0 || !second && !cycle && me == 2 {
		root = 1
	}
	n := 4
	if slices.Contains(words, "large") {
		n = 100_000
	}
	var err error
	switch words[1] {
	case "bcast":
		err = mpi.Bcast(make([]int32, n), root, w)
	case "reduce":
		err = mpi.Reduce(make([]int32, n), make([]int32, n), mpi.Sum, root, w)
	case "gather":
		err = mpi.Gather(make([]int32, n), make([]int32, size*n), root, w)
	case "scatter":
		err = mpi.Scatter(make([]int32, size*n), make([]int32, n), root, w)
	default:
		x.fatalf("mismatch: unknown kind %q", kind)
	}
	detected(x, kind, err, mpi.ErrRoot)
}

// detected reports the error of a mismatch of kind, which must be of one
// of the classes want: the rank says so and leaves without Finalize. A
// rank without an error returns.
func detected(x *checker, kind string, err error, want ...error) {
	me := x.rank
	if err == nil {
		return
	}
	if errors.Is(err, mpi.ErrProcFailed) {
		// Another rank detected the mismatch first and left: which one
		// does depends on timing, so this rank's error may be the
		// consequence. The test checks that some rank detected it.
		fmt.Printf("peer left after mismatch %s rank %d: %v\n", kind, me, err)
		os.Exit(3)
	}
	if !slices.ContainsFunc(want, func(class error) bool { return errors.Is(err, class) }) {
		x.fatalf("mismatch %s: error %q, want class %v", kind, err, want)
	}
	fmt.Printf("detected mismatch %s rank %d: %v\n", kind, me, err)
	os.Exit(3)
}

// fatal sets ErrorsAreFatal on world and calls Bcast with a root out of
// range on a Dup of it, which inherits the handler: the job must abort
// with MPI_ERR_ROOT's class number.
func fatal(x *checker, w mpi.Comm) {
	w.SetErrorHandler(mpi.ErrorsAreFatal)
	d, err := w.Dup()
	x.ok(err, "dup")
	err = mpi.Bcast([]int32{1}, d.Size(), d)
	x.fatalf("bcast with root %d under ErrorsAreFatal returned %v", d.Size(), err)
}

// mismatchEach runs one collective where rank 1's count is one more than
// the others' (collcheck mismatcheach KIND), or, for alltoallv-self and
// alltoallw-self, where
// rank 1's block to itself is shorter than the one it expects. Every rank
// must return: one that finds the mismatch with ErrTruncate or ErrCount,
// one that waits on such a rank with its failure mark. Each then checks
// that the communicator still works, which it does only if every message
// of the failed call was received, and finalizes.
func mismatchEach(x *checker, w mpi.Comm) {
	if len(x.args) != 1 {
		x.fatalf("usage: collcheck mismatcheach KIND")
	}
	kind := x.args[0]
	me, size := w.Rank(), w.Size()
	count := 3
	if me == 1 {
		count++
	}
	var err error
	switch kind {
	case "allreduce":
		err = mpi.Allreduce(make([]int64, count), make([]int64, count), mpi.Sum, w)
	case "allgather":
		err = mpi.Allgather(make([]int64, count), make([]int64, size*count), w)
	case "alltoallv-self":
		counts, sdispls, rdispls := make([]int, size), make([]int, size), make([]int, size)
		for i := range counts {
			counts[i], sdispls[i], rdispls[i] = 2, 2*i, 3*i
		}
		rcounts := slices.Clone(counts)
		if me == 1 {
			rcounts[1] = 3
		}
		err = mpi.Alltoallv(make([]int64, 2*size), counts, sdispls, make([]int64, 3*size), rcounts, rdispls, w)
	case "alltoallw-self":
		counts, types, sdispls, rdispls := make([]int, size), make([]mpi.Datatype, size), make([]int, size), make([]int, size)
		for i := range counts {
			counts[i], types[i], sdispls[i], rdispls[i] = 2, mpi.TypeOf[int64](), 16*i, 24*i
		}
		rcounts := slices.Clone(counts)
		if me == 1 {
			rcounts[1] = 3
		}
		err = mpi.Alltoallw(make([]int64, 2*size), counts, sdispls, types, make([]int64, 3*size), rcounts, rdispls, types, w)
	default:
		x.fatalf("mismatcheach: unknown kind %q", kind)
	}
	x.checks++
	switch {
	case err == nil:
		x.errorf("mismatcheach %s: no error", kind)
	case errors.Is(err, mpi.ErrTruncate), errors.Is(err, mpi.ErrCount), errors.Is(err, coll.ErrPeerFailed):
		fmt.Printf("failed mismatcheach %s rank %d: %v\n", kind, me, err)
	default:
		x.errorf("mismatcheach %s: error %q, want ErrTruncate, ErrCount or a peer's failure", kind, err)
	}
	got := make([]int64, 1)
	x.ok(mpi.Allreduce([]int64{1}, got, mpi.Sum, w), "allreduce after the mismatch")
	equal(x, got[0], int64(size), "allreduce after the mismatch")
}
