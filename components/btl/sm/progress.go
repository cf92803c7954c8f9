package sm

import (
	"fmt"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/internal/lowlevel"
)

// Progress delivers what the local peers wrote into this rank's rings.
func (m *Module) Progress() int {
	if m.holding.Load() != 0 {
		m.flushAll()
	}
	ins := m.consumers()
	if !anyPending(ins) || !m.consuming.CompareAndSwap(false, true) {
		return 0 // an empty poll is loads only: no locked instruction
	}
	n := 0
	for _, c := range ins {
		if c.broken || !c.pending() {
			continue
		}
		// Take the lines of this rank's next record to the peer (reserve):
		// before delivering if the peer answered and now polls them; else
		// after, since the peer of an exchange, whose record crossed this
		// rank's, is about to look there for a next record and would take
		// them back.
		p := m.peers[c.from]
		early := p != nil && c.answers(p.out.next.Load())
		if early {
			p.out.reserve()
		}
		k, err := c.drain(m.recv)
		if p != nil && !early {
			p.out.reserve()
		}
		n += k
		if err != nil {
			c.broken = true
			m.fail(c.from, fmt.Errorf("ring from world rank %d: %w", c.from, err))
		}
	}
	lowlevel.UnlockFlag(&m.consuming)
	return n
}

// Watch adds the first word of the next record of every ring into this
// rank (btl.Watcher): a peer's next record stores it last. It finds
// something to do if a record waits, or Post held records back.
func (m *Module) Watch(add func(w *atomic.Uint64, v uint64) bool) bool {
	if m.holding.Load() != 0 {
		return false
	}
	for _, c := range m.consumers() {
		head := c.ring.head.Load()
		w := c.stamp(head & uint64(len(c.data)-1))
		v := w.Load()
		if v > head || !add(w, v) {
			return false
		}
	}
	return true
}

func anyPending(ins []*consumer) bool {
	for _, c := range ins {
		if c.pending() {
			return true
		}
	}
	return false
}

func (m *Module) fail(rank int, err error) {
	if p := m.peers[rank]; p != nil && p.failed.CompareAndSwap(false, true) {
		m.log.Error("peer failed", "peer", rank, "error", err)
		m.recv.PeerFailed(rank, fmt.Errorf("%w: %w", btl.ErrPeerFailed, err))
	}
}
