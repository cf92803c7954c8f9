package main

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// graph makes a graph of every rank but the last (each node linked to
// the next and to node 0, node 0 to itself too) and checks every query
// against it, the last rank's null communicator, and bad graphs' errors.
func graph(world mpi.Comm) (err error) {
	nodes := world.Size() - 1
	var index, edges []int
	for i := range nodes {
		edges = append(edges, (i+1)%nodes, 0)
		index = append(index, len(edges))
	}
	neighbors := func(r int) []int {
		from := 0
		if r > 0 {
			from = index[r-1]
		}
		return edges[from:index[r]]
	}
	want := world.Rank()
	if want >= nodes {
		want = mpi.Undefined
	}
	if m, err := world.GraphMap(index, edges); err != nil || m != want {
		return fmt.Errorf("GraphMap = %d, %v; want %d", m, err, want)
	}
	g, err := mpi.GraphCreate(world, index, edges, true)
	if err != nil {
		return err
	}
	if world.Rank() >= nodes {
		if !g.IsNull() {
			return fmt.Errorf("rank %d beyond a graph of %d nodes got %v; want a null Comm", world.Rank(), nodes, g)
		}
		return graphErrors(world)
	}
	defer free(g, &err)
	if top, err := g.TopoTest(); err != nil || top != mpi.Graph {
		return fmt.Errorf("TopoTest = %v, %v; want Graph", top, err)
	}
	if nn, ne, err := g.GraphDims(); err != nil || nn != nodes || ne != len(edges) {
		return fmt.Errorf("GraphDims = %d, %d, %v; want %d, %d", nn, ne, err, nodes, len(edges))
	}
	if gi, ge, err := g.GraphGet(); err != nil || !slices.Equal(gi, index) || !slices.Equal(ge, edges) {
		return fmt.Errorf("GraphGet = %v %v, %v; want %v %v", gi, ge, err, index, edges)
	}
	for r := range nodes {
		if n, err := g.GraphNeighborsCount(r); err != nil || n != len(neighbors(r)) {
			return fmt.Errorf("GraphNeighborsCount(%d) = %d, %v; want %d", r, n, err, len(neighbors(r)))
		}
		if n, err := g.GraphNeighbors(r); err != nil || !slices.Equal(n, neighbors(r)) {
			return fmt.Errorf("GraphNeighbors(%d) = %v, %v; want %v", r, n, err, neighbors(r))
		}
	}
	_, err = g.GraphNeighbors(nodes)
	if err := wantErr("GraphNeighbors out of range", err, mpi.ErrRank, fmt.Sprintf("rank %d", nodes)); err != nil {
		return err
	}
	_, err = g.CartDim()
	if err := wantErr("CartDim on a graph", err, mpi.ErrTopology, "has a graph topology"); err != nil {
		return err
	}
	return graphErrors(world)
}

func graphErrors(world mpi.Comm) error {
	_, err := mpi.GraphCreate(world, []int{1, 2}, []int{1, 2}, false)
	if err := wantErr("an edge to no node", err, mpi.ErrRank, "edges[1] is 2"); err != nil {
		return err
	}
	_, err = mpi.GraphCreate(world, []int{2, 1}, []int{1, 0}, false)
	if err := wantErr("a decreasing index", err, mpi.ErrArg, "index[1] is 1"); err != nil {
		return err
	}
	_, err = mpi.DistGraphCreateAdjacent(world, []int{0}, []int{1}, []int{0}, nil, false)
	if err := wantErr("weights one way only", err, mpi.ErrArg, "one direction"); err != nil {
		return err
	}
	_, err = mpi.DistGraphCreate(world, []int{0}, []int{2}, []int{0}, nil, false)
	return wantErr("degrees past the destinations", err, mpi.ErrArg, "degrees add up to 2")
}

// edge is an edge of a distributed graph.
type edge struct{ from, to, weight int }

// distGraph makes the graph where each rank r has edges to r+1 and r+2
// (round the ring) three ways: adjacent with weights, adjacent without,
// and by DistGraphCreate, given once by rank 0 alone and once by each
// rank for its own edges. Each rank checks its neighbours against the
// edges, in the order their givers gave them.
func distGraph(world mpi.Comm) (err error) {
	n, me := world.Size(), world.Rank()
	var all []edge
	for r := range n {
		all = append(all, edge{r, (r + 1) % n, 10*r + 1}, edge{r, (r + 2) % n, 10*r + 2})
	}
	// expect returns this rank's in- and out-edges among given, in order.
	expect := func(given []edge) (src, srcW, dst, dstW []int) {
		for _, e := range given {
			if e.to == me {
				src, srcW = append(src, e.from), append(srcW, e.weight)
			}
			if e.from == me {
				dst, dstW = append(dst, e.to), append(dstW, e.weight)
			}
		}
		return
	}
	check := func(how string, c mpi.Comm, weighted bool, given []edge) error {
		defer c.Free()
		ws, wsw, wd, wdw := expect(given)
		if !weighted {
			wsw, wdw = nil, nil
		}
		if top, err := c.TopoTest(); err != nil || top != mpi.DistGraph {
			return fmt.Errorf("%s: TopoTest = %v, %v; want DistGraph", how, top, err)
		}
		in, out, w, err := c.DistGraphNeighborsCount()
		if err != nil || in != len(ws) || out != len(wd) || w != weighted {
			return fmt.Errorf("%s: DistGraphNeighborsCount = %d, %d, %v, %v; want %d, %d, %v", how, in, out, w, err, len(ws), len(wd), weighted)
		}
		s, sw, d, dw, err := c.DistGraphNeighbors()
		if err != nil || !slices.Equal(s, ws) || !slices.Equal(sw, wsw) || !slices.Equal(d, wd) || !slices.Equal(dw, wdw) {
			return fmt.Errorf("%s: DistGraphNeighbors = %v %v %v %v, %v; want %v %v %v %v", how, s, sw, d, dw, err, ws, wsw, wd, wdw)
		}
		return nil
	}
	src, srcW, dst, dstW := expect(all)
	for _, weighted := range []bool{true, false} {
		sw, dw := srcW, dstW
		if !weighted {
			sw, dw = nil, nil
		}
		c, err := mpi.DistGraphCreateAdjacent(world, src, sw, dst, dw, false)
		if err != nil {
			return err
		}
		if err := check(fmt.Sprintf("adjacent, weighted %v", weighted), c, weighted, all); err != nil {
			return err
		}
	}
	// Rank 0 gives every edge, unweighted.
	var sources, degrees, dests []int
	if me == 0 {
		for r := range n {
			sources, degrees = append(sources, r), append(degrees, 2)
			dests = append(dests, (r+1)%n, (r+2)%n)
		}
	}
	c, err := mpi.DistGraphCreate(world, sources, degrees, dests, nil, true)
	if err != nil {
		return err
	}
	if err := check("given by rank 0", c, false, all); err != nil {
		return err
	}
	// Each rank gives its own out-edges, weighted.
	c, err = mpi.DistGraphCreate(world, []int{me}, []int{2}, []int{(me + 1) % n, (me + 2) % n}, []int{10*me + 1, 10*me + 2}, false)
	if err != nil {
		return err
	}
	return check("given by each rank", c, true, all)
}
