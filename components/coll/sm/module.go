package sm

import (
	"errors"
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
	seg    *segment  // nil until a call maps it (lazy.go)
	place  placement // where the segment is made
	lazy   lazyState
	pool   *pool // where Free leaves the segment for reuse
	broken bool  // a call failed: the segment is not reused
	comm   coll.Comm
	poller coll.Poller
	me, n  int
	yield  bool // the host is oversubscribed: waits give the CPU away at once
	// fenced: the process joined the remote fences, so raise stores
	// without waiting for the line (lowlevel.JoinRemoteFences).
	fenced bool

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
	// started names the collective of a non-blocking call that wrote its
	// block at its start (start.go) and is not finished, or is "".
	started string

	// The timed path (timed.go): coll_sm_path, and the timing of its
	// calls by collective and size class, made at the first timed call:
	// 3.3 KB that most communicators never use.
	pathMode   string
	pathTimers *[len(timedCalls)][sizeClasses]pathTimer

	// tables holds the closures over the module (component.go); Free
	// leaves the module among spares for the next communicator.
	tables *tables
	spares *spares
	spared bool // Free put it there
}

// collectives is the module's table: each collective maps the segment
// first if no call has and the early calls are made (lazy.go; a reduction
// whose result depends on the grouping does not wait for them), or,
// before that or where it could not be mapped, goes to the next module.
func (m *module) collectives() coll.Module {
	return coll.Module{
		Barrier: func(c coll.Comm) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Barrier(c) })
			}
			return m.barrier(c)
		},
		Bcast: func(c coll.Comm, buf []byte, root int) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Bcast(c, buf, root) })
			}
			return m.bcast(c, buf, root)
		},
		Reduce: func(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
			if err := m.readyFor(op); err != nil {
				return m.unready(err, func() error { return m.next.Reduce(c, send, recv, op, root) })
			}
			return m.reduce(c, send, recv, op, root)
		},
		Allreduce: func(c coll.Comm, send, recv []byte, op coll.Op) error {
			if err := m.readyFor(op); err != nil {
				return m.unready(err, func() error { return m.next.Allreduce(c, send, recv, op) })
			}
			return m.allreduce(c, send, recv, op)
		},
		Gather: func(c coll.Comm, send, recv []byte, root int) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Gather(c, send, recv, root) })
			}
			return m.gather(c, send, recv, root)
		},
		Scatter: func(c coll.Comm, send, recv []byte, root int) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Scatter(c, send, recv, root) })
			}
			return m.scatter(c, send, recv, root)
		},
		Allgather: func(c coll.Comm, send, recv []byte) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Allgather(c, send, recv) })
			}
			return m.allgather(c, send, recv)
		},
		Alltoall: func(c coll.Comm, send, recv []byte) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Alltoall(c, send, recv) })
			}
			return m.alltoall(c, send, recv)
		},
		Allgatherv: func(c coll.Comm, send, recv []byte, counts, displs []int) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.Allgatherv(c, send, recv, counts, displs) })
			}
			return m.allgatherv(c, send, recv, counts, displs)
		},
		ReduceScatter: func(c coll.Comm, send, recv []byte, counts []int, op coll.Op) error {
			if err := m.readyFor(op); err != nil {
				return m.unready(err, func() error { return m.next.ReduceScatter(c, send, recv, counts, op) })
			}
			return m.reduceScatter(c, send, recv, counts, op)
		},
		ReduceScatterBlock: func(c coll.Comm, send, recv []byte, op coll.Op) error {
			if err := m.readyFor(op); err != nil {
				return m.unready(err, func() error { return m.next.ReduceScatterBlock(c, send, recv, op) })
			}
			return m.reduceScatterBlock(c, send, recv, op)
		},
		Scan: func(c coll.Comm, send, recv []byte, op coll.Op) error {
			if err := m.readyFor(op); err != nil {
				return m.unready(err, func() error { return m.next.Scan(c, send, recv, op) })
			}
			return m.scan(c, send, recv, op)
		},
		Exscan: func(c coll.Comm, send, recv []byte, op coll.Op) error {
			if err := m.readyFor(op); err != nil {
				return m.unready(err, func() error { return m.next.Exscan(c, send, recv, op) })
			}
			return m.exscan(c, send, recv, op)
		},
		NeighborAllgather: func(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.NeighborAllgather(c, nb, send, recv) })
			}
			return m.neighborAllgather(c, nb, send, recv)
		},
		NeighborAlltoall: func(c coll.Comm, nb coll.Neighbors, send, recv []byte) error {
			if err := m.ready(); err != nil {
				return m.unready(err, func() error { return m.next.NeighborAlltoall(c, nb, send, recv) })
			}
			return m.neighborAlltoall(c, nb, send, recv)
		},

		Free:  m.free,
		Below: m.below,
	}
}

// below keeps what the next modules provide, for the calls before the
// set-up, the calls too large for the segment and every call where the
// segment could not be made; a collective none of them provides fails
// those calls, and makes the segment at the first call.
func (m *module) below(next *coll.Module) {
	complete := next.Barrier != nil && next.Bcast != nil && next.Reduce != nil && next.Allreduce != nil &&
		next.Gather != nil && next.Scatter != nil && next.Allgather != nil && next.Alltoall != nil &&
		next.Allgatherv != nil && next.ReduceScatter != nil && next.ReduceScatterBlock != nil &&
		next.Scan != nil && next.Exscan != nil && next.NeighborAllgather != nil && next.NeighborAlltoall != nil
	if !complete {
		m.lazy.early = 0
	}
	if next.Barrier == nil {
		next.Barrier = func(coll.Comm) error { return m.none() }
	}
	if next.Bcast == nil {
		next.Bcast = func(coll.Comm, []byte, int) error { return m.none() }
	}
	if next.Reduce == nil {
		next.Reduce = func(coll.Comm, []byte, []byte, coll.Op, int) error { return m.none() }
	}
	if next.Allreduce == nil {
		next.Allreduce = func(coll.Comm, []byte, []byte, coll.Op) error { return m.none() }
	}
	if next.Gather == nil {
		next.Gather = func(coll.Comm, []byte, []byte, int) error { return m.none() }
	}
	if next.Scatter == nil {
		next.Scatter = func(coll.Comm, []byte, []byte, int) error { return m.none() }
	}
	if next.Allgather == nil {
		next.Allgather = func(coll.Comm, []byte, []byte) error { return m.none() }
	}
	if next.Alltoall == nil {
		next.Alltoall = func(coll.Comm, []byte, []byte) error { return m.none() }
	}
	if next.Allgatherv == nil {
		next.Allgatherv = func(coll.Comm, []byte, []byte, []int, []int) error { return m.none() }
	}
	if next.ReduceScatter == nil {
		next.ReduceScatter = func(coll.Comm, []byte, []byte, []int, coll.Op) error { return m.none() }
	}
	if next.ReduceScatterBlock == nil {
		next.ReduceScatterBlock = func(coll.Comm, []byte, []byte, coll.Op) error { return m.none() }
	}
	if next.Scan == nil {
		next.Scan = func(coll.Comm, []byte, []byte, coll.Op) error { return m.none() }
	}
	if next.Exscan == nil {
		next.Exscan = func(coll.Comm, []byte, []byte, coll.Op) error { return m.none() }
	}
	if next.NeighborAllgather == nil {
		next.NeighborAllgather = func(coll.Comm, coll.Neighbors, []byte, []byte) error { return m.none() }
	}
	if next.NeighborAlltoall == nil {
		next.NeighborAlltoall = func(coll.Comm, coll.Neighbors, []byte, []byte) error { return m.none() }
	}
	m.next = next
}

// none is the error of a call that no module below serves.
func (m *module) none() error {
	if m.seg == nil {
		return m.fail(fmt.Errorf("%w and %w", errNoSegment, coll.ErrNoProvider))
	}
	return m.fail(fmt.Errorf("more than coll_sm's limit (%d bytes, coll_sm_max_bytes or less) per rank and %w",
		m.limit, coll.ErrNoProvider))
}

// fail marks the module broken if err is not nil, and returns err: a
// failed call may leave the members' epochs apart, so Free does not keep
// the segment for reuse. The caller names the component, the collective
// and the communicator.
func (m *module) fail(err error) error {
	if err != nil {
		m.broken = true
	}
	return err
}

func (m *module) fits(n int) bool { return n <= m.limit }

// toNext sends a call of collective name of size bytes to the next
// component: a call too large for a block where rounds do not pay
// (roundsPay), or a call that its timed path sends there (timed.go).
func (m *module) toNext(name string, root, size int, next func() error) error {
	m.announce(name, root, size, pathNext)
	return m.passed(next())
}

// passed says that err came from the next component, not from sm: pmpi
// names the component its table chose for the collective, which is sm,
// and sm does not know which component is below it (Below hands it the
// functions only). Without this, a failure of tuned's ring would read as
// sm's. below's fallbacks are sm's own errors (ErrNoProvider, which no
// component below returns) and are returned as they are.
func (m *module) passed(err error) error {
	if err == nil || errors.Is(err, coll.ErrNoProvider) {
		return err
	}
	return fmt.Errorf("passed to the next component: %w", err)
}
