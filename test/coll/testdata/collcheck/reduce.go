package main

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// reduction is an operation on one element type with its sequential
// reference: fn(lo, hi) is lo ⊕ hi with lo the lower ranks' operand, and
// in(r, i) is element i of rank r's input. Inputs are chosen so that every
// result is exact in any order of evaluation.
type reduction[T mpi.Elem] struct {
	name string
	op   mpi.Op
	fn   func(lo, hi T) T
	in   func(r, i int) T
}

// input is rank r's n elements.
func (d reduction[T]) input(r, n int) []T {
	b := make([]T, n)
	for i := range b {
		b[i] = d.in(r, i)
	}
	return b
}

// fold is the reduction of the inputs of ranks from to to (inclusive),
// in rank order: their first n elements.
func (d reduction[T]) fold(from, to, n int) []T { return d.foldPart(from, to, 0, n) }

// foldPart is fold of elements lo to hi only: a rank checks its part of a
// reduce scatter without reducing the others' (on 9 ranks, reducing every
// part was most of a job's time).
func (d reduction[T]) foldPart(from, to, lo, hi int) []T {
	acc := make([]T, hi-lo)
	for i := range acc {
		acc[i] = d.in(from, lo+i)
	}
	for r := from + 1; r <= to; r++ {
		for i := range acc {
			acc[i] = d.fn(acc[i], d.in(r, lo+i))
		}
	}
	return acc
}

// reduce runs every reduction collective, plain and in place, with d on
// vectors of n elements on c.
func reduce[T mpi.Elem](x *checker, c mpi.Comm, d reduction[T], n int) {
	me, size := c.Rank(), c.Size()
	what := func(coll string) string { return fmt.Sprintf("%s %s %s n=%d", c.Name(), coll, d.name, n) }
	mine := d.input(me, n)
	all := d.fold(0, size-1, n)

	for _, root := range roots(size) {
		var recv []T
		if me == root {
			recv = make([]T, n)
		}
		x.ok(mpi.Reduce(mine, recv, d.op, root, c), "%s root %d", what("reduce"), root)
		if me == root {
			same(x, recv, all, "%s root %d", what("reduce"), root)
		}
		buf := slices.Clone(mine)
		x.ok(mpi.ReduceInPlace(buf, d.op, root, c), "%s in place root %d", what("reduce"), root)
		if me == root {
			same(x, buf, all, "%s in place root %d", what("reduce"), root)
		} else {
			same(x, buf, mine, "%s in place root %d: a non-root's buffer changed", what("reduce"), root)
		}
	}

	recv := make([]T, n)
	x.ok(mpi.Allreduce(mine, recv, d.op, c), "%s", what("allreduce"))
	same(x, recv, all, "%s", what("allreduce"))
	buf := slices.Clone(mine)
	x.ok(mpi.AllreduceInPlace(buf, d.op, c), "%s in place", what("allreduce"))
	same(x, buf, all, "%s in place", what("allreduce"))

	prefix := d.fold(0, me, n)
	recv = make([]T, n)
	x.ok(mpi.Scan(mine, recv, d.op, c), "%s", what("scan"))
	same(x, recv, prefix, "%s", what("scan"))
	buf = slices.Clone(mine)
	x.ok(mpi.ScanInPlace(buf, d.op, c), "%s in place", what("scan"))
	same(x, buf, prefix, "%s in place", what("scan"))

	// Exscan leaves rank 0's buffer as it was.
	before := d.input(size+3, n)
	want := before
	if me > 0 {
		want = d.fold(0, me-1, n)
	}
	recv = slices.Clone(before)
	x.ok(mpi.Exscan(mine, recv, d.op, c), "%s", what("exscan"))
	same(x, recv, want, "%s", what("exscan"))
	if me == 0 {
		want = mine
	}
	buf = slices.Clone(mine)
	x.ok(mpi.ExscanInPlace(buf, d.op, c), "%s in place", what("exscan"))
	same(x, buf, want, "%s in place", what("exscan"))

	reduceScatter(x, c, d, n, what)
}

func reduceScatter[T mpi.Elem](x *checker, c mpi.Comm, d reduction[T], n int, what func(string) string) {
	me, size := c.Rank(), c.Size()

	// Uneven parts, some empty; recv has one element to spare, which must
	// stay as it was.
	counts := vcounts(size, n)
	total, off := 0, 0
	for i, k := range counts {
		if i < me {
			off += k
		}
		total += k
	}
	part := d.foldPart(0, size-1, off, off+counts[me])
	spare := d.in(size+3, 0)
	recv := append(make([]T, counts[me]), spare)
	x.ok(mpi.ReduceScatter(d.input(me, total), recv, counts, d.op, c), "%s", what("reduce scatter"))
	same(x, recv, append(slices.Clone(part), spare), "%s", what("reduce scatter"))
	buf := d.input(me, total)
	x.ok(mpi.ReduceScatterInPlace(buf, counts, d.op, c), "%s in place", what("reduce scatter"))
	same(x, buf[:counts[me]], part, "%s in place", what("reduce scatter"))

	// Blocks of n for every rank.
	part = d.foldPart(0, size-1, me*n, (me+1)*n)
	recv = make([]T, n)
	x.ok(mpi.ReduceScatterBlock(d.input(me, size*n), recv, d.op, c), "%s", what("reduce scatter block"))
	same(x, recv, part, "%s", what("reduce scatter block"))
	buf = d.input(me, size*n)
	x.ok(mpi.ReduceScatterBlockInPlace(buf, d.op, c), "%s in place", what("reduce scatter block"))
	same(x, buf[:n], part, "%s in place", what("reduce scatter block"))
}
