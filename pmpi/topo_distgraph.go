package pmpi

import (
	"encoding/binary"
	"slices"
)

// distGraphTopo is what one rank knows of a distributed graph: the
// sources of its in-edges and the destinations of its out-edges, with
// their weights (nil when the graph is unweighted).
type distGraphTopo struct {
	sources, sourceWeights []int
	dests, destWeights     []int
	weighted               bool
}

// checkWeights checks that weights is nil (unweighted: MPI_UNWEIGHTED) or
// holds one weight per edge of what. A non-nil empty slice is
// MPI_WEIGHTS_EMPTY: weighted, with no edges.
func checkWeights(op string, comm *Comm, what string, weights []int, edges int) error {
	if weights != nil && len(weights) != edges {
		return comm.handle(errorf(ClassArg, nil, "%s on %v: %d weights for %d %s (want one per edge, or nil for unweighted)", op, comm, len(weights), edges, what))
	}
	for i, w := range weights {
		if w < 0 {
			return comm.handle(errorf(ClassArg, nil, "%s on %v: weight %d of the %s is %d (want >= 0)", op, comm, i, what, w))
		}
	}
	return nil
}

// DistGraphCreateAdjacent makes a communicator of comm's ranks with a
// distributed graph: each rank names the sources of its in-edges and the
// destinations of its out-edges, with their weights, or nil weights for
// an unweighted graph (MPI_UNWEIGHTED; both nil or neither). Every rank
// of comm calls it, and the edges it names must match those its
// neighbours name. The ranks keep comm's order whether reorder is true
// or not, as MPI allows.
func (*realAPI) DistGraphCreateAdjacent(comm *Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (*Comm, error) {
	const op = "dist graph create adjacent"
	l, err := topoArgs(op, comm)
	if err != nil {
		return nil, err
	}
	n := comm.Size()
	if (sourceWeights == nil) != (destWeights == nil) {
		return nil, comm.handle(errorf(ClassArg, nil, "%s on %v: weights for one direction only (want both source and destination weights, or both nil for unweighted)", op, comm))
	}
	for _, err := range []error{
		checkRanks(op, comm, "sources", sources, n), checkRanks(op, comm, "dests", dests, n),
		checkWeights(op, comm, "sources", sourceWeights, len(sources)), checkWeights(op, comm, "dests", destWeights, len(dests)),
	} {
		if err != nil {
			return nil, err
		}
	}
	t := &distGraphTopo{sources: slices.Clone(sources), dests: slices.Clone(dests), weighted: sourceWeights != nil}
	if t.weighted {
		t.sourceWeights, t.destWeights = slices.Clone(sourceWeights), slices.Clone(destWeights)
	}
	return l.topoComm(comm, op, "distgraph", slices.Clone(comm.group), &topology{dist: t})
}

// DistGraphCreate makes a communicator of comm's ranks with a
// distributed graph, each rank giving any edges: for each i, edges from
// sources[i] to the next degrees[i] entries of dests, with as many
// weights, or nil weights for an unweighted graph (MPI_UNWEIGHTED; every
// rank passes weights or none). The ranks exchange the edges, so that
// each learns its in- and out-edges, in the order of the rank that gave
// them, then of the order it gave them in. The ranks keep comm's order
// whether reorder is true or not, as MPI allows. Every rank of comm
// calls it.
func (*realAPI) DistGraphCreate(comm *Comm, sources, degrees, dests, weights []int, reorder bool) (*Comm, error) {
	const op = "dist graph create"
	l, err := topoArgs(op, comm)
	if err != nil {
		return nil, err
	}
	n := comm.Size()
	if len(degrees) != len(sources) {
		return nil, comm.handle(errorf(ClassArg, nil, "%s on %v: %d sources and %d degrees (want one degree per source)", op, comm, len(sources), len(degrees)))
	}
	edges := 0
	for i, d := range degrees {
		if d < 0 {
			return nil, comm.handle(errorf(ClassArg, nil, "%s on %v: degrees[%d] is %d (want >= 0)", op, comm, i, d))
		}
		edges += d
	}
	if edges != len(dests) {
		return nil, comm.handle(errorf(ClassArg, nil, "%s on %v: degrees add up to %d but dests has %d entries (want one destination per edge)", op, comm, edges, len(dests)))
	}
	for _, err := range []error{
		checkRanks(op, comm, "sources", sources, n), checkRanks(op, comm, "dests", dests, n),
		checkWeights(op, comm, "edges", weights, edges),
	} {
		if err != nil {
			return nil, err
		}
	}
	t, err := exchangeEdges(op, comm, sources, degrees, dests, weights)
	if err != nil {
		return nil, err
	}
	return l.topoComm(comm, op, "distgraph", slices.Clone(comm.group), &topology{dist: t})
}

// An edge record, as exchangeEdges sends it: kind, peer and weight, as
// three little-endian int64s. An out-edge goes to its source, naming its
// destination; an in-edge to its destination, naming its source.
const (
	edgeRecord = 24
	edgeOut    = 0
	edgeIn     = 1
)

// exchangeEdges sends each edge to both its ends, with an Alltoall of
// the record counts and an Alltoallv of the records, and returns this
// rank's part of the graph.
func exchangeEdges(op string, comm *Comm, sources, degrees, dests, weights []int) (*distGraphTopo, error) {
	if comm.colls.Alltoall == nil || comm.colls.Alltoallv == nil {
		return nil, comm.handle(errorf(ClassIntern, nil, "%s on %v: no coll component provides alltoall and alltoallv", op, comm))
	}
	n := comm.Size()
	per := make([][]byte, n)
	put := func(to, kind, peer, weight int) {
		per[to] = binary.LittleEndian.AppendUint64(per[to], uint64(kind))
		per[to] = binary.LittleEndian.AppendUint64(per[to], uint64(peer))
		per[to] = binary.LittleEndian.AppendUint64(per[to], uint64(weight))
	}
	e := 0
	for i, s := range sources {
		for range degrees[i] {
			w := 1
			if weights != nil {
				w = weights[e]
			}
			put(s, edgeOut, dests[e], w)
			put(dests[e], edgeIn, s, w)
			e++
		}
	}
	scounts, sdispls := make([]int, n), make([]int, n)
	counts := make([]byte, 8*n)
	var send []byte
	for r, b := range per {
		scounts[r], sdispls[r] = len(b), len(send)
		binary.LittleEndian.PutUint64(counts[8*r:], uint64(len(b)))
		send = append(send, b...)
	}
	rcountsBytes := make([]byte, 8*n)
	comm.inOrder()
	if err := comm.colls.Alltoall(comm.cc, counts, rcountsBytes); err != nil {
		return nil, comm.handle(errorf(classOf(err), served(comm.colls, "alltoall", err), "%s on %v: alltoall", op, comm))
	}
	rcounts, rdispls := make([]int, n), make([]int, n)
	total := 0
	for r := range n {
		rcounts[r], rdispls[r] = int(binary.LittleEndian.Uint64(rcountsBytes[8*r:])), total
		total += rcounts[r]
	}
	recv := make([]byte, total)
	if err := comm.colls.Alltoallv(comm.cc, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, comm.handle(errorf(classOf(err), served(comm.colls, "alltoallv", err), "%s on %v: alltoallv", op, comm))
	}
	t := &distGraphTopo{weighted: weights != nil}
	for off := 0; off+edgeRecord <= len(recv); off += edgeRecord {
		kind := int(binary.LittleEndian.Uint64(recv[off:]))
		peer := int(binary.LittleEndian.Uint64(recv[off+8:]))
		w := int(binary.LittleEndian.Uint64(recv[off+16:]))
		if kind == edgeOut {
			t.dests, t.destWeights = append(t.dests, peer), append(t.destWeights, w)
		} else {
			t.sources, t.sourceWeights = append(t.sources, peer), append(t.sourceWeights, w)
		}
	}
	if !t.weighted {
		t.sourceWeights, t.destWeights = nil, nil
	}
	return t, nil
}

// DistGraphNeighborsCount returns the number of in-edges and out-edges
// of this rank in comm's distributed graph, and whether it is weighted.
func (*realAPI) DistGraphNeighborsCount(comm *Comm) (int, int, bool, error) {
	t, err := topoOf("dist graph neighbors count", comm, DistGraph)
	if err != nil {
		return 0, 0, false, err
	}
	return len(t.dist.sources), len(t.dist.dests), t.dist.weighted, nil
}

// DistGraphNeighbors returns this rank's in-edges' sources and out-edges'
// destinations in comm's distributed graph, with their weights: nil for
// an unweighted graph.
func (*realAPI) DistGraphNeighbors(comm *Comm) ([]int, []int, []int, []int, error) {
	t, err := topoOf("dist graph neighbors", comm, DistGraph)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	d := t.dist
	return slices.Clone(d.sources), slices.Clone(d.sourceWeights), slices.Clone(d.dests), slices.Clone(d.destWeights), nil
}
