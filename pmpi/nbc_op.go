package pmpi

import "github.com/gompi/gompi/frameworks/coll"

// Collectives by their index in coll.Collectives.
const (
	collBarrier = iota
	collBcast
	collReduce
	collAllreduce
	collGather
	collGatherv
	collScatter
	collScatterv
	collAllgather
	collAllgatherv
	collAlltoall
	collAlltoallv
	collReduceScatter
	collReduceScatterBlock
	collScan
	collExscan
	collNeighborAllgather
	collNeighborAllgatherv
	collNeighborAlltoall
	collNeighborAlltoallv
	collAlltoallw
	collNeighborAlltoallw
)

// collOp is one collective call with its arguments checked and turned into
// bytes: what a coll.Module function takes, kept so that a non-blocking
// call runs it later and a persistent one again at every start.
type collOp struct {
	kind       int // index in coll.Collectives
	send, recv []byte
	// counts and displs are the receive side's per-rank blocks (and
	// ReduceScatter's counts); scounts and sdispls the send side's.
	counts, displs   []int
	scounts, sdispls []int
	op               coll.Op
	root             int
	nb               coll.Neighbors // a neighbourhood collective's
	// sblocks and rblocks are the w-forms' blocks, one per rank or
	// neighbour, each resolved from its count, type and displacement.
	sblocks, rblocks [][]byte
}

// bytes is how many bytes o's buffers hold.
func (o *collOp) bytes() int {
	n := len(o.send) + len(o.recv)
	for _, b := range o.sblocks {
		n += len(b)
	}
	for _, b := range o.rblocks {
		n += len(b)
	}
	return n
}

// provided reports whether m has a function for o.
func (o *collOp) provided(m *coll.Module) bool {
	switch o.kind {
	case collBarrier:
		return m.Barrier != nil
	case collBcast:
		return m.Bcast != nil
	case collReduce:
		return m.Reduce != nil
	case collAllreduce:
		return m.Allreduce != nil
	case collGather:
		return m.Gather != nil
	case collGatherv:
		return m.Gatherv != nil
	case collScatter:
		return m.Scatter != nil
	case collScatterv:
		return m.Scatterv != nil
	case collAllgather:
		return m.Allgather != nil
	case collAllgatherv:
		return m.Allgatherv != nil
	case collAlltoall:
		return m.Alltoall != nil
	case collAlltoallv:
		return m.Alltoallv != nil
	case collReduceScatter:
		return m.ReduceScatter != nil
	case collReduceScatterBlock:
		return m.ReduceScatterBlock != nil
	case collScan:
		return m.Scan != nil
	case collExscan:
		return m.Exscan != nil
	case collNeighborAllgather:
		return m.NeighborAllgather != nil
	case collNeighborAllgatherv:
		return m.NeighborAllgatherv != nil
	case collNeighborAlltoall:
		return m.NeighborAlltoall != nil
	case collNeighborAlltoallv:
		return m.NeighborAlltoallv != nil
	case collAlltoallw:
		return m.Alltoallw != nil
	case collNeighborAlltoallw:
		return m.NeighborAlltoallw != nil
	}
	return false
}

// call runs o with m's function on c; provided(m) must hold.
func (o *collOp) call(m *coll.Module, c coll.Comm) error {
	switch o.kind {
	case collBarrier:
		return m.Barrier(c)
	case collBcast:
		return m.Bcast(c, o.recv, o.root)
	case collReduce:
		return m.Reduce(c, o.send, o.recv, o.op, o.root)
	case collAllreduce:
		return m.Allreduce(c, o.send, o.recv, o.op)
	case collGather:
		return m.Gather(c, o.send, o.recv, o.root)
	case collGatherv:
		return m.Gatherv(c, o.send, o.recv, o.counts, o.displs, o.root)
	case collScatter:
		return m.Scatter(c, o.send, o.recv, o.root)
	case collScatterv:
		return m.Scatterv(c, o.send, o.scounts, o.sdispls, o.recv, o.root)
	case collAllgather:
		return m.Allgather(c, o.send, o.recv)
	case collAllgatherv:
		return m.Allgatherv(c, o.send, o.recv, o.counts, o.displs)
	case collAlltoall:
		return m.Alltoall(c, o.send, o.recv)
	case collAlltoallv:
		return m.Alltoallv(c, o.send, o.scounts, o.sdispls, o.recv, o.counts, o.displs)
	case collReduceScatter:
		return m.ReduceScatter(c, o.send, o.recv, o.counts, o.op)
	case collReduceScatterBlock:
		return m.ReduceScatterBlock(c, o.send, o.recv, o.op)
	case collScan:
		return m.Scan(c, o.send, o.recv, o.op)
	case collExscan:
		return m.Exscan(c, o.send, o.recv, o.op)
	case collNeighborAllgather:
		return m.NeighborAllgather(c, o.nb, o.send, o.recv)
	case collNeighborAllgatherv:
		return m.NeighborAllgatherv(c, o.nb, o.send, o.recv, o.counts, o.displs)
	case collNeighborAlltoall:
		return m.NeighborAlltoall(c, o.nb, o.send, o.recv)
	case collNeighborAlltoallv:
		return m.NeighborAlltoallv(c, o.nb, o.send, o.scounts, o.sdispls, o.recv, o.counts, o.displs)
	case collAlltoallw:
		return m.Alltoallw(c, o.sblocks, o.rblocks)
	case collNeighborAlltoallw:
		return m.NeighborAlltoallw(c, o.nb, o.sblocks, o.rblocks)
	}
	panic("pmpi: collective kind out of range")
}

// run runs the checked call o: at once for a blocking call (s nil), with
// the table's function; else as s says (nbc.go). s is apart from k,
// whose content leaks to the heap through its error paths: s stays on
// the starting call's stack, and a start allocates nothing for it.
func (k *collCall) run(s *collStart, o *collOp) error {
	if s != nil {
		return k.launch(s, o)
	}
	if !o.provided(&k.t.Module) {
		return k.missing()
	}
	k.comm.inOrder()
	err := k.done(o.call(&k.t.Module, k.comm.cc))
	if err == nil && k.copied != nil {
		// After a failure a transport may still hold the copy.
		putPacked(k.copied)
	}
	return err
}
