package sm

import (
	"time"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Idle is called when a waiter stops polling: the listener then delivers,
// woken by the peers.
func (m *Module) Idle() {
	if m.idle.Add(1) == 1 {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// Busy is called when a waiter polls again.
func (m *Module) Busy() {
	if m.idle.Add(-1) == 0 && m.me.wake != nil && m.me.sleeping.Load() != 0 {
		m.me.wake.Add(1)
		lowlevel.FutexWake(m.me.wake) // the listener may sleep: let it see that it can stop
	}
}

// Doze sleeps the calling thread on the rank's wake-up word, which a peer
// that publishes to a sleeping rank bumps (btl.Dozer). It looks at the
// rings without draining them: the waiter polls when Doze returns.
func (m *Module) Doze(d time.Duration, ready func() bool) {
	if m.me.wake == nil || m.closed.Load() {
		lowlevel.Yield() // nothing to sleep on: the caller's loop must not spin
		return
	}
	if m.holding.Load() != 0 {
		m.flushAll() // what Post held back leaves before the rank sleeps
	}
	m.me.sleeping.Add(1)
	v := m.me.wake.Load()
	if !anyPending(m.consumers()) && !ready() {
		lowlevel.FutexWaitRaw(m.me.wake, v, d)
	}
	m.me.sleeping.Add(^uint32(0)) // -1
}

// Wake ends the rank's Dozes (btl.Dozer).
func (m *Module) Wake() {
	if m.me.wake == nil {
		return
	}
	m.me.wake.Add(1)
	if m.me.sleeping.Load() != 0 {
		lowlevel.FutexWake(m.me.wake)
	}
}

// listen delivers while the rank's waiters sleep: it announces that it
// sleeps, checks the rings once more, then sleeps on its wake-up word
// until a peer bumps it. Every liveness interval it checks the peers,
// whether the rank's waiters sleep or not: a loop of Iprobe or Test
// never sleeps, and would otherwise never learn that a peer died.
func (m *Module) listen() {
	defer m.wg.Done()
	var checked time.Time
	tick := time.NewTicker(m.cfg.liveness)
	defer tick.Stop()
	for {
		select {
		case <-m.done:
			return
		case now := <-tick.C:
			if now.Sub(checked) >= m.cfg.liveness {
				checked = now
				m.checkPeers()
			}
			continue
		case <-m.kick:
		}
		m.me.sleeping.Add(1) // a count: the rank's dozing threads announce themselves too
		for m.idle.Load() > 0 && !m.closed.Load() {
			v := m.me.wake.Load()
			if m.Progress() > 0 {
				continue
			}
			lowlevel.FutexWait(m.me.wake, v, m.cfg.liveness)
			if now := time.Now(); now.Sub(checked) >= m.cfg.liveness {
				checked = now
				m.checkPeers()
			}
		}
		m.me.sleeping.Add(^uint32(0)) // -1
		// A Busy and an Idle may both have come while we slept.
		if m.idle.Load() > 0 {
			select {
			case m.kick <- struct{}{}:
			default:
			}
		}
	}
}

func (m *Module) checkPeers() {
	for _, p := range m.peers {
		if p != nil && p.added.Load() {
			_ = m.checkPeer(p)
		}
	}
}
