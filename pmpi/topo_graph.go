package pmpi

import "slices"

// graphTopo is a graph that every rank knows whole, in MPI's form: the
// neighbours of rank i are edges[index[i-1]:index[i]] (index[-1] being 0).
type graphTopo struct {
	index, edges []int
}

func (t *graphTopo) neighbors(rank int) []int {
	from := 0
	if rank > 0 {
		from = t.index[rank-1]
	}
	return t.edges[from:t.index[rank]]
}

// checkGraph checks a graph's index and edges against comm; the error is
// not handled yet. Edges may repeat and may loop to their own node, as
// MPI allows.
func checkGraph(op string, comm *Comm, index, edges []int) error {
	nnodes := len(index)
	if nnodes > comm.Size() {
		return errorf(ClassArg, nil, "%s on %v: a graph of %d nodes (index has one entry per node) for %d ranks (want at most %d)", op, comm, nnodes, comm.Size(), comm.Size())
	}
	prev := 0
	for i, x := range index {
		if x < prev {
			return errorf(ClassArg, nil, "%s on %v: index[%d] is %d, below %d before it (want a non-decreasing running count of edges)", op, comm, i, x, prev)
		}
		prev = x
	}
	if prev != len(edges) {
		return errorf(ClassArg, nil, "%s on %v: index ends at %d but edges has %d entries (want the last index to count every edge)", op, comm, prev, len(edges))
	}
	return checkRanks(op, comm, "edges", edges, nnodes)
}

// GraphCreate makes a communicator with the graph of index and edges
// over comm's first len(index) ranks: the others get nil. The graph
// keeps comm's order of ranks whether reorder is true or not, as MPI
// allows. Every rank of comm calls it alike.
func (*realAPI) GraphCreate(comm *Comm, index, edges []int, reorder bool) (*Comm, error) {
	const op = "graph create"
	l, err := topoArgs(op, comm)
	if err != nil {
		return nil, err
	}
	own := checkGraph(op, comm, index, edges)
	var group []int
	if own == nil {
		group = firstRanks(comm, len(index))
	}
	t := &topology{graph: &graphTopo{index: slices.Clone(index), edges: slices.Clone(edges)}}
	values := append(append(append(make([]int, 0, 1+len(index)+len(edges)), len(index)), index...), edges...)
	return l.topoComm(comm, op, "graph", sameArgs{names: "index and edges", alike: true, values: values}, group, t, own)
}

// GraphMap returns the rank this process would have in the graph that
// GraphCreate makes of index and edges: its rank in comm, or Undefined
// beyond the graph's nodes.
func (*realAPI) GraphMap(comm *Comm, index, edges []int) (int, error) {
	const op = "graph map"
	if _, err := topoArgs(op, comm); err != nil {
		return Undefined, err
	}
	if err := checkGraph(op, comm, index, edges); err != nil {
		return Undefined, comm.handle(err)
	}
	if comm.rank < len(index) {
		return comm.rank, nil
	}
	return Undefined, nil
}

// GraphdimsGet returns the number of nodes and of edges of comm's graph.
func (*realAPI) GraphdimsGet(comm *Comm) (int, int, error) {
	t, err := topoOf("graphdims get", comm, Graph)
	if err != nil {
		return 0, 0, err
	}
	return len(t.graph.index), len(t.graph.edges), nil
}

// GraphGet returns comm's graph as GraphCreate took it.
func (*realAPI) GraphGet(comm *Comm) ([]int, []int, error) {
	t, err := topoOf("graph get", comm, Graph)
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(t.graph.index), slices.Clone(t.graph.edges), nil
}

// GraphNeighborsCount returns the number of neighbours of rank in comm's
// graph.
func (*realAPI) GraphNeighborsCount(comm *Comm, rank int) (int, error) {
	n, err := graphNeighbors("graph neighbors count", comm, rank)
	return len(n), err
}

// GraphNeighbors returns the neighbours of rank in comm's graph, in the
// order of its edges.
func (*realAPI) GraphNeighbors(comm *Comm, rank int) ([]int, error) {
	n, err := graphNeighbors("graph neighbors", comm, rank)
	return slices.Clone(n), err
}

func graphNeighbors(op string, comm *Comm, rank int) ([]int, error) {
	t, err := topoOf(op, comm, Graph)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= comm.Size() {
		return nil, comm.handle(errorf(ClassRank, nil, "%s on %v: rank %d is out of range (0 to %d)", op, comm, rank, comm.Size()-1))
	}
	return t.graph.neighbors(rank), nil
}
