package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// The neighbourhood scenarios check every neighbourhood collective against
// what a hand-written exchange over CartShift's ranks (or the graph's
// edges) delivers, block by block: which neighbour's which block lands in
// each block of recv, and that a missing neighbour's block is untouched.

const untouched = -1

// cell is element e of block i that rank r sends: distinct for every
// rank, block and element.
func cell(r, i, e int) int64 { return int64(r*10000 + i*100 + e) }

// blocksOf is n blocks of per elements that rank r sends.
func blocksOf(r, n, per int) []int64 {
	out := make([]int64, n*per)
	for i := range n {
		for e := range per {
			out[i*per+e] = cell(r, i, e)
		}
	}
	return out
}

func filled(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = untouched
	}
	return out
}

// grids are the grids of n ranks the cart scenario runs on: balanced and
// flat, with a dimension of one or two ranks where n allows, whose
// periodic neighbours below and above are one rank.
func grids(n int) [][]int {
	dims := []int{0, 0}
	if err := mpi.DimsCreate(n, dims); err != nil {
		panic(err)
	}
	return [][]int{dims, {n}, {n, 1}, {1, n}, {2, n / 2}}
}

// neighbor runs the four neighbourhood collectives on every grid of
// grids with every combination of periods.
func neighbor(world mpi.Comm) error {
	n := world.Size()
	for _, dims := range grids(n) {
		if dims[0]*dims[len(dims)-1] != n && len(dims) == 2 {
			continue
		}
		periodsList := [][]bool{{false}, {true}}
		if len(dims) == 2 {
			periodsList = [][]bool{{false, false}, {true, true}, {true, false}, {false, true}}
		}
		for _, periods := range periodsList {
			// Blocks of 3 elements, of 9000 (72,000 bytes: a 2-D grid's
			// alltoall exceeds coll sm's block of 256 KiB and goes in
			// rounds) and of 40,000 (every call above a block).
			for _, per := range []int{3, 9000, 40000} {
				if err := neighborCart(world, dims, periods, per); err != nil {
					return fmt.Errorf("dims %v periods %v, blocks of %d: %w", dims, periods, per, err)
				}
			}
		}
	}
	return neighborErrors(world)
}

// handExchange is what a NeighborAlltoall of per-element blocks gives on
// grid c, exchanged by hand: along each dimension, block 2d+1 goes up and
// lands in the upper neighbour's block 2d, block 2d goes down and lands in
// the lower neighbour's block 2d+1.
func handExchange(c mpi.Comm, ndims int, send []int64, per int) ([]int64, error) {
	got := filled(len(send))
	for d := range ndims {
		below, above, err := c.CartShift(d, 1)
		if err != nil {
			return nil, err
		}
		if _, err := mpi.Sendrecv(send[(2*d+1)*per:(2*d+2)*per], above, d, got[2*d*per:(2*d+1)*per], below, d, c); err != nil {
			return nil, fmt.Errorf("hand exchange up along %d: %w", d, err)
		}
		if _, err := mpi.Sendrecv(send[2*d*per:(2*d+1)*per], below, d, got[(2*d+1)*per:(2*d+2)*per], above, d, c); err != nil {
			return nil, fmt.Errorf("hand exchange down along %d: %w", d, err)
		}
	}
	return got, nil
}

func neighborCart(world mpi.Comm, dims []int, periods []bool, per int) (err error) {
	c, err := mpi.CartCreate(world, dims, periods, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	me, k := c.Rank(), 2*len(dims)
	// The neighbours, worked out here apart from the library.
	coords := rowMajor(dims, me)
	nbs := make([]int, 0, k)
	for d := range dims {
		for _, step := range []int{-1, 1} {
			at := slices.Clone(coords)
			at[d] += step
			nbs = append(nbs, rankAt(dims, periods, at))
		}
	}
	send := blocksOf(me, k, per)

	// Alltoall: block j comes from neighbour j's block j^1.
	want := filled(k * per)
	for j, r := range nbs {
		if r >= 0 {
			copy(want[j*per:(j+1)*per], blocksOf(r, k, per)[(j^1)*per:(j^1+1)*per])
		}
	}
	hand, err := handExchange(c, len(dims), send, per)
	if err != nil {
		return err
	}
	if !slices.Equal(hand, want) {
		return fmt.Errorf("the hand exchange gives %v, want %v (the test's own neighbours are wrong)", hand, want)
	}
	got := filled(k * per)
	if err := mpi.NeighborAlltoall(send, got, c); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("NeighborAlltoall: got %v, want %v", got, want)
	}

	// Alltoallv: the blocks of dimension d hold d+1 elements (a rank's
	// block to destination j^1 is what source j expects), received from
	// the end of recv backwards.
	counts, sdispls, rdispls := make([]int, k), make([]int, k), make([]int, k)
	for i := range k {
		counts[i], sdispls[i], rdispls[i] = min(i/2+1, per), i*per, (k-1-i)*per
	}
	got, want = filled(k*per), filled(k*per)
	for j, r := range nbs {
		if r >= 0 {
			src := blocksOf(r, k, per)[(j^1)*per:]
			copy(want[rdispls[j]:rdispls[j]+counts[j]], src[:counts[j]])
		}
	}
	if err := mpi.NeighborAlltoallv(send, counts, sdispls, got, counts, rdispls, c); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("NeighborAlltoallv: got %v, want %v", got, want)
	}

	// Allgather: block j is neighbour j's whole send.
	mine := blocksOf(me, 1, per)
	gathered := filled(k * per)
	for j, r := range nbs {
		if r >= 0 {
			copy(gathered[j*per:(j+1)*per], blocksOf(r, 1, per))
		}
	}
	got = filled(k * per)
	if err := mpi.NeighborAllgather(mine, got, c); err != nil {
		return err
	}
	if !slices.Equal(got, gathered) {
		return fmt.Errorf("NeighborAllgather: got %v, want %v", got, gathered)
	}

	// Allgatherv into blocks placed backwards, per elements each.
	full := make([]int, k)
	for i := range full {
		full[i] = per
	}
	got, want = filled(k*per), filled(k*per)
	for j, r := range nbs {
		if r >= 0 {
			copy(want[rdispls[j]:rdispls[j]+per], blocksOf(r, 1, per))
		}
	}
	if err := mpi.NeighborAllgatherv(mine, got, full, rdispls, c); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("NeighborAllgatherv: got %v, want %v", got, want)
	}

	// A duplicate keeps the topology, and so its neighbourhood.
	dup, err := c.Dup()
	if err != nil {
		return err
	}
	defer free(dup, &err)
	got = filled(k * per)
	if err := mpi.NeighborAllgather(mine, got, dup); err != nil {
		return fmt.Errorf("on a duplicate: %w", err)
	}
	if !slices.Equal(got, gathered) {
		return fmt.Errorf("NeighborAllgather on a duplicate: got %v, want %v", got, gathered)
	}
	return nil
}

// neighborErrors: a communicator without a topology, and blocks that do
// not divide.
func neighborErrors(world mpi.Comm) (err error) {
	buf := make([]int64, 4)
	if err := wantErr("NeighborAllgather on the world", mpi.NeighborAllgather(buf[:1], buf, world), mpi.ErrTopology, "no topology"); err != nil {
		return err
	}
	c, err := mpi.CartCreate(world, []int{world.Size()}, []bool{true}, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	if err := wantErr("NeighborAlltoall of 3 elements for 2 neighbours", mpi.NeighborAlltoall(buf[:3], buf[:2], c), mpi.ErrCount, "divide"); err != nil {
		return err
	}
	if err := wantErr("NeighborAllgather into too small a buffer", mpi.NeighborAllgather(buf[:2], buf[:3], c), mpi.ErrBuffer); err != nil {
		return err
	}
	return nil
}

// neighborMismatch: on a periodic ring, rank 0 contributes 40,000 elements
// to a NeighborAllgather (in rounds, through coll sm's segment) and the
// others 3. Rank 0 hears less than it expects (ErrCount), its two
// neighbours more (ErrTruncate), each saying that the counts disagree,
// whichever component serves the call; the other ranks see no error.
func neighborMismatch(world mpi.Comm) (err error) {
	n := world.Size()
	c, err := mpi.CartCreate(world, []int{n}, []bool{true}, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	me, per := c.Rank(), 3
	if me == 0 {
		per = 40000
	}
	got := mpi.NeighborAllgather(make([]int64, per), make([]int64, 2*per), c)
	switch {
	case me == 0:
		return wantErr("rank 0's NeighborAllgather", got, mpi.ErrCount, "disagree")
	case me == 1 || me == n-1:
		return wantErr("a neighbour of rank 0", got, mpi.ErrTruncate, "disagree")
	case got != nil:
		return fmt.Errorf("NeighborAllgather on a rank away from rank 0: %w", got)
	}
	return nil
}

// neighborGraph runs the collectives on a distributed graph with a double
// edge (each rank sends twice to the next and once to the one after), and
// on a graph every rank knows (a ring): the k-th edge between two ranks
// carries the k-th block.
func neighborGraph(world mpi.Comm) (err error) {
	n, me := world.Size(), world.Rank()
	at := func(d int) int { return ((me+d)%n + n) % n }
	dests := []int{at(1), at(1), at(2)}
	sources := []int{at(-1), at(-1), at(-2)}
	g, err := mpi.DistGraphCreateAdjacent(world, sources, nil, dests, nil, false)
	if err != nil {
		return err
	}
	defer free(g, &err)
	const per = 2
	send := blocksOf(me, len(dests), per)
	got, want := filled(len(sources)*per), filled(len(sources)*per)
	for j, r := range sources {
		copy(want[j*per:(j+1)*per], blocksOf(r, len(dests), per)[j*per:(j+1)*per])
	}
	if err := mpi.NeighborAlltoall(send, got, g); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("NeighborAlltoall on a distributed graph: got %v, want %v", got, want)
	}
	if err := neighborPipeline(world); err != nil {
		return err
	}
	index, edges := make([]int, n), make([]int, 0, 2*n)
	for r := range n {
		edges = append(edges, (r+n-1)%n, (r+1)%n)
		index[r] = len(edges)
	}
	ring, err := mpi.GraphCreate(world, index, edges, false)
	if err != nil {
		return err
	}
	defer free(ring, &err)
	mine := blocksOf(me, 1, per)
	got, want = filled(2*per), filled(2*per)
	for j, r := range []int{at(-1), at(1)} {
		copy(want[j*per:(j+1)*per], blocksOf(r, 1, per))
	}
	if err := mpi.NeighborAllgather(mine, got, ring); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("NeighborAllgather on a ring graph: got %v, want %v", got, want)
	}
	return nil
}

// neighborPipeline runs NeighborAlltoall, blocking, non-blocking and
// persistent, along a chain 0 -> 1 -> ... -> n-1, whose ends have no
// source or no destination and pass an empty buffer for that side.
func neighborPipeline(world mpi.Comm) (err error) {
	n, me := world.Size(), world.Rank()
	var sources, dests []int
	if me > 0 {
		sources = []int{me - 1}
	}
	if me < n-1 {
		dests = []int{me + 1}
	}
	chain, err := mpi.DistGraphCreateAdjacent(world, sources, nil, dests, nil, false)
	if err != nil {
		return err
	}
	defer free(chain, &err)
	const per = 3
	send := blocksOf(me, len(dests), per)
	want := filled(len(sources) * per)
	if me > 0 {
		want = blocksOf(me-1, 1, per)
	}
	calls := []struct {
		name string
		run  func(got []int64) error
	}{
		{"NeighborAlltoall", func(got []int64) error { return mpi.NeighborAlltoall(send, got, chain) }},
		{"IneighborAlltoall", func(got []int64) error {
			req, err := mpi.IneighborAlltoall(send, got, chain)
			if err != nil {
				return err
			}
			_, err = req.Wait()
			return err
		}},
		{"NeighborAlltoallInit", func(got []int64) error {
			req, err := mpi.NeighborAlltoallInit(send, got, chain)
			if err != nil {
				return err
			}
			if err := req.Start(); err != nil {
				return err
			}
			if _, err := req.Wait(); err != nil {
				return err
			}
			return req.Free()
		}},
	}
	for _, c := range calls {
		got := filled(len(sources) * per)
		if err := c.run(got); err != nil {
			return fmt.Errorf("%s along a chain, rank %d of %d: %w", c.name, me, n, err)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s along a chain, rank %d of %d: got %v, want %v", c.name, me, n, got, want)
		}
	}
	return nil
}

// neighborNonblocking starts several neighbourhood collectives and an
// Iallreduce at once and waits for them in reverse order, then runs a
// persistent NeighborAlltoall many times with new data at each start.
func neighborNonblocking(world mpi.Comm) (err error) {
	n, me := world.Size(), world.Rank()
	c, err := mpi.CartCreate(world, []int{n}, []bool{true}, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	below, above := (me+n-1)%n, (me+1)%n
	const rounds, per = 4, 5
	type call struct {
		req       mpi.Request
		got, want []int64
	}
	var calls []call
	for i := range rounds {
		send := blocksOf(me+i*n, 2, per)
		got := filled(2 * per)
		req, err := mpi.IneighborAlltoall(send, got, c)
		if err != nil {
			return err
		}
		want := slices.Concat(blocksOf(below+i*n, 2, per)[per:], blocksOf(above+i*n, 2, per)[:per])
		calls = append(calls, call{req, got, want})
		mine := blocksOf(me+i*n, 1, per)
		gathered := filled(2 * per)
		if req, err = mpi.IneighborAllgather(mine, gathered, c); err != nil {
			return err
		}
		calls = append(calls, call{req, gathered, slices.Concat(blocksOf(below+i*n, 1, per), blocksOf(above+i*n, 1, per))})
		vgathered := filled(2 * per)
		if req, err = mpi.IneighborAllgatherv(mine, vgathered, []int{per, per}, []int{per, 0}, c); err != nil {
			return err
		}
		calls = append(calls, call{req, vgathered, slices.Concat(blocksOf(above+i*n, 1, per), blocksOf(below+i*n, 1, per))})
		vgot := filled(2 * per)
		if req, err = mpi.IneighborAlltoallv(send, []int{per, per}, nil, vgot, []int{per, per}, nil, c); err != nil {
			return err
		}
		calls = append(calls, call{req, vgot, want})
		sum := []int64{0}
		if req, err = mpi.Iallreduce([]int64{int64(me + i)}, sum, mpi.Sum, world); err != nil {
			return err
		}
		calls = append(calls, call{req, sum, []int64{int64(n*(n-1)/2 + n*i)}})
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if _, err := calls[i].req.Wait(); err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
		if !slices.Equal(calls[i].got, calls[i].want) {
			return fmt.Errorf("call %d: got %v, want %v", i, calls[i].got, calls[i].want)
		}
	}
	send, got := make([]int64, 2*per), filled(2*per)
	p, err := mpi.NeighborAlltoallInit(send, got, c)
	if err != nil {
		return err
	}
	for round := range 200 {
		copy(send, blocksOf(me+round*n, 2, per))
		if err := p.Start(); err != nil {
			return err
		}
		if _, err := p.Wait(); err != nil {
			return fmt.Errorf("start %d: %w", round, err)
		}
		want := slices.Concat(blocksOf(below+round*n, 2, per)[per:], blocksOf(above+round*n, 2, per)[:per])
		if !slices.Equal(got, want) {
			return fmt.Errorf("persistent NeighborAlltoall, start %d: got %v, want %v", round, got, want)
		}
	}
	if err := p.Free(); err != nil {
		return err
	}
	return neighborPersistent(c, below, above)
}

// neighborPersistent starts the other persistent neighbourhood
// collectives a few times each, with new data at each start.
func neighborPersistent(c mpi.Comm, below, above int) error {
	n, me := c.Size(), c.Rank()
	const per = 2
	mine, send := make([]int64, per), make([]int64, 2*per)
	got, vgot, swapped := filled(2*per), filled(2*per), filled(2*per)
	counts := []int{per, per}
	var reqs [3]mpi.Request
	var err error
	if reqs[0], err = mpi.NeighborAllgatherInit(mine, got, c); err != nil {
		return err
	}
	if reqs[1], err = mpi.NeighborAllgathervInit(mine, vgot, counts, []int{per, 0}, c); err != nil {
		return err
	}
	if reqs[2], err = mpi.NeighborAlltoallvInit(send, counts, nil, swapped, counts, nil, c); err != nil {
		return err
	}
	for round := range 20 {
		copy(mine, blocksOf(me+round*n, 1, per))
		copy(send, blocksOf(me+round*n, 2, per))
		if err := mpi.Startall(reqs[:]...); err != nil {
			return err
		}
		if err := mpi.WaitAll(reqs[:]...); err != nil {
			return fmt.Errorf("start %d: %w", round, err)
		}
		lower, upper := blocksOf(below+round*n, 1, per), blocksOf(above+round*n, 1, per)
		for _, c := range []struct {
			what      string
			got, want []int64
		}{
			{"allgather", got, slices.Concat(lower, upper)},
			{"allgatherv", vgot, slices.Concat(upper, lower)},
			{"alltoallv", swapped, slices.Concat(blocksOf(below+round*n, 2, per)[per:], blocksOf(above+round*n, 2, per)[:per])},
		} {
			if !slices.Equal(c.got, c.want) {
				return fmt.Errorf("persistent neighbor %s, start %d: got %v, want %v", c.what, round, c.got, c.want)
			}
		}
	}
	var errs []error
	for _, r := range reqs {
		errs = append(errs, r.Free())
	}
	return errors.Join(errs...)
}
