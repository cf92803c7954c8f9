package sm

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// barrier: every rank raises its word and waits for every other's. When
// the host is oversubscribed, rank 0 alone waits for every other rank and
// then raises its word, which the others wait for: rank 0 leaves first, so
// that what it does next (a bcast's write) is done before the others,
// which a context switch may keep away for microseconds, come to need it.
func (m *module) barrier(c coll.Comm) error {
	if m.started != "" {
		return m.finish("barrier", func() error { return m.barrierRest(m.epoch & 1) })
	}
	m.announce("barrier", noRoot, 0, pathSegment)
	return m.fail(m.sync("barrier"))
}

// sync is a barrier epoch of collective name. Its length word says the
// collective (markWord), and it checks every word it waited for the same
// way: a rank in another collective in this epoch fails the call on both
// sides instead of passing for a member of the barrier.
func (m *module) sync(name string) error {
	p := m.begin(name)
	if err := m.claimAs(p, m.markWord(name)); err != nil {
		return err
	}
	fanIn := m.yield && m.me == 0
	if m.yield && m.me != 0 {
		m.raise(p)
		return m.sameCall(0, p, name)
	}
	if !fanIn {
		m.raise(p)
	}
	// syncRest's loop, inline: through the call the blocking barrier took
	// 1.03 of its time before the non-blocking starts, inline 1.01.
	for r := range m.n {
		if r != m.me {
			if err := m.sameCall(r, p, name); err != nil {
				return err
			}
		}
	}
	if fanIn {
		m.raise(p)
	}
	return nil
}

// barrierRest finishes a barrier that its Start began (raised, but for
// rank 0 of an oversubscribed host): it waits as sync does, and rank 0 of
// an oversubscribed host raises its word last.
func (m *module) barrierRest(p uint64) error {
	if m.yield && m.me != 0 {
		return m.sameCall(0, p, "barrier")
	}
	if err := m.syncRest(p, "barrier"); err != nil {
		return err
	}
	if m.yield {
		m.raise(p)
	}
	return nil
}

// syncRest waits for every other member's word of the barrier epoch of
// parity p, in collective name.
func (m *module) syncRest(p uint64, name string) error {
	for r := range m.n {
		if r == m.me {
			continue
		}
		if err := m.sameCall(r, p, name); err != nil {
			return err
		}
	}
	return nil
}

// sameCall waits for rank r's word of this epoch, of parity p, and checks
// that r is in the same call of collective name, which carries no data.
func (m *module) sameCall(r int, p uint64, name string) error {
	if err := m.await(r, m.epoch); err != nil {
		return err
	}
	w := *lenWord(m.seg.block(r, p))
	if w == m.markWord(name) {
		return nil
	}
	if err := m.otherCall(r, w, name); err != nil {
		return err
	}
	if w>>(lenBits+rootBits) == m.calls&seqMask {
		return fmt.Errorf("rank %d is in a collective that carries data (%d bytes from it) where this rank is in %s "+
			"(collective call %d on this communicator): the ranks call different collectives", r, w&lenMask, name, m.calls)
	}
	return fmt.Errorf("rank %d raised its word of this rank's %s, collective call %d on this communicator, in another call: "+
		"the ranks call different collectives", r, name, m.calls)
}
