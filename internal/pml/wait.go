package pml

import (
	"time"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Config tunes how a waiting rank drives progress.
type Config struct {
	// BusyPoll is how long a rank that finds nothing keeps polling the
	// transports without yielding the CPU.
	BusyPoll time.Duration
	// SleepAfter is how long it polls, yielding between polls, before it
	// sleeps until woken; the transports then progress on their own.
	SleepAfter time.Duration
	// YieldAtOnce skips the busy stage: for when this host's ranks
	// outnumber its CPUs and a spinning rank would hold up the others.
	YieldAtOnce bool
	// DozeAfter, with YieldAtOnce, is how long a rank polls, yielding
	// between polls, before it dozes between them instead: its thread
	// sleeps until a peer writes to it (btl.Dozer), at most dozeLimit at a
	// time. Zero never dozes.
	DozeAfter time.Duration
	// ForeignPC, when set, returns on the waiting thread the return
	// address of a caller in another language (the C library's), for the
	// state report: Go's stack ends where C called in.
	ForeignPC func() uintptr
}

// DefaultConfig suits a rank with a CPU of its own.
func DefaultConfig() Config {
	return Config{BusyPoll: 200 * time.Microsecond, SleepAfter: 20 * time.Millisecond}
}

// waiter drives progress for one waiting call. Polling in the waiting
// goroutine is what makes a message cheap: being woken from sleep costs a
// thread wake-up, tens of microseconds on a virtual machine. It polls,
// then yields between polls, then sleeps.
type waiter struct {
	e     *Engine
	idle  int       // polls in a row that found nothing
	since time.Time // when this idle spell began; zero until measured
	stage int

	// What the call waits on, and its record once it has waited
	// recordAfter (nil before: short waits record nothing).
	one   *Request
	reqs  []*Request
	probe PendingOp // a probe's, Kind empty for others: by value, as a probe allocated it at every call
	// deaths is how many peers had failed when a probe of any source
	// began: one more fails it (diedSince).
	deaths int
	rec    *WaitRecord

	polling bool // counted among the engine's pollers (poll)
}

// end unrecords the wait, if it was recorded, and counts the waiter out
// of the pollers.
func (w *waiter) end() {
	w.unpoll()
	if w.rec != nil {
		w.e.unrecord(w.rec)
		w.rec = nil
	}
}

const (
	stageBusy = iota
	stageYield
	stageDoze
	stageSleep
)

// dozeLimit bounds one doze. A doze holds the rank's Go processor, so
// the rank's other goroutines wait for its end (a garbage collection's
// stop too); the waiter lets them run between dozes.
const dozeLimit = 2 * time.Millisecond

// othersRan is how long a Gosched takes when it ran other goroutines of
// the rank for long enough that the waiter yields instead of dozing: an
// empty one takes well under a microsecond.
const othersRan = 100 * time.Microsecond

// recordAfter is how long a wait lasts before it is recorded for the
// state report, which is about hangs. Recording costs a stack walk and an
// allocation: the senders of an oversubscribed incast, which recorded
// every wait past the busy stage, spent 3-10 % of their CPU on it.
const recordAfter = 10 * time.Millisecond

// checkEvery is how many idle polls pass between looks at the clock and
// between yields to the Go scheduler (which background transfers need).
const checkEvery = 64

// poll is progress for a waiter. It counts itself among the pollers from
// its first poll until it sleeps, ends or finds work queued for them, not
// around every poll: the two locked instructions made an empty poll cost
// 12.5 ns instead of 2.6 (BenchmarkEmptyPoll), and a message waits for
// the poll that finds it to end. Whoever queues work for the pollers sets
// queued before it counts them, and a waiter looks at queued after every
// poll and after it counts itself out, so the work runs either here or,
// when no poller counts, in the background. Deferred work held apart
// (lone) runs at the next poll that sees it.
func (w *waiter) poll() int {
	e := w.e
	if !e.started.Load() {
		return 0
	}
	if !w.polling {
		e.pollers.Add(1)
		w.polling = true
	}
	n := e.routes.Progress()
	if e.stalled.Load() != 0 || e.queued.Load() || e.lone.Load() != nil {
		w.polling = false
		e.pollers.Add(-1)
		n += e.afterPoll()
	}
	return n
}

// unpoll counts w out of the pollers before it sleeps or ends, and runs
// what was queued for them meanwhile.
func (w *waiter) unpoll() {
	if w.polling {
		w.polling = false
		w.e.pollers.Add(-1)
		w.e.afterPoll()
	}
}

// step makes one round of progress: a poll, then maybe a yield. The
// caller sleeps instead when sleepy says so.
func (w *waiter) step() {
	if w.poll() > 0 {
		w.reset()
		return
	}
	w.idle++
	if w.e.inFlight.Load() > 0 {
		lowlevel.Gosched() // with one P, a background transfer runs only when we yield
	}
	if w.idle%checkEvery == 0 {
		lowlevel.Gosched()
		w.advance()
	} else if w.e.cfg.YieldAtOnce {
		w.advance() // each poll yields: a look at the clock costs little beside it
	}
	if w.stage == stageDoze && w.e.inFlight.Load() == 0 {
		// What else of the rank can run does first; if that took a
		// while, it may want the processor again, which a doze would hold.
		t := time.Now()
		lowlevel.Gosched()
		if time.Since(t) < othersRan {
			w.unpoll()
			w.e.doze(w)
			return
		}
	}
	if w.stage != stageBusy || w.e.cfg.YieldAtOnce {
		lowlevel.Yield()
	}
}

// ready reports whether what the call waits on has happened.
func (w *waiter) ready() bool {
	switch {
	case w.one != nil:
		return w.one.Done()
	case w.probe.Kind != "":
		var st Status
		ok, err := w.e.Iprobe(w.probe.Context, w.probe.Peer, w.probe.Tag, &st)
		if !ok && err == nil {
			_, err = w.e.diedSince(w.probe.Peer, w.deaths)
		}
		return ok || err != nil
	default:
		i, active := TestAny(w.reqs)
		return i >= 0 || !active
	}
}

// sleepy reports whether polling has found nothing for long enough that
// the caller should sleep until woken.
// A rank with stalled sends polls on: they go only from its polls.
func (w *waiter) sleepy() bool { return w.stage == stageSleep && w.e.stalled.Load() == 0 }

// reset starts a new idle spell: something happened.
func (w *waiter) reset() { w.idle, w.since, w.stage = 0, time.Time{}, stageBusy }

func (w *waiter) advance() {
	now := time.Now()
	if w.since.IsZero() {
		w.since = now
		return
	}
	cfg := &w.e.cfg
	idle := now.Sub(w.since)
	switch {
	case idle >= cfg.SleepAfter:
		w.stage = stageSleep
	case cfg.YieldAtOnce && cfg.DozeAfter > 0 && idle >= cfg.DozeAfter && w.e.dozer != nil:
		w.stage = stageDoze
	case idle >= cfg.BusyPoll:
		w.stage = stageYield
	}
	if w.rec == nil && (idle >= recordAfter || w.stage == stageSleep) {
		reqs := w.reqs
		if w.one != nil {
			reqs = []*Request{w.one}
		}
		var probe *PendingOp
		if w.probe.Kind != "" {
			p := w.probe
			probe = &p
		}
		w.rec = w.e.record(w.since, reqs, probe)
	}
}
