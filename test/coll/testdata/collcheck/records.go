package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// records checks user operations whose unit is a record of several
// elements (mpi.Record): the composition of affine maps, a pair of int64
// that is not commutative, and the merge of Welford's (count, mean, M2)
// triples of float64. Counts cross coll sm's rounds (a block of 256 KiB:
// 16384 pairs, 10922 triples) and its split allreduce (each rank reduces
// an n-th of the records), and tuned's segments, rings and halvings: a
// cut inside a record would hand the operation a partial one. Every
// result is checked exactly against the rank's own fold in rank order:
// affine maps in wrapping integers, and Welford triples whose means are
// alike on every rank, so that every merge is exact whatever the order.
func records(x *checker, w mpi.Comm) {
	affine, err := mpi.NewOp(composeAffine, false, mpi.Record(2))
	x.ok(err, "make the affine operation")
	welford, err := mpi.NewOp(mergeWelford, true, mpi.Record(3))
	x.ok(err, "make the Welford operation")

	for _, recs := range []int{1, 7, 10000, 16385, 40001} {
		recordCases(x, w, "affine", affine, 2, recs, affineInput, composeAffine)
	}
	for _, recs := range []int{1, 5, 10923, 50000} {
		recordCases(x, w, "welford", welford, 3, recs, welfordInput, mergeWelford)
	}

	// A count that is not a whole number of records is refused alike on
	// every rank, before any data moves.
	n := w.Size()
	x.wantErr(mpi.Allreduce(make([]int64, 3), make([]int64, 3), affine, w), mpi.ErrCount, "allreduce of 1.5 pairs")
	err = mpi.ReduceScatter(make([]int64, 4*n), make([]int64, 4), slices.Repeat([]int{4}, n)[:n-1:n], affine, w)
	x.wantErr(err, mpi.ErrArg, "reduce_scatter with a count missing")
	counts := slices.Repeat([]int{2}, n)
	counts[n-1] = 3
	total := 2*n + 1
	mine := make([]int64, counts[x.rank])
	err = mpi.ReduceScatter(make([]int64, total), mine, counts, affine, w)
	x.wantErr(err, mpi.ErrCount, "reduce_scatter with a count of 1.5 pairs for rank %d", n-1)
	if err != nil && !strings.Contains(err.Error(), "records of 2 elements") {
		x.errorf("reduce_scatter with a count of 1.5 pairs: %q does not name the records", err)
	}
}

// recordCases runs every reduction of recs records of size elements of
// T on w with op, and checks each against fold applied in rank order to
// the inputs that input gives (rank, element index).
func recordCases[T mpi.Elem](x *checker, w mpi.Comm, name string, op mpi.Op, size, recs int,
	input func(r, i int) T, fold func(in, inout []T)) {
	n, me := w.Size(), x.rank
	count := recs * size
	inputs := make([][]T, n)
	for r := range inputs {
		inputs[r] = make([]T, count)
		for i := range inputs[r] {
			inputs[r][i] = input(r, i)
		}
	}
	// scan[r] is the fold of ranks 0 to r.
	scan := make([][]T, n)
	scan[0] = slices.Clone(inputs[0])
	for r := 1; r < n; r++ {
		scan[r] = slices.Clone(inputs[r])
		fold(scan[r-1], scan[r])
	}
	want := scan[n-1]
	what := func(call string) string { return fmt.Sprintf("%s %s of %d records", name, call, recs) }

	recv := make([]T, count)
	x.ok(mpi.Allreduce(inputs[me], recv, op, w), "%s", what("allreduce"))
	same(x, recv, want, "%s", what("allreduce"))

	buf := slices.Clone(inputs[me])
	x.ok(mpi.AllreduceInPlace(buf, op, w), "%s", what("allreduce in place"))
	same(x, buf, want, "%s", what("allreduce in place"))

	for _, root := range []int{0, n - 1} {
		recv := make([]T, count)
		x.ok(mpi.Reduce(inputs[me], recv, op, root, w), "%s to %d", what("reduce"), root)
		if me == root {
			same(x, recv, want, "%s to %d", what("reduce"), root)
		}
	}

	recv = make([]T, count)
	x.ok(mpi.Scan(inputs[me], recv, op, w), "%s", what("scan"))
	same(x, recv, scan[me], "%s", what("scan"))

	recv = make([]T, count)
	x.ok(mpi.Exscan(inputs[me], recv, op, w), "%s", what("exscan"))
	if me > 0 {
		same(x, recv, scan[me-1], "%s", what("exscan"))
	}

	// Blocks of recs records for every rank: the whole vector is n times
	// recs, its parts start at multiples of a record.
	whole := make([][]T, n)
	for r := range whole {
		whole[r] = slices.Concat(slices.Repeat([][]T{inputs[r]}, n)...)
	}
	block := make([]T, count)
	x.ok(mpi.ReduceScatterBlock(whole[me], block, op, w), "%s", what("reduce_scatter_block"))
	same(x, block, want, "%s", what("reduce_scatter_block"))

	// Uneven parts: rank r gets a share of the records that grows with r.
	tri := func(r int) int { return recs * (r * (r + 1) / 2) / (n * (n + 1) / 2) }
	counts := make([]int, n)
	off := 0
	for r := range n {
		counts[r] = (tri(r+1) - tri(r)) * size
		if r < me {
			off += counts[r]
		}
	}
	part := make([]T, counts[me])
	x.ok(mpi.ReduceScatter(inputs[me], part, counts, op, w), "%s %v", what("reduce_scatter"), counts)
	same(x, part, want[off:off+counts[me]], "%s %v", what("reduce_scatter"), counts)
}

// composeAffine is (a1, b1) ⊕ (a2, b2) = x -> a2*(a1*x+b1)+b2 on every
// pair: in is applied first, as MPI orders the operands.
func composeAffine(in, inout []int64) {
	for i := 0; i < len(inout); i += 2 {
		a1, b1, a2, b2 := in[i], in[i+1], inout[i], inout[i+1]
		inout[i], inout[i+1] = a2*a1, a2*b1+b2
	}
}

// affineInput: odd factors, so that no product wraps to zero.
func affineInput(r, i int) int64 {
	if i%2 == 0 {
		return int64(2*((r*31+i*7)%1001) + 1)
	}
	return int64(r*1000003+i*17) - 500
}

// mergeWelford merges the (count, mean, M2) triples of two samples (Chan
// et al.).
func mergeWelford(in, inout []float64) {
	for i := 0; i < len(inout); i += 3 {
		na, ma, qa := in[i], in[i+1], in[i+2]
		nb, mb, qb := inout[i], inout[i+1], inout[i+2]
		nt := na + nb
		d := mb - ma
		inout[i], inout[i+1], inout[i+2] = nt, ma+d*nb/nt, qa+qb+d*d*na*nb/nt
	}
}

// welfordInput: counts and M2 differ by rank; means differ by record and
// are alike on every rank, so that a triple read from the wrong offset
// gives a wrong result while a right merge is exact.
func welfordInput(r, i int) float64 {
	rec := i / 3
	switch i % 3 {
	case 0:
		return float64(1 + (r+rec)%4)
	case 1:
		return float64(rec%97) * 0.25
	}
	return float64((r*13 + rec*5) % 50)
}
