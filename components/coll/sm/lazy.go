package sm

import (
	"errors"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
)

// A communicator's segment is made at a collective call, not when the
// communicator is: making and mapping it made a Dup+Free take 2-10 ms on
// 2 ranks and 6-17 on 4, against 0.02-0.07 without it, and held 2 x
// ranks x coll_sm_max_bytes of memory for communicators that may never
// make a collective call. Nor is it made at the first call: the set-up
// (0.5-1 ms here on 2 ranks, 3-4 on 8) spread over a program's first 20
// calls of a 1-byte bcast made each take 30-60 times Open MPI's, where
// the next component's messages are as fast as Open MPI's from the first
// call. So a communicator's first coll_sm_segment_after calls go to the
// next component, and the call after them sets the segment up. Every
// member makes the same calls in the same order (MPI's rule for
// collectives), so every member counts alike, takes part in the set-up
// at the same call and gets the same verdict: a segment (a pooled one,
// pool.go, or a new one, attach), or the next module for every call on
// every member.

// A reduction whose result depends on how its operands are grouped (a
// floating-point sum or product, a user's operation: coll.Exact) on 3
// ranks or more makes the segment at once: the next component's
// algorithms group them otherwise than the segment's combine, so the
// result of the same call on the same data would change its last bits at
// the set-up, where MPI asks for the same result every time. Combining in
// the segment's order with messages before it took 2-7 times tuned's time
// on 4 ranks at 1-8 KiB; the set-up costs once per communicator, less
// where a freed one's segment is reused (pool.go). On 2 ranks every
// algorithm computes b0 ⊕ b1.

// placement is where a module's segment is made: in dir, or, where dir
// refuses the file, in the session directory, after a call of refused.
type placement struct {
	dir, session, id string
	lay              layout
	comp             *Component
	log              hclog.Logger
}

// lazyState says whether the set-up ran, and its failure.
type lazyState struct {
	early int // calls still to go to the next module before the set-up
	done  bool
	err   error // the set-up's messages failed: every later call fails with it
}

// errNoSegment marks a module whose members could not all map the
// segment: its calls go to the next module.
var errNoSegment = errors.New("the communicator's shared segment could not be made")

// errNotYet marks a call made before the set-up: it goes to the next
// module.
var errNotYet = errors.New("the communicator's shared segment is not made yet")

// ready maps the segment if no call has tried yet and the communicator's
// early calls are made. It returns nil once the segment is mapped,
// errNotYet for an early call, errNoSegment if some member could not map
// it, or the error of the set-up's messages.
func (m *module) ready() error {
	if m.seg != nil {
		return nil
	}
	if m.lazy.early > 0 {
		m.lazy.early--
		return errNotYet
	}
	if !m.lazy.done {
		m.lazy.done = true
		e, reused, err := m.pool.reuse(m.comm, m.place.lay)
		if reused {
			m.seg, m.epoch, m.calls = e.seg, e.epoch, e.calls
			return nil
		}
		var seg *segment
		if err == nil {
			seg, err = attach(m.comm, m.place, m.log)
		}
		switch {
		case err != nil:
			m.lazy.err = err
		case seg == nil:
			m.lazy.err = errNoSegment
		default:
			m.seg = seg
			return nil
		}
	}
	if errors.Is(m.lazy.err, errNoSegment) {
		return errNoSegment
	}
	return m.fail(m.lazy.err)
}

// readyFor is ready for a reduction of op, which makes the segment at
// once where op's result depends on the grouping.
func (m *module) readyFor(op coll.Op) error {
	err := m.ready()
	if err == errNotYet && m.n > 2 && !coll.Exact(op) {
		m.lazy.early = 0
		err = m.ready()
	}
	return err
}

// unready serves a call that ready refused: the next module's, before
// the set-up or where the segment could not be made, else err.
func (m *module) unready(err error, next func() error) error {
	if err != errNotYet && !errors.Is(err, errNoSegment) {
		return err
	}
	return m.passed(next()) // below's fallbacks say when no module is below
}

// free gives the segment, if a call mapped it, to the pool (pool.go),
// or unmaps it if a call failed: an error may leave the members' epochs
// apart.
func (m *module) free() error {
	seg := m.seg
	m.seg = nil
	if m.spares != nil && !m.spared {
		m.spared = true // a second Free must not hand it out twice
		defer m.spares.put(m)
	}
	if seg == nil {
		return nil
	}
	if m.broken {
		return seg.unmap()
	}
	return m.pool.put(pooled{seg: seg, rank: m.me, epoch: m.epoch, calls: m.calls})
}
