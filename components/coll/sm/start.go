package sm

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

// A non-blocking call that starts with nothing before it outstanding does
// at once what needs no other rank (coll.Module.Start): a bcast's or
// scatter's root writes and raises its block, every rank of a reduce,
// allreduce, gather, allgather, alltoall or barrier writes and raises its
// own, and a rank whose inputs are all raised already (or that reads
// none: a reduce's or gather's other ranks) finishes the call there. The
// rest waits for the call's Wait, which then finds the others' blocks
// written while the program computed. Only calls of one round through
// the segment start so, and only when this rank's block is free (claim
// would not wait): otherwise nothing is done and the call runs whole at
// its Wait.

// starts is the module's coll.Module.Start.
func (m *module) starts() coll.Module {
	return coll.Module{
		Barrier:   m.startBarrier,
		Bcast:     m.startBcast,
		Reduce:    m.startReduce,
		Allreduce: m.startAllreduce,
		Gather:    m.startGather,
		Scatter:   m.startScatter,
		Allgather: m.startAllgather,
		Alltoall:  m.startAlltoall,
		Ready:     m.startedReady,
	}
}

// startedReady is the Start table's Ready.
func (m *module) startedReady() bool { return m.started != "" && m.inputsRaised(m.started) }

// inputsRaised reports whether a call of collective name that Start began
// would finish at once: every member has raised its word, but for an
// oversubscribed host's barrier, where rank 0 needs every other's word
// and the others rank 0's (barrier.go).
func (m *module) inputsRaised(name string) bool {
	switch {
	case name == "barrier" && m.yield && m.me == 0:
		for r := 1; r < m.n; r++ {
			if !m.raised(r, m.epoch) {
				return false
			}
		}
		return true
	case name == "barrier" && m.yield:
		return m.raised(0, m.epoch)
	}
	return m.allRaised()
}

// startable reports whether a call of collective name of size bytes a
// rank may start early: the segment is mapped, the call fits one round,
// and it goes through the segment. A call of a timed class takes the
// class's current path, as every call that serves a request does
// (route), the same on every rank: calls run in start order, so no trial
// comes between the start and the Wait.
func (m *module) startable(name string, size int) bool {
	if m.seg == nil || !m.fits(size) {
		return false
	}
	if m.untimed(size) || !slices.Contains(timedCalls[:], name) {
		return true
	}
	c, _ := m.timedPath(name, size, true, false) // an uncounted call neither fails nor trials
	return c.path != pathNext
}

// raised reports, at one look, whether rank r has raised a word to at
// least e.
func (m *module) raised(r int, e uint64) bool {
	if m.seen[r] >= e {
		return true
	}
	if v := epochWord(m.seg.block(r, e&1)).Load(); v >= e {
		m.seen[r] = v
		return true
	}
	return false
}

// claimable reports whether claim would not wait in the next epoch: every
// member is done with what this rank's block of its parity held.
func (m *module) claimable() bool {
	if e := m.epoch + 1; e > 2 {
		for r := range m.n {
			if !m.raised(r, e-1) {
				return false
			}
		}
	}
	return true
}

// allRaised reports whether every member has raised its word of the
// current epoch.
func (m *module) allRaised() bool {
	for r := range m.n {
		if !m.raised(r, m.epoch) {
			return false
		}
	}
	return true
}

// begun marks the call of collective name as started, for its blocking
// function to finish.
func (m *module) begun(name string) error {
	m.started = name
	return coll.ErrStarted
}

// finish finishes the call of collective name that its Start function
// began (m.started is set) with rest, which reads the others' blocks. A
// call of another collective in its place is the caller's error: the
// calls on a communicator run in start order.
func (m *module) finish(name string, rest func() error) error {
	s := m.started
	m.started = ""
	if s != name {
		return m.fail(fmt.Errorf("%s called while the %s started before it is not finished", name, s))
	}
	return m.fail(rest())
}

func (m *module) startBcast(c coll.Comm, buf []byte, root int) error {
	return m.startRooted("bcast", root, len(buf), func() error { return m.bcast(c, buf, root) })
}

func (m *module) startScatter(c coll.Comm, send, recv []byte, root int) error {
	if m.me == root && len(send) != m.n*len(recv) {
		return coll.ErrNotStarted
	}
	return m.startRooted("scatter", root, m.n*len(recv), func() error { return m.scatter(c, send, recv, root) })
}

// startRooted starts a call from root whose other ranks only read the
// root's block, a contribution of total bytes: call, the blocking
// function, runs whole at once when it waits for nothing, at the root
// when its block is free, at the others when the root's block is raised.
func (m *module) startRooted(name string, root, total int, call func() error) error {
	if root < 0 || root >= m.n || !m.startable(name, total) {
		return coll.ErrNotStarted
	}
	if m.me == root && !m.claimable() || m.me != root && !m.raised(root, m.epoch+1) {
		return coll.ErrNotStarted
	}
	return call()
}

// startGathering writes this rank's block of a call of collective name
// that gathers every rank's contribution of total bytes, send, and then
// finishes it at once with rest where every block is already raised.
// The call is complete at a rank that reads no block (reads false).
func (m *module) startGathering(name string, root, total int, send []byte, reads bool, rest func() error) error {
	if !m.startable(name, total) || !m.claimable() {
		return coll.ErrNotStarted
	}
	m.announce(name, root, total, pathSegment)
	if _, err := m.contribute(name, total, send, false); err != nil {
		return m.fail(err)
	}
	if !reads {
		return nil
	}
	if m.allRaised() {
		return m.fail(rest())
	}
	return m.begun(name)
}

func (m *module) startReduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	total := len(send)
	if root < 0 || root >= m.n || coll.CheckOp(op, total) != nil || m.me == root && len(recv) != total {
		return coll.ErrNotStarted
	}
	return m.startGathering("reduce", root, total, send, m.me == root, func() error {
		return m.combine(m.epoch&1, total, send, recv, op, m.n-1, 0)
	})
}

func (m *module) startGather(c coll.Comm, send, recv []byte, root int) error {
	total := len(send)
	if root < 0 || root >= m.n || m.me == root && len(recv) != m.n*total {
		return coll.ErrNotStarted
	}
	return m.startGathering("gather", root, total, send, m.me == root, func() error {
		return m.gatherInto(m.epoch&1, total, 0, total, send, recv)
	})
}

func (m *module) startAllgather(c coll.Comm, send, recv []byte) error {
	total := len(send)
	if len(recv) != m.n*total {
		return coll.ErrNotStarted
	}
	return m.startGathering("allgather", noRoot, total, send, true, func() error {
		return m.gatherInto(m.epoch&1, total, 0, total, send, recv)
	})
}

func (m *module) startAllreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	total := len(send)
	if m.splitPays(total) || len(recv) != total || coll.CheckOp(op, total) != nil {
		return coll.ErrNotStarted
	}
	return m.startGathering("allreduce", noRoot, total, send, true, func() error {
		return m.combine(m.epoch&1, total, send, recv, op, m.n-1, 0)
	})
}

func (m *module) startAlltoall(c coll.Comm, send, recv []byte) error {
	total := len(send)
	if total%m.n != 0 || len(recv) != total || !m.startable("alltoall", total) || !m.claimable() {
		return coll.ErrNotStarted
	}
	k := total / m.n
	m.announce("alltoall", noRoot, total, pathSegment)
	shm.CopyCached(recv[m.me*k:(m.me+1)*k], send[m.me*k:(m.me+1)*k])
	if err := m.writeAlltoall(send, total, k, 0, k); err != nil {
		return m.fail(err)
	}
	if m.allRaised() {
		return m.fail(m.readAlltoall(recv, total, k, 0, k))
	}
	return m.begun("alltoall")
}

func (m *module) startBarrier(c coll.Comm) error {
	if m.seg == nil || !m.claimable() {
		return coll.ErrNotStarted
	}
	m.announce("barrier", noRoot, 0, pathSegment)
	p := m.begin("barrier")
	if err := m.claimAs(p, m.markWord("barrier")); err != nil {
		return m.fail(err)
	}
	if !m.yield || m.me != 0 {
		m.raise(p) // oversubscribed, rank 0 raises last (barrier.go)
	}
	if m.inputsRaised("barrier") {
		return m.fail(m.barrierRest(p))
	}
	return m.begun("barrier")
}
