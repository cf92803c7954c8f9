package main

import (
	"slices"

	"github.com/gompi/gompi/mpi"
)

// moves runs every data-movement collective, plain and in place, with
// blocks of nominal count n of kind k on c, from every root of roots.
func moves[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n int) {
	me, size := c.Rank(), c.Size()
	tag := func(what string) string { return c.Name() + " " + what + " " + k.name }
	for _, root := range roots(size) {
		bcast(x, c, k, n, root, tag("bcast"))
		gather(x, c, k, n, root, tag("gather"))
		gatherv(x, c, k, n, root, tag("gatherv"))
		scatter(x, c, k, n, root, tag("scatter"))
		scatterv(x, c, k, n, root, tag("scatterv"))
	}

	// Allgather: block i of the result is rank i's.
	from := make([][]T, size)
	for i := range from {
		from[i] = k.block(i, 0, n)
	}
	recv := k.holes(size * n)
	x.ok(mpi.Allgather(k.block(me, 0, n), recv, c), "%s n=%d", tag("allgather"), n)
	same(x, recv, concat(from), "%s n=%d", tag("allgather"), n)
	buf := k.holes(size * n)
	copy(buf[me*n:], from[me])
	x.ok(mpi.AllgatherInPlace(buf, c), "%s in place n=%d", tag("allgather"), n)
	same(x, buf, concat(from), "%s in place n=%d", tag("allgather"), n)

	// Allgatherv: uneven blocks in reverse order with holes between.
	counts := vcounts(size, n)
	displs, total := layout(counts)
	for i := range from {
		from[i] = k.block(i, 0, counts[i])
	}
	want := place(k, total, displs, from)
	recv = k.holes(total)
	x.ok(mpi.Allgatherv(from[me], recv, counts, displs, c), "%s n=%d", tag("allgatherv"), n)
	same(x, recv, want, "%s n=%d", tag("allgatherv"), n)
	buf = k.holes(total)
	copy(buf[displs[me]:], from[me])
	x.ok(mpi.AllgathervInPlace(buf, counts, displs, c), "%s in place n=%d", tag("allgatherv"), n)
	same(x, buf, want, "%s in place n=%d", tag("allgatherv"), n)

	alltoall(x, c, k, n, tag("alltoall"))
	alltoallv(x, c, k, n, tag("alltoallv"))
}

func bcast[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n, root int, what string) {
	want := k.block(root, 0, n)
	buf := k.holes(n)
	if c.Rank() == root {
		copy(buf, want)
	}
	x.ok(mpi.Bcast(buf, root, c), "%s n=%d root %d", what, n, root)
	same(x, buf, want, "%s n=%d root %d", what, n, root)
}

func gather[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n, root int, what string) {
	me, size := c.Rank(), c.Size()
	from := make([][]T, size)
	for i := range from {
		from[i] = k.block(i, 0, n)
	}
	var recv []T
	if me == root {
		recv = k.holes(size * n)
	}
	x.ok(mpi.Gather(from[me], recv, root, c), "%s n=%d root %d", what, n, root)
	if me == root {
		same(x, recv, concat(from), "%s n=%d root %d", what, n, root)
	}

	var buf []T
	if me == root {
		buf = k.holes(size * n)
		copy(buf[me*n:], from[me])
	} else {
		buf = slices.Clone(from[me])
	}
	x.ok(mpi.GatherInPlace(buf, root, c), "%s in place n=%d root %d", what, n, root)
	if me == root {
		same(x, buf, concat(from), "%s in place n=%d root %d", what, n, root)
	} else {
		same(x, buf, from[me], "%s in place n=%d root %d: a non-root's send buffer changed", what, n, root)
	}
}

func gatherv[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n, root int, what string) {
	me, size := c.Rank(), c.Size()
	counts := vcounts(size, n)
	displs, total := layout(counts)
	from := make([][]T, size)
	for i := range from {
		from[i] = k.block(i, 0, counts[i])
	}
	want := place(k, total, displs, from)
	if me == root {
		recv := k.holes(total)
		x.ok(mpi.Gatherv(from[me], recv, counts, displs, root, c), "%s n=%d root %d", what, n, root)
		same(x, recv, want, "%s n=%d root %d", what, n, root)
		buf := k.holes(total)
		copy(buf[displs[me]:], from[me])
		x.ok(mpi.GathervInPlace(buf, counts, displs, root, c), "%s in place n=%d root %d", what, n, root)
		same(x, buf, want, "%s in place n=%d root %d", what, n, root)
		return
	}
	// Counts and displacements are the root's business only.
	x.ok(mpi.Gatherv(from[me], nil, nil, nil, root, c), "%s n=%d root %d", what, n, root)
	buf := slices.Clone(from[me])
	x.ok(mpi.GathervInPlace(buf, nil, nil, root, c), "%s in place n=%d root %d", what, n, root)
	same(x, buf, from[me], "%s in place n=%d root %d: a non-root's send buffer changed", what, n, root)
}

func scatter[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n, root int, what string) {
	me, size := c.Rank(), c.Size()
	to := make([][]T, size)
	for i := range to {
		to[i] = k.block(root, i, n)
	}
	var send []T
	if me == root {
		send = concat(to)
	}
	recv := k.holes(n)
	x.ok(mpi.Scatter(send, recv, root, c), "%s n=%d root %d", what, n, root)
	same(x, recv, to[me], "%s n=%d root %d", what, n, root)
	if me == root {
		same(x, send, concat(to), "%s n=%d root %d: the root's send buffer changed", what, n, root)
	}

	buf := k.holes(n)
	if me == root {
		buf = concat(to)
	}
	x.ok(mpi.ScatterInPlace(buf, root, c), "%s in place n=%d root %d", what, n, root)
	if me == root {
		same(x, buf, concat(to), "%s in place n=%d root %d: the root's buffer changed", what, n, root)
	} else {
		same(x, buf, to[me], "%s in place n=%d root %d", what, n, root)
	}
}

func scatterv[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n, root int, what string) {
	me, size := c.Rank(), c.Size()
	counts := vcounts(size, n)
	displs, total := layout(counts)
	to := make([][]T, size)
	for i := range to {
		to[i] = k.block(root, i, counts[i])
	}
	send := place(k, total, displs, to)
	if me == root {
		recv := k.holes(counts[me])
		x.ok(mpi.Scatterv(send, counts, displs, recv, root, c), "%s n=%d root %d", what, n, root)
		same(x, recv, to[me], "%s n=%d root %d", what, n, root)
		buf := slices.Clone(send)
		x.ok(mpi.ScattervInPlace(buf, counts, displs, root, c), "%s in place n=%d root %d", what, n, root)
		same(x, buf, send, "%s in place n=%d root %d: the root's buffer changed", what, n, root)
		return
	}
	recv := k.holes(counts[me])
	x.ok(mpi.Scatterv(nil, nil, nil, recv, root, c), "%s n=%d root %d", what, n, root)
	same(x, recv, to[me], "%s n=%d root %d", what, n, root)
	buf := k.holes(counts[me])
	x.ok(mpi.ScattervInPlace(buf, nil, nil, root, c), "%s in place n=%d root %d", what, n, root)
	same(x, buf, to[me], "%s in place n=%d root %d", what, n, root)
}

func alltoall[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n int, what string) {
	me, size := c.Rank(), c.Size()
	out, in := make([][]T, size), make([][]T, size)
	for j := range size {
		out[j] = k.block(me, j, n)
		in[j] = k.block(j, me, n)
	}
	recv := k.holes(size * n)
	x.ok(mpi.Alltoall(concat(out), recv, c), "%s n=%d", what, n)
	same(x, recv, concat(in), "%s n=%d", what, n)
	buf := concat(out)
	x.ok(mpi.AlltoallInPlace(buf, c), "%s in place n=%d", what, n)
	same(x, buf, concat(in), "%s in place n=%d", what, n)
}

func alltoallv[T mpi.Elem](x *checker, c mpi.Comm, k kind[T], n int, what string) {
	me, size := c.Rank(), c.Size()
	for _, symmetric := range []bool{false, true} {
		sc, rc := make([]int, size), make([]int, size)
		out, in := make([][]T, size), make([][]T, size)
		for j := range size {
			sc[j], rc[j] = pairCount(me, j, n, symmetric), pairCount(j, me, n, symmetric)
			out[j], in[j] = k.block(me, j, sc[j]), k.block(j, me, rc[j])
		}
		sd, stotal := layout(sc)
		send := place(k, stotal, sd, out)
		if !symmetric {
			// The receive side packs its blocks in rank order, apart
			// from the send side's layout.
			rd := make([]int, size)
			for j := 1; j < size; j++ {
				rd[j] = rd[j-1] + rc[j-1]
			}
			recv := k.holes(rd[size-1] + rc[size-1] + 1)
			x.ok(mpi.Alltoallv(send, sc, sd, recv, rc, rd, c), "%s n=%d", what, n)
			want := k.holes(len(recv))
			copy(want, concat(in))
			same(x, recv, want, "%s n=%d", what, n)
			continue
		}
		x.ok(mpi.AlltoallvInPlace(send, sc, sd, c), "%s in place n=%d", what, n)
		same(x, send, place(k, stotal, sd, in), "%s in place n=%d", what, n)
	}
}
