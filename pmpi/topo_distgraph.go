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
		return errorf(ClassArg, nil, "%s on %v: %d weights for %d %s (want one per edge, or nil for unweighted)", op, comm, len(weights), edges, what)
	}
	for i, w := range weights {
		if w < 0 {
			return errorf(ClassArg, nil, "%s on %v: weight %d of the %s is %d (want >= 0)", op, comm, i, what, w)
		}
	}
	return nil
}

// checkAdjacent checks DistGraphCreateAdjacent's arguments against comm;
// the error is not handled yet.
func checkAdjacent(op string, comm *Comm, sources, sourceWeights, dests, destWeights []int) error {
	if (sourceWeights == nil) != (destWeights == nil) {
		return errorf(ClassArg, nil, "%s on %v: weights for one direction only (want both source and destination weights, or both nil for unweighted)", op, comm)
	}
	n := comm.Size()
	if err := checkRanks(op, comm, "sources", sources, n); err != nil {
		return err
	}
	if err := checkRanks(op, comm, "dests", dests, n); err != nil {
		return err
	}
	if err := checkWeights(op, comm, "sources", sourceWeights, len(sources)); err != nil {
		return err
	}
	return checkWeights(op, comm, "dests", destWeights, len(dests))
}

// checkEdges checks DistGraphCreate's arguments against comm; the error
// is not handled yet.
func checkEdges(op string, comm *Comm, sources, degrees, dests, weights []int) error {
	if len(degrees) != len(sources) {
		return errorf(ClassArg, nil, "%s on %v: %d sources and %d degrees (want one degree per source)", op, comm, len(sources), len(degrees))
	}
	edges := 0
	for i, d := range degrees {
		if d < 0 {
			return errorf(ClassArg, nil, "%s on %v: degrees[%d] is %d (want >= 0)", op, comm, i, d)
		}
		edges += d
	}
	if edges != len(dests) {
		return errorf(ClassArg, nil, "%s on %v: degrees add up to %d but dests has %d entries (want one destination per edge)", op, comm, edges, len(dests))
	}
	n := comm.Size()
	if err := checkRanks(op, comm, "sources", sources, n); err != nil {
		return err
	}
	if err := checkRanks(op, comm, "dests", dests, n); err != nil {
		return err
	}
	return checkWeights(op, comm, "edges", weights, edges)
}

// distArgs are what each rank of a distributed graph's constructors
// passes: its own, which need only be valid.
var distArgs = sameArgs{names: "edges"}

// weightsError is the error of a distributed graph's constructor whose
// ranks passed weights at some ranks and nil at others: zero says
// whether rank 0 passed weights, first is the lowest rank that did
// otherwise, and more counts the further ranks that did so.
func weightsError(op string, comm *Comm, zero bool, first, more int) error {
	passed := map[bool]string{true: "weights", false: "nil weights (unweighted)"}
	others := ""
	if more > 0 {
		others = " and " + moreRanks(more)
	}
	return errorf(ClassArg, nil, "%s on %v: rank %d%s passed %s where rank 0 passed %s (MPI requires weights at every rank or nil at every rank)",
		op, comm, first, others, passed[!zero], passed[zero])
}

// mixedWeights is weightsError for the ranks of comm that passed weights
// (weighted, by rank), or nil if all or none did.
func mixedWeights(op string, comm *Comm, weighted []bool) error {
	first := slices.Index(weighted, !weighted[0])
	if first < 0 {
		return nil
	}
	more := 0
	for _, w := range weighted[first+1:] {
		if w != weighted[0] {
			more++
		}
	}
	return weightsError(op, comm, weighted[0], first, more)
}

// adjacentWeights is what the ranks of DistGraphCreateAdjacent compare
// with the group on the context agreement: whether each passed weights,
// which MPI requires of every rank or none. When they differ, one more
// reduction, on the failing path alone, counts the ranks that did.
func adjacentWeights(op string, comm *Comm, weighted bool) sameArgs {
	args := distArgs
	args.values = []int{int(boolByte(weighted))}
	args.differ = func(d *groupsDiffer) error {
		sumOp, _ := bind(OpSum, Uint32)
		words := []uint32{0, 0} // the ranks that passed weights; 1 if rank 0 is one
		if weighted {
			words[0] = 1
			if comm.rank == 0 {
				words[1] = 1
			}
		}
		if err := comm.allreduceWords(words, sumOp); err != nil {
			return errorf(classOf(err), err, "%s on %v", op, comm)
		}
		zero, others := words[1] == 1, int(words[0])
		if zero {
			others = comm.Size() - others
		}
		// Rank 0 is the lowest of its kind, d.b of the other.
		return weightsError(op, comm, zero, d.b, others-1)
	}
	return args
}

// DistGraphCreateAdjacent makes a communicator of comm's ranks with a
// distributed graph: each rank names the sources of its in-edges and the
// destinations of its out-edges, with their weights, or nil weights for
// an unweighted graph (MPI_UNWEIGHTED; both nil or neither, and nil at
// every rank or at none). Every rank of comm calls it, and the edges it
// names must match those its neighbours name. The ranks keep comm's
// order whether reorder is true or not, as MPI allows.
func (*realAPI) DistGraphCreateAdjacent(comm *Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (*Comm, error) {
	const op = "dist graph create adjacent"
	l, err := topoArgs(op, comm)
	if err != nil {
		return nil, err
	}
	own := checkAdjacent(op, comm, sources, sourceWeights, dests, destWeights)
	t := &distGraphTopo{sources: slices.Clone(sources), dests: slices.Clone(dests), weighted: sourceWeights != nil}
	if t.weighted {
		t.sourceWeights, t.destWeights = slices.Clone(sourceWeights), slices.Clone(destWeights)
	}
	return l.topoComm(comm, op, "distgraph", adjacentWeights(op, comm, sourceWeights != nil), slices.Clone(comm.group), &topology{dist: t}, own)
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
	own := checkEdges(op, comm, sources, degrees, dests, weights)
	t, err := exchangeEdges(op, comm, sources, degrees, dests, weights, own)
	if err != nil {
		return nil, comm.handle(err)
	}
	return l.topoComm(comm, op, "distgraph", distArgs, slices.Clone(comm.group), &topology{dist: t}, nil)
}

// An edge record, as exchangeEdges sends it: kind, peer and weight, as
// three little-endian int64s. An out-edge goes to its source, naming its
// destination; an in-edge to its destination, naming its source.
const (
	edgeRecord = 24
	edgeOut    = 0
	edgeIn     = 1
)

// badCount is the record count that a rank whose edges failed its checks
// sends every rank, so that all of them skip the Alltoallv and fail.
const badCount = ^uint64(0)

// countWeighted marks the count that a rank that passed weights sends,
// so that every rank learns which ranks did, which MPI requires of every
// rank or none.
const countWeighted = uint64(1) << 62

// exchangeEdges sends each edge to both its ends, with an Alltoall of
// the record counts and an Alltoallv of the records, and returns this
// rank's part of the graph; errors are not handled yet. A rank whose
// edges failed its checks passes the error (own), which it returns
// after the Alltoall: that tells every other rank to fail too.
func exchangeEdges(op string, comm *Comm, sources, degrees, dests, weights []int, own error) (*distGraphTopo, error) {
	if comm.colls.Alltoall == nil || comm.colls.Alltoallv == nil {
		return nil, errorf(ClassIntern, nil, "%s on %v: no coll component provides alltoall and alltoallv", op, comm)
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
		if own != nil {
			break
		}
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
		c := uint64(len(b))
		if weights != nil {
			c |= countWeighted
		}
		if own != nil {
			c = badCount
		}
		binary.LittleEndian.PutUint64(counts[8*r:], c)
		send = append(send, b...)
	}
	rcountsBytes := make([]byte, 8*n)
	comm.inOrder()
	if err := comm.colls.Alltoall(comm.cc, counts, rcountsBytes); err != nil {
		return nil, errorf(classOf(err), served(comm.colls, "alltoall", err), "%s on %v: alltoall", op, comm)
	}
	rcounts, rdispls := make([]int, n), make([]int, n)
	weighted := make([]bool, n)
	total := 0
	for r := range n {
		c := binary.LittleEndian.Uint64(rcountsBytes[8*r:])
		switch {
		case own != nil:
			return nil, own
		case c == badCount:
			return nil, errorf(ClassArg, nil, "%s on %v: rank %d passed invalid edges (MPI requires valid edges at every rank; that rank's own error says what is wrong)", op, comm, r)
		}
		weighted[r] = c&countWeighted != 0
		rcounts[r], rdispls[r] = int(c&^countWeighted), total
		total += rcounts[r]
	}
	if err := mixedWeights(op, comm, weighted); err != nil {
		return nil, err
	}
	recv := make([]byte, total)
	if err := comm.colls.Alltoallv(comm.cc, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, errorf(classOf(err), served(comm.colls, "alltoallv", err), "%s on %v: alltoallv", op, comm)
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
