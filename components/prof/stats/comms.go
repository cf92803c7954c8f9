package stats

import (
	"cmp"
	"slices"

	"github.com/gompi/gompi/pmpi"
)

// Per-communicator counts, by MPI's caching scheme for tools (MPI 4.1,
// section 15.2): the layer finds its state for a communicator in an
// attribute of it, under a keyval it creates at Init, and MPI tells it
// of the communicator's life through the keyval's callbacks. The copy
// callback gives a Dup (or an Idup) counts of its own, from zero; the
// delete callback, which CommFree runs, folds the communicator's counts
// into the report before they vanish. A communicator that no Dup made
// (Split, Create...) gets its attribute at its first counted call.
//
// The attribute holds the communicator's slot; the counts themselves
// accumulate in the shards, by slot, so that a call costs no more locks
// than before (counter.go). Slot 0 is the world's. A freed communicator's
// slot is reused.

// worldSlot is the world's slot, set at Init.
const worldSlot = 0

// commCounter is the layer's attribute on a communicator: its slot, or
// -1 until its first counted call (a Dup's, from the copy callback).
// The module's mu guards slot.
type commCounter struct{ slot int }

// commTally is a communicator's counts in a phase: its name when the
// phase ended, or when it was freed.
type commTally struct {
	name  string
	t     tally
	freed bool
}

// createKeyval creates the layer's keyval and gives the world its slot.
func (m *module) createKeyval() error {
	api := pmpi.Real()
	kv, err := api.CommCreateKeyval(
		func(*pmpi.Comm, pmpi.Keyval, any, any) (any, bool, error) { return &commCounter{slot: -1}, true, nil },
		func(c *pmpi.Comm, _ pmpi.Keyval, v, _ any) error {
			if cc, ok := v.(*commCounter); ok {
				m.fold(c, cc)
			}
			return nil
		}, nil)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.kv = kv
	m.slots[worldSlot] = m.world
	m.mu.Unlock()
	return api.CommSetAttr(m.world, kv, &commCounter{slot: worldSlot})
}

// attach returns c's slot: the one its attribute holds, or a new one,
// which the attribute then holds; -1 if c has no attribute to hold it
// (an invalid communicator, or no keyval: the layer of a test).
func (m *module) attach(c *pmpi.Comm) int {
	m.mu.Lock()
	kv := m.kv
	m.mu.Unlock()
	if kv == (pmpi.Keyval{}) {
		return -1
	}
	api := pmpi.Real()
	v, ok, err := api.CommGetAttr(c, kv)
	if err != nil {
		return -1
	}
	cc, _ := v.(*commCounter)
	if !ok || cc == nil {
		cc = &commCounter{slot: -1}
		if api.CommSetAttr(c, kv, cc) != nil {
			return -1
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cc.slot < 0 {
		cc.slot = m.newSlot(c)
	}
	return cc.slot
}

// newSlot takes a free slot for c; m.mu is held.
func (m *module) newSlot(c *pmpi.Comm) int {
	if n := len(m.freeSlots); n > 0 {
		s := m.freeSlots[n-1]
		m.freeSlots = m.freeSlots[:n-1]
		m.slots[s] = c
		return s
	}
	m.slots = append(m.slots, c)
	return len(m.slots) - 1
}

// fold takes the counts of c, which is being freed, out of the shards
// and keeps them for the phase under way, under c's name, and frees its
// slot.
func (m *module) fold(c *pmpi.Comm, cc *commCounter) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := cc.slot
	if s < 0 || s >= len(m.slots) || m.slots[s] != c {
		return // never counted
	}
	var t tally
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		if s < len(sh.comms) {
			t.merge(sh.comms[s])
			sh.comms[s] = tally{}
		}
		sh.mu.Unlock()
	}
	m.slots[s], cc.slot = nil, -1
	m.freeSlots = append(m.freeSlots, s)
	if t.Calls > 0 {
		m.folded = append(m.folded, commTally{name: c.Name(), t: t, freed: true})
	}
}

// phaseComms is the communicators' counts of a phase: those the shards
// took, by slot, under the live communicators' names, and those folded
// since the last phase; by name. m.mu is held.
func (m *module) phaseComms(bySlot []tally) []commTally {
	out := m.folded
	m.folded = nil
	for s, t := range bySlot {
		if t.Calls > 0 && s < len(m.slots) && m.slots[s] != nil {
			out = append(out, commTally{name: m.slots[s].Name(), t: t})
		}
	}
	slices.SortStableFunc(out, func(a, b commTally) int { return cmp.Compare(a.name, b.name) })
	return out
}
