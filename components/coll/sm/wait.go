package sm

import (
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/internal/lowlevel"
)

// Waiting: spin on the word, and every pollEvery loads let the engine
// progress (a peer may wait for this rank's point-to-point traffic) and
// learn of failed members; give the CPU away at once when the host is
// oversubscribed, after spinFor loads otherwise; once the wait has lasted
// sleepAfter, sleep until the rank waited for raises a word, napFor at
// most between polls. A rank asleep is one the scheduler runs as soon as
// it is woken, where one that spins or yields waits for its turn behind
// whatever else is running: under load, sleeping is what keeps a
// collective from costing scheduler slices.
const (
	pollEvery    = 64
	goschedEvery = pollEvery * 16
	spinFor      = 1 << 14
	sleepAfter   = time.Millisecond
	napFor       = time.Millisecond
	reportAfter  = 10 * time.Millisecond
)

// prefetchMax is the largest contribution whose lines past the first a
// reader prefetches while it waits for the epoch word: data written
// before the word then comes over while the word does, instead of after
// it. Two ranks with a CPU each, 4 alternating rounds, 64-256 B: bcast
// a third less time a call, reduce a quarter, allreduce, allgather and
// alltoall 3-14 %; with 1 KiB prefetched too (16 more lines at every
// look), allreduce of 1 KiB took 11 % more, the prefetches taking the
// lines away from the writer while it fills them.
const prefetchMax = 512

// aheadOf is what read prefetches of block b, which holds n bytes of a
// contribution of total: the lines after the epoch word's own, or nil.
func aheadOf(b []byte, total, n int) []byte {
	off := dataOff(total)
	if off+n <= line || n > prefetchMax {
		return nil
	}
	return b[line : off+n]
}

// await waits until rank r has raised a word to at least e. The word of
// parity e&1 is the one to watch: words only grow, and r's other word
// holds an epoch of the other parity.
func (m *module) await(r int, e uint64) error { return m.awaitLines(r, e, nil) }

// awaitLines is await that prefetches ahead at every look at the word.
func (m *module) awaitLines(r int, e uint64, ahead []byte) error {
	if m.seen[r] >= e {
		return nil
	}
	w := epochWord(m.seg.block(r, e&1))
	var start time.Time
	var blocked func()
	sleepy := false
	for i := 1; ; i++ {
		if v := w.Load(); v >= e {
			m.seen[r] = v
			if blocked != nil {
				blocked()
			}
			return nil
		}
		if ahead != nil {
			shm.Prefetch(ahead)
		}
		if i%pollEvery != 0 {
			continue
		}
		if err := m.poller.Poll(); err != nil {
			if blocked != nil {
				blocked()
			}
			return err
		}
		if i%(pollEvery*16) == 0 {
			m.tell()
			if err := m.mismatch(r, m.mine[e&1], func() bool { return w.Load() >= e }); err != nil {
				if blocked != nil {
					blocked()
				}
				return err
			}
		}
		// With one P (a rank bound to one CPU), the engine's background
		// transfers and the transports' goroutines run only when the
		// waiting goroutine yields, or when the runtime preempts it after
		// 10 ms. A spinning rank lets them every goschedEvery loads: this
		// loop loads one word, pollEvery loads take 0.1-0.3 us, and a
		// Gosched that often cost a 2-rank allreduce's fast calls a
		// quarter of their time.
		if m.yield || i%goschedEvery == 0 {
			lowlevel.Gosched()
		}
		switch {
		case sleepy:
			m.sleep(r, w, e)
			if blocked == nil && time.Since(start) > reportAfter {
				blocked = m.poller.Blocked(m.call, r)
			}
			continue
		case !m.yield && i < spinFor:
			continue
		case i%(pollEvery*16) == 0:
			if start.IsZero() {
				start = time.Now()
			} else {
				sleepy = time.Since(start) > sleepAfter
			}
		}
		lowlevel.Yield()
	}
}

// sleep sleeps until rank r raises a word, napFor at most, unless w
// already holds e.
func (m *module) sleep(r int, w *atomic.Uint64, e uint64) {
	sleepers, wake := m.seg.wakeLine(r)
	sleepers.Add(1)
	// Orders the load of the count after the store of a rank that raises
	// without a fence (module.fenced). Where membarrier is refused, so is
	// every rank's fenceless raise, as the kernel and its filter are the
	// same for all.
	_ = lowlevel.RemoteFence()
	v := wake.Load()
	if w.Load() < e {
		lowlevel.FutexWait(wake, v, napFor)
	}
	sleepers.Add(^uint32(0)) // minus one
}
