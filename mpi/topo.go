package mpi

import "github.com/gompi/gompi/pmpi"

// A process topology describes how a communicator's ranks are connected:
// a Cartesian grid, a graph every rank knows, or a distributed graph each
// rank knows its own edges of. It stays with the communicator through
// Dup; Split and Create make communicators without one. Queries of a
// topology the communicator lacks fail with ErrTopology.

// Topology is the kind of topology TopoTest reports.
type Topology = pmpi.Topology

// The topologies; TopoTest reports Undefined for a communicator without
// one.
const (
	Cart      = pmpi.Cart
	Graph     = pmpi.Graph
	DistGraph = pmpi.DistGraph
)

// TopoTest returns c's topology: Cart, Graph, DistGraph, or Undefined.
func (c Comm) TopoTest() (Topology, error) { return api().TopoTest(c.c) }

// DimsCreate fills the zero entries of dims with the most balanced sizes
// (the least spread between the largest and the smallest, as MPICH
// chooses) whose product, with the positive entries, is nnodes, in
// non-increasing order: DimsCreate(12, [0 0]) gives [4 3]. The positive
// entries' product must divide nnodes (ErrDims otherwise).
func DimsCreate(nnodes int, dims []int) error { return api().DimsCreate(nnodes, dims) }

// CartCreate makes a communicator of comm's ranks arranged in a Cartesian
// grid of dims, periodic (wrapping round) in the dimensions where periods
// is true. Ranks are numbered row-major: the last dimension varies
// fastest. The ranks beyond the grid get a null Comm. With reorder false
// the grid takes comm's ranks in order; with reorder true it takes them
// host by host (hosts in the order of their lowest rank), so that a
// host's ranks fill consecutive rows and grid neighbours share memory;
// with one host that is comm's order. Every rank of comm calls it alike.
func CartCreate(comm Comm, dims []int, periods []bool, reorder bool) (Comm, error) {
	c, err := api().CartCreate(comm.c, dims, periods, reorder)
	return Comm{c}, err
}

// CartMap returns the rank this process would have in the grid that
// CartCreate makes with reorder true, or Undefined if it would have none.
func (c Comm) CartMap(dims []int, periods []bool) (int, error) {
	return api().CartMap(c.c, dims, periods)
}

// CartDim returns the number of dimensions of c's grid.
func (c Comm) CartDim() (int, error) { return api().CartdimGet(c.c) }

// CartGet returns c's grid: its dims and periods, and this rank's
// coordinates.
func (c Comm) CartGet() (dims []int, periods []bool, coords []int, err error) {
	return api().CartGet(c.c)
}

// CartRank returns the rank at coords in c's grid. Coordinates outside a
// periodic dimension wrap round; outside a non-periodic one they are an
// ErrArg.
func (c Comm) CartRank(coords []int) (int, error) { return api().CartRank(c.c, coords) }

// CartCoords returns the coordinates of rank in c's grid.
func (c Comm) CartCoords(rank int) ([]int, error) { return api().CartCoords(c.c, rank) }

// CartShift returns the ranks a shift by disp along dimension direction
// receives from (source) and sends to (dest), ready for Sendrecv. Past
// the edge of a non-periodic dimension they are ProcNull.
func (c Comm) CartShift(direction, disp int) (source, dest int, err error) {
	return api().CartShift(c.c, direction, disp)
}

// CartSub cuts c's grid into sub-grids of the dimensions where remain is
// true: each rank gets the communicator of the ranks that share its
// coordinates in the other dimensions (a row, say), with a grid of the
// remaining dimensions. Every rank of c calls it.
func (c Comm) CartSub(remain []bool) (Comm, error) {
	s, err := api().CartSub(c.c, remain)
	return Comm{s}, err
}

// GraphCreate makes a communicator of comm's first len(index) ranks with
// a graph that every rank knows: the neighbours of rank i are
// edges[index[i-1]:index[i]] (from 0 for rank 0). The other ranks get a
// null Comm. The graph keeps comm's order of ranks, whatever reorder
// says (as MPI allows). Every rank of comm calls it alike.
func GraphCreate(comm Comm, index, edges []int, reorder bool) (Comm, error) {
	c, err := api().GraphCreate(comm.c, index, edges, reorder)
	return Comm{c}, err
}

// GraphMap returns the rank this process would have in the graph that
// GraphCreate makes, or Undefined if it would have none.
func (c Comm) GraphMap(index, edges []int) (int, error) { return api().GraphMap(c.c, index, edges) }

// GraphDims returns the number of nodes and of edges of c's graph.
func (c Comm) GraphDims() (nnodes, nedges int, err error) { return api().GraphdimsGet(c.c) }

// GraphGet returns c's graph as GraphCreate took it.
func (c Comm) GraphGet() (index, edges []int, err error) { return api().GraphGet(c.c) }

// GraphNeighborsCount returns the number of neighbours of rank in c's
// graph.
func (c Comm) GraphNeighborsCount(rank int) (int, error) { return api().GraphNeighborsCount(c.c, rank) }

// GraphNeighbors returns the neighbours of rank in c's graph.
func (c Comm) GraphNeighbors(rank int) ([]int, error) { return api().GraphNeighbors(c.c, rank) }

// DistGraphCreateAdjacent makes a communicator of comm's ranks with a
// distributed graph in which each rank names its own neighbours: the
// sources of its in-edges and the destinations of its out-edges, with
// their weights, or nil weights for an unweighted graph (MPI_UNWEIGHTED;
// both nil or neither; a non-nil empty slice is MPI_WEIGHTS_EMPTY). The
// ranks keep comm's order, whatever reorder says. Every rank of comm
// calls it.
func DistGraphCreateAdjacent(comm Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (Comm, error) {
	c, err := api().DistGraphCreateAdjacent(comm.c, sources, sourceWeights, dests, destWeights, reorder)
	return Comm{c}, err
}

// DistGraphCreate makes a communicator of comm's ranks with a
// distributed graph of which each rank gives any edges: from sources[i]
// to the next degrees[i] entries of dests, weighted by as many entries
// of weights, or nil weights for an unweighted graph (MPI_UNWEIGHTED;
// every rank passes weights or none). The ranks exchange the edges, so
// each learns its own in the order of the rank that gave them. The ranks
// keep comm's order, whatever reorder says. Every rank of comm calls it.
func DistGraphCreate(comm Comm, sources, degrees, dests, weights []int, reorder bool) (Comm, error) {
	c, err := api().DistGraphCreate(comm.c, sources, degrees, dests, weights, reorder)
	return Comm{c}, err
}

// DistGraphNeighborsCount returns the number of this rank's in-edges and
// out-edges in c's distributed graph, and whether it is weighted.
func (c Comm) DistGraphNeighborsCount() (indegree, outdegree int, weighted bool, err error) {
	return api().DistGraphNeighborsCount(c.c)
}

// DistGraphNeighbors returns the sources of this rank's in-edges and the
// destinations of its out-edges in c's distributed graph, with their
// weights (nil for an unweighted graph).
func (c Comm) DistGraphNeighbors() (sources, sourceWeights, dests, destWeights []int, err error) {
	return api().DistGraphNeighbors(c.c)
}
