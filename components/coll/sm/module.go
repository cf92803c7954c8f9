package sm

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

// module is one rank's view of a communicator's segment.
//
// Epochs: the calls that go through the segment are numbered epochs alike
// on every member: one per call, or per round of a call that goes in
// rounds, two per round of a split allreduce, one for the timed path's
// swap of timings. MPI has every member call a communicator's collectives
// in the same order, and what decides a call's path and rounds (its size,
// and the timed path's choice, made from the same figures on every
// member) is alike on every member. In epoch e a rank uses only its
// blocks of parity e&1, and it raises its block's epoch word to e once it
// has written its data, or, if it writes none, once it has read what it
// needed: a rank's word at e-1 therefore says it is done with epoch e-2.
// So before writing its block at epoch e, a rank waits until every member
// has raised a word to e-1; when the last call gathered from every member
// this is already known (seen) and costs nothing.
type module struct {
	seg    *segment
	comm   coll.Comm
	poller coll.Poller
	me, n  int
	yield  bool // the host is oversubscribed: waits give the CPU away at once

	limit int        // a block: the most one epoch carries of a rank's contribution
	w     shm.Writer // copies this rank's contributions into its blocks
	epoch uint64
	call  string   // the collective of the current epoch, for the state report
	seen  []uint64 // by rank: the highest epoch seen raised
	next  *coll.Module
	log   hclog.Logger

	// Announcements (announce.go): the collective calls on the
	// communicator, the current one, whether it is published, and by
	// parity the call each of the last two epochs belongs to.
	calls uint64
	cur   callInfo
	told  bool
	mine  [2]callInfo

	// The timed path (timed.go): coll_sm_path, and the timing of its
	// calls by collective and size class.
	pathMode   string
	pathTimers [len(timedCalls)][sizeClasses]pathTimer
}

func (m *module) collectives() *coll.Module {
	return &coll.Module{
		Barrier:   m.barrier,
		Bcast:     m.bcast,
		Reduce:    m.reduce,
		Allreduce: m.allreduce,
		Gather:    m.gather,
		Scatter:   m.scatter,
		Allgather: m.allgather,
		Alltoall:  m.alltoall,

		Allgatherv:         m.allgatherv,
		ReduceScatter:      m.reduceScatter,
		ReduceScatterBlock: m.reduceScatterBlock,
		Scan:               m.scan,
		Exscan:             m.exscan,

		Free:  m.seg.unmap,
		Below: m.below,
	}
}

// below keeps what the next modules provide, for the calls too large for
// the segment; a collective none of them provides fails those calls.
func (m *module) below(next *coll.Module) {
	none := func(name string) error {
		return m.fail(name, fmt.Errorf("more than coll_sm's limit (%d bytes, coll_sm_max_bytes or less) per rank and %w",
			m.limit, coll.ErrNoProvider))
	}
	if next.Bcast == nil {
		next.Bcast = func(coll.Comm, []byte, int) error { return none("bcast") }
	}
	if next.Reduce == nil {
		next.Reduce = func(coll.Comm, []byte, []byte, coll.Op, int) error { return none("reduce") }
	}
	if next.Allreduce == nil {
		next.Allreduce = func(coll.Comm, []byte, []byte, coll.Op) error { return none("allreduce") }
	}
	if next.Gather == nil {
		next.Gather = func(coll.Comm, []byte, []byte, int) error { return none("gather") }
	}
	if next.Scatter == nil {
		next.Scatter = func(coll.Comm, []byte, []byte, int) error { return none("scatter") }
	}
	if next.Allgather == nil {
		next.Allgather = func(coll.Comm, []byte, []byte) error { return none("allgather") }
	}
	if next.Alltoall == nil {
		next.Alltoall = func(coll.Comm, []byte, []byte) error { return none("alltoall") }
	}
	if next.Allgatherv == nil {
		next.Allgatherv = func(coll.Comm, []byte, []byte, []int, []int) error { return none("allgatherv") }
	}
	if next.ReduceScatter == nil {
		next.ReduceScatter = func(coll.Comm, []byte, []byte, []int, coll.Op) error { return none("reduce_scatter") }
	}
	if next.ReduceScatterBlock == nil {
		next.ReduceScatterBlock = func(coll.Comm, []byte, []byte, coll.Op) error { return none("reduce_scatter_block") }
	}
	if next.Scan == nil {
		next.Scan = func(coll.Comm, []byte, []byte, coll.Op) error { return none("scan") }
	}
	if next.Exscan == nil {
		next.Exscan = func(coll.Comm, []byte, []byte, coll.Op) error { return none("exscan") }
	}
	m.next = next
}

// fail wraps an error of collective name.
func (m *module) fail(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("coll sm: %s on %s: %w", name, m.comm.Name(), err)
}

func (m *module) fits(n int) bool { return n <= m.limit }

// toNext sends a call of collective name of size bytes to the next
// component: a call too large for a block where rounds do not pay
// (roundsPay), or a call that its timed path sends there (timed.go).
func (m *module) toNext(name string, root, size int, next func() error) error {
	m.announce(name, root, size, pathNext)
	return next()
}
