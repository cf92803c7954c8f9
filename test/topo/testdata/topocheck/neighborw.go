package main

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// The neighbor-alltoallw scenario checks NeighborAlltoallw, whose every
// block has its own datatype and byte displacement, against the blocks
// the neighbours send: on every grid and period combination of the
// neighbor scenario, a graph with a double edge and a ring graph, in its
// blocking, non-blocking and persistent forms; then its errors.

func init() { scenarios["neighbor-alltoallw"] = neighborW }

// wRoom is the int64s each block has room for: wPer strided two apart.
const (
	wPer  = 3
	wRoom = 2*wPer + 1
)

// wBlocks is one side of a NeighborAlltoallw: per block a count, a byte
// displacement and a datatype, and whether the block is strided.
type wBlocks struct {
	counts, displs []int
	types          []mpi.Datatype
	strided        []bool
}

// layOut makes the side of n blocks: block i holds count(i) elements,
// strided (every other int64, a vector) if strided(i), in room at(i).
func layOut(n int, count func(int) int, strided func(int) bool, at func(int) int, every mpi.Layout[int64]) wBlocks {
	w := wBlocks{make([]int, n), make([]int, n), make([]mpi.Datatype, n), make([]bool, n)}
	for i := range n {
		w.strided[i] = strided(i)
		w.displs[i] = 8 * at(i) * wRoom
		w.counts[i], w.types[i] = count(i), mpi.TypeOf[int64]()
		if w.strided[i] {
			w.counts[i], w.types[i] = count(i)/wPer, every.Datatype()
		}
	}
	return w
}

// put writes vals into buf as block i of w lays them out.
func (w wBlocks) put(buf []int64, i int, vals []int64) {
	base := w.displs[i] / 8
	for e, v := range vals {
		if w.strided[i] {
			buf[base+2*e] = v
		} else {
			buf[base+e] = v
		}
	}
}

// wExchange runs NeighborAlltoallw on c in its three forms, rank me
// sending each destination i count(i) elements of cell(me, i, e) and
// receiving count(j) from each source j, and checks each against what
// the sources send: source j sends this rank its block from(j) (the
// index in the source's destinations), nil when there is no source j.
// count(i) is wPer or 0, so every block is a vector or wPer int64s.
func wExchange(c mpi.Comm, sources, dests []int, from func(j int) int, count func(i int) int, every mpi.Layout[int64]) error {
	me := c.Rank()
	s := layOut(len(dests), count, func(i int) bool { return i%2 == 1 }, func(i int) int { return len(dests) - 1 - i }, every)
	r := layOut(len(sources), count, func(j int) bool { return j%3 != 1 }, func(j int) int { return j }, every)
	send := filled(len(dests) * wRoom)
	for i := range dests {
		s.put(send, i, blocksOf(me, len(dests), wPer)[i*wPer:i*wPer+count(i)])
	}
	want := filled(len(sources) * wRoom)
	for j, src := range sources {
		if src >= 0 {
			i := from(j)
			r.put(want, j, blocksOf(src, len(dests), wPer)[i*wPer:i*wPer+count(j)])
		}
	}
	for _, form := range []string{"blocking", "non-blocking", "persistent"} {
		got := filled(len(sources) * wRoom)
		var err error
		switch form {
		case "blocking":
			err = mpi.NeighborAlltoallw(send, s.counts, s.displs, s.types, got, r.counts, r.displs, r.types, c)
		case "non-blocking":
			var req mpi.Request
			if req, err = mpi.IneighborAlltoallw(send, s.counts, s.displs, s.types, got, r.counts, r.displs, r.types, c); err == nil {
				_, err = req.Wait()
			}
		case "persistent":
			var req mpi.Request
			if req, err = mpi.NeighborAlltoallwInit(send, s.counts, s.displs, s.types, got, r.counts, r.displs, r.types, c); err != nil {
				break
			}
			for range 2 {
				copy(got, filled(len(got)))
				if err = req.Start(); err != nil {
					break
				}
				if _, err = req.Wait(); err != nil {
					break
				}
			}
			if ferr := req.Free(); err == nil {
				err = ferr
			}
		}
		if err != nil {
			return fmt.Errorf("%s NeighborAlltoallw: %w", form, err)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s NeighborAlltoallw: got %v, want %v", form, got, want)
		}
	}
	return nil
}

func neighborW(world mpi.Comm) error {
	// every is wPer int64s two apart, one element of a strided block.
	every, err := mpi.Vector[int64](wPer, 1, 2)
	if err != nil {
		return err
	}
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
			if err := neighborWCart(world, dims, periods, every); err != nil {
				return fmt.Errorf("dims %v periods %v: %w", dims, periods, err)
			}
		}
	}
	if err := neighborWGraph(world, every); err != nil {
		return err
	}
	return neighborWErrors(world, every)
}

// neighborWCart: block j comes from neighbour j's block j^1, as in
// NeighborAlltoall; the blocks of dimension 1 are empty.
func neighborWCart(world mpi.Comm, dims []int, periods []bool, every mpi.Layout[int64]) (err error) {
	c, err := mpi.CartCreate(world, dims, periods, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	coords := rowMajor(dims, c.Rank())
	var nbs []int
	for d := range dims {
		for _, step := range []int{-1, 1} {
			at := slices.Clone(coords)
			at[d] += step
			nbs = append(nbs, rankAt(dims, periods, at))
		}
	}
	count := func(i int) int {
		if i/2 == 1 {
			return 0
		}
		return wPer
	}
	return wExchange(c, nbs, nbs, func(j int) int { return j ^ 1 }, count, every)
}

// neighborWGraph: a distributed graph whose rank sends twice to the next
// rank and once to the one after, where the k-th edge between two ranks
// carries the k-th block; and a ring graph every rank knows.
func neighborWGraph(world mpi.Comm, every mpi.Layout[int64]) (err error) {
	n, me := world.Size(), world.Rank()
	at := func(d int) int { return ((me+d)%n + n) % n }
	dests := []int{at(1), at(1), at(2)}
	sources := []int{at(-1), at(-1), at(-2)}
	g, err := mpi.DistGraphCreateAdjacent(world, sources, nil, dests, nil, false)
	if err != nil {
		return err
	}
	defer free(g, &err)
	all := func(int) int { return wPer }
	if err := wExchange(g, sources, dests, func(j int) int { return j }, all, every); err != nil {
		return fmt.Errorf("on a distributed graph: %w", err)
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
	// A ring's neighbours are the rank before and after: the k-th edge
	// from a rank to this one carries the k-th block it sends this rank.
	ringOf := func(r int) []int { return []int{(r + n - 1) % n, (r + 1) % n} }
	ringNbs := ringOf(me)
	from := func(j int) int {
		k := 0 // the edges from the same rank before source j
		for _, r := range ringNbs[:j] {
			if r == ringNbs[j] {
				k++
			}
		}
		for i, d := range ringOf(ringNbs[j]) {
			if d == me {
				if k == 0 {
					return i
				}
				k--
			}
		}
		panic("a ring's neighbour without an edge back")
	}
	if err := wExchange(ring, ringNbs, ringNbs, from, all, every); err != nil {
		return fmt.Errorf("on a ring graph: %w", err)
	}
	return nil
}

// neighborWErrors: a communicator without a topology, lists of the wrong
// length, a negative count and a freed datatype, made alike by every
// rank and found before any message.
func neighborWErrors(world mpi.Comm, every mpi.Layout[int64]) (err error) {
	c, err := mpi.CartCreate(world, []int{world.Size()}, []bool{true}, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	buf, recv := make([]int64, 8), make([]int64, 8)
	two, displs := []int{1, 1}, []int{0, 8}
	int64s := []mpi.Datatype{mpi.TypeOf[int64](), mpi.TypeOf[int64]()}
	if err := wantErr("NeighborAlltoallw on the world", mpi.NeighborAlltoallw(buf, two, displs, int64s, recv, two, displs, int64s, world),
		mpi.ErrTopology, "no topology"); err != nil {
		return err
	}
	if err := wantErr("three receive counts for two sources", mpi.NeighborAlltoallw(buf, two, displs, int64s, recv, []int{1, 1, 1}, displs, int64s, c),
		mpi.ErrArg, "3 receive counts", "2 sources"); err != nil {
		return err
	}
	if err := wantErr("a negative count", mpi.NeighborAlltoallw(buf, []int{1, -1}, displs, int64s, recv, two, displs, int64s, c),
		mpi.ErrCount, "send count -1 for destination 1"); err != nil {
		return err
	}
	gone, err := mpi.Contiguous[int64](1)
	if err != nil {
		return err
	}
	if err := gone.Free(); err != nil {
		return err
	}
	freed := []mpi.Datatype{mpi.TypeOf[int64](), gone.Datatype()}
	if err := wantErr("a freed datatype", mpi.NeighborAlltoallw(buf, two, displs, int64s, recv, two, displs, freed, c),
		mpi.ErrType, "receive datatype of source 1"); err != nil {
		return err
	}
	if err := wantErr("a block past the buffer", mpi.NeighborAlltoallw(buf, two, []int{0, 64}, []mpi.Datatype{mpi.TypeOf[int64](), every.Datatype()}, recv, two, displs, int64s, c),
		mpi.ErrBuffer, "send block of destination 1"); err != nil {
		return err
	}
	return nil
}
