package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// The topology calls. Lengths that C leaves implicit (a grid's
// dimensions for MPI_Cart_rank) come from gompi through pmpi.Real(), so
// that profiling tools see only the call the program made.

// bools is the C array p of n ints as flags.
func bools(op, what string, p *C.int, n int) ([]bool, error) {
	vs, err := cInts(op, what, p, n)
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i, v := range vs {
		out[i] = v != 0
	}
	return out, nil
}

// putFirst writes the first limit of vs to p, as the calls with a max
// argument do.
func putFirst(p *C.int, limit int, vs []int) {
	if limit < len(vs) {
		vs = vs[:max(limit, 0)]
	}
	putInts(p, vs)
}

// takePart returns err, this layer's error for a collective constructor's
// arguments at this rank (a NULL address for the new communicator among
// them), after taking part in the call anyway through call, which passes
// stand-ins that fail pmpi's checks: pmpi marks the rank in the exchange
// the call makes, so that the other ranks fail naming it instead of
// waiting for it. pmpi's error, about the stand-ins, gives way to err,
// which says what the program passed.
func takePart(err error, call func() (*pmpi.Comm, error)) error {
	_, _ = call()
	return err
}

// Stand-ins that fail pmpi's checks of the topology constructors:
// a dimension of no size, an index that runs backwards, a source that is
// no rank.
var (
	noDims    = []int{-1}
	noPeriods = []bool{false}
	noIndex   = []int{-1}
	noSources = []int{-1}
)

func mpiDimsCreate(nnodes, ndims int, dims *C.int) error {
	ds, err := cInts("dims create", "dims", dims, ndims)
	if err != nil {
		return err
	}
	if err := api().DimsCreate(nnodes, ds); err != nil {
		return err
	}
	putInts(dims, ds)
	return nil
}

// grid reads a Cartesian grid's description.
func grid(op string, ndims int, dims, periods *C.int) ([]int, []bool, error) {
	ds, err := cInts(op, "dims", dims, ndims)
	if err != nil {
		return nil, nil, err
	}
	ps, err := bools(op, "periods", periods, ndims)
	return ds, ps, err
}

func mpiCartCreate(h Comm, ndims int, dims, periods *C.int, reorder int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	ds, ps, err := grid("cart create", ndims, dims, periods)
	if out == nil {
		err = nullArg("comm_cart")
	}
	if err != nil {
		return takePart(err, func() (*pmpi.Comm, error) { return api().CartCreate(e.c, noDims, noPeriods, reorder != 0) })
	}
	c, err := api().CartCreate(e.c, ds, ps, reorder != 0)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

func mpiCartMap(h Comm, ndims int, dims, periods *C.int, newrank *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	ds, ps, err := grid("cart map", ndims, dims, periods)
	if err != nil {
		return err
	}
	r, err := api().CartMap(c, ds, ps)
	*newrank = cCount(r)
	return err
}

func mpiCartdimGet(h Comm, ndims *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	n, err := api().CartdimGet(c)
	*ndims = C.int(n)
	return err
}

func mpiCartGet(h Comm, maxdims int, dims, periods, coords *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	ds, ps, cs, err := api().CartGet(c)
	if err != nil {
		return err
	}
	flags := make([]int, len(ps))
	for i, p := range ps {
		flags[i] = int(cbool(p))
	}
	putFirst(dims, maxdims, ds)
	putFirst(periods, maxdims, flags)
	putFirst(coords, maxdims, cs)
	return nil
}

func mpiCartRank(h Comm, coords *C.int, r *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	n, err := pmpi.Real().CartdimGet(c)
	if err != nil {
		return err
	}
	cs, err := cInts("cart rank", "coords", coords, n)
	if err != nil {
		return err
	}
	rk, err := api().CartRank(c, cs)
	*r = cRank(rk)
	return err
}

func mpiCartCoords(h Comm, r, maxdims int, coords *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	cs, err := api().CartCoords(c, rank(r))
	if err != nil {
		return err
	}
	putFirst(coords, maxdims, cs)
	return nil
}

func mpiCartShift(h Comm, direction, disp int, source, dest *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	s, d, err := api().CartShift(c, direction, disp)
	*source, *dest = cRank(s), cRank(d)
	return err
}

func mpiCartSub(h Comm, remain *C.int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	n, err := pmpi.Real().CartdimGet(e.c)
	if err != nil {
		return err
	}
	rs, err := bools("cart sub", "remain_dims", remain, n)
	if out == nil {
		err = nullArg("newcomm")
	}
	if err != nil {
		// No remain at all: pmpi wants one entry per dimension, n > 0 here.
		return takePart(err, func() (*pmpi.Comm, error) { return api().CartSub(e.c, nil) })
	}
	c, err := api().CartSub(e.c, rs)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// graph reads a graph's description: index holds nnodes entries, edges
// as many as index's last.
func graph(op string, nnodes int, index, edges *C.int) ([]int, []int, error) {
	is, err := cInts(op, "index", index, nnodes)
	if err != nil {
		return nil, nil, err
	}
	nedges := 0
	if nnodes > 0 {
		nedges = is[nnodes-1]
	}
	es, err := cInts(op, "edges", edges, nedges)
	return is, es, err
}

func mpiGraphCreate(h Comm, nnodes int, index, edges *C.int, reorder int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	is, es, err := graph("graph create", nnodes, index, edges)
	if out == nil {
		err = nullArg("comm_graph")
	}
	if err != nil {
		return takePart(err, func() (*pmpi.Comm, error) { return api().GraphCreate(e.c, noIndex, nil, reorder != 0) })
	}
	c, err := api().GraphCreate(e.c, is, es, reorder != 0)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

func mpiGraphMap(h Comm, nnodes int, index, edges *C.int, newrank *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	is, es, err := graph("graph map", nnodes, index, edges)
	if err != nil {
		return err
	}
	r, err := api().GraphMap(c, is, es)
	*newrank = cCount(r)
	return err
}

func mpiGraphdimsGet(h Comm, nnodes, nedges *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	n, m, err := api().GraphdimsGet(c)
	*nnodes, *nedges = C.int(n), C.int(m)
	return err
}

func mpiGraphGet(h Comm, maxindex, maxedges int, index, edges *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	is, es, err := api().GraphGet(c)
	if err != nil {
		return err
	}
	putFirst(index, maxindex, is)
	putFirst(edges, maxedges, es)
	return nil
}

func mpiGraphNeighborsCount(h Comm, r int, n *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	k, err := api().GraphNeighborsCount(c, rank(r))
	*n = C.int(k)
	return err
}

func mpiGraphNeighbors(h Comm, r, maxneighbors int, neighbors *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	ns, err := api().GraphNeighbors(c, rank(r))
	if err != nil {
		return err
	}
	putFirst(neighbors, maxneighbors, ns)
	return nil
}

// The weights' sentinels: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY.
const (
	unweighted   = 10
	weightsEmpty = 11
)

// weights reads n weights at p: nil for MPI_UNWEIGHTED, which gompi takes
// as unweighted, and an empty non-nil slice for MPI_WEIGHTS_EMPTY.
func weights(op, what string, p *C.int, n int) ([]int, error) {
	switch uintptr(unsafe.Pointer(p)) {
	case unweighted:
		return nil, nil
	case weightsEmpty:
		if n != 0 {
			return nil, errorf(pmpi.ClassArg, "%s: %s are MPI_WEIGHTS_EMPTY for %d edges (it is for no edges: pass the weights)", op, what, n)
		}
		return []int{}, nil
	}
	if p == nil && n == 0 {
		return []int{}, nil
	}
	return cInts(op, what, p, n)
}

func mpiDistGraphCreateAdjacent(h Comm, indegree int, sources, sourceWeights *C.int, outdegree int, dests, destWeights *C.int, info Info, reorder int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	ss, sw, ds, dw, err := adjacent(indegree, sources, sourceWeights, outdegree, dests, destWeights)
	if out == nil {
		err = nullArg("comm_dist_graph")
	}
	if err != nil {
		return takePart(err, func() (*pmpi.Comm, error) {
			return api().DistGraphCreateAdjacent(e.c, noSources, nil, nil, nil, reorder != 0)
		})
	}
	c, err := api().DistGraphCreateAdjacent(e.c, ss, sw, ds, dw, reorder != 0)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// adjacent reads MPI_Dist_graph_create_adjacent's edges: the sources and
// destinations, with their weights.
func adjacent(indegree int, sources, sourceWeights *C.int, outdegree int, dests, destWeights *C.int) (ss, sw, ds, dw []int, err error) {
	const op = "dist graph create adjacent"
	if ss, err = cInts(op, "sources", sources, indegree); err != nil {
		return nil, nil, nil, nil, err
	}
	if sw, err = weights(op, "sourceweights", sourceWeights, indegree); err != nil {
		return nil, nil, nil, nil, err
	}
	if ds, err = cInts(op, "destinations", dests, outdegree); err != nil {
		return nil, nil, nil, nil, err
	}
	if dw, err = weights(op, "destweights", destWeights, outdegree); err != nil {
		return nil, nil, nil, nil, err
	}
	return ss, sw, ds, dw, nil
}

func mpiDistGraphCreate(h Comm, n int, sources, degrees, dests, ws *C.int, info Info, reorder int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	ss, dg, ds, w, err := edgesOf(n, sources, degrees, dests, ws)
	if out == nil {
		err = nullArg("comm_dist_graph")
	}
	if err != nil {
		return takePart(err, func() (*pmpi.Comm, error) {
			return api().DistGraphCreate(e.c, noSources, nil, nil, nil, reorder != 0)
		})
	}
	c, err := api().DistGraphCreate(e.c, ss, dg, ds, w, reorder != 0)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// edgesOf reads MPI_Dist_graph_create's edges: n sources, their degrees,
// and as many destinations and weights as the degrees add up to.
func edgesOf(n int, sources, degrees, dests, ws *C.int) (ss, dg, ds, w []int, err error) {
	const op = "dist graph create"
	if ss, err = cInts(op, "sources", sources, n); err != nil {
		return nil, nil, nil, nil, err
	}
	if dg, err = cInts(op, "degrees", degrees, n); err != nil {
		return nil, nil, nil, nil, err
	}
	total := 0
	for i, d := range dg {
		if d < 0 {
			return nil, nil, nil, nil, errorf(pmpi.ClassArg, "%s: degrees[%d] is %d (want >= 0)", op, i, d)
		}
		total += d
	}
	if ds, err = cInts(op, "destinations", dests, total); err != nil {
		return nil, nil, nil, nil, err
	}
	if w, err = weights(op, "weights", ws, total); err != nil {
		return nil, nil, nil, nil, err
	}
	return ss, dg, ds, w, nil
}

func mpiDistGraphNeighborsCount(h Comm, indegree, outdegree, weighted *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	in, out, w, err := api().DistGraphNeighborsCount(c)
	*indegree, *outdegree, *weighted = C.int(in), C.int(out), cbool(w)
	return err
}

// isArray reports whether p is an array to write weights to, not NULL
// or a sentinel.
func isArray(p *C.int) bool {
	u := uintptr(unsafe.Pointer(p))
	return u != 0 && u != unweighted && u != weightsEmpty
}

func mpiDistGraphNeighbors(h Comm, maxin int, sources, sourceWeights *C.int, maxout int, dests, destWeights *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	ss, sw, ds, dw, err := api().DistGraphNeighbors(c)
	if err != nil {
		return err
	}
	putFirst(sources, maxin, ss)
	putFirst(dests, maxout, ds)
	if isArray(sourceWeights) {
		putFirst(sourceWeights, maxin, sw)
	}
	if isArray(destWeights) {
		putFirst(destWeights, maxout, dw)
	}
	return nil
}

func mpiTopoTest(h Comm, status *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	t, err := api().TopoTest(c)
	switch t {
	case pmpi.Cart:
		*status = C.MPI_CART
	case pmpi.Graph:
		*status = C.MPI_GRAPH
	case pmpi.DistGraph:
		*status = C.MPI_DIST_GRAPH
	default:
		*status = C.MPI_UNDEFINED
	}
	return err
}
