package pml

import (
	"runtime"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
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

	// What the call waits on, and its record once it has waited past the
	// busy stage (nil before: fast waits record nothing).
	one   *Request
	reqs  []*Request
	probe *PendingOp
	rec   *WaitRecord
}

// end unrecords the wait, if it was recorded.
func (w *waiter) end() {
	if w.rec != nil {
		w.e.unrecord(w.rec)
		w.rec = nil
	}
}

const (
	stageBusy = iota
	stageYield
	stageSleep
)

// checkEvery is how many idle polls pass between looks at the clock and
// between yields to the Go scheduler (which background transfers need).
const checkEvery = 64

// step makes one round of progress: a poll, then maybe a yield. The
// caller sleeps instead when sleepy says so.
func (w *waiter) step() {
	if w.e.progress() > 0 {
		w.reset()
		return
	}
	w.idle++
	if w.e.inFlight.Load() > 0 {
		runtime.Gosched() // with one P, a background transfer runs only when we yield
	}
	if w.idle%checkEvery == 0 {
		runtime.Gosched()
		w.advance()
	}
	if w.stage == stageYield || w.e.cfg.YieldAtOnce {
		btl.Yield()
	}
}

// sleepy reports whether polling has found nothing for long enough that
// the caller should sleep until woken.
func (w *waiter) sleepy() bool { return w.stage == stageSleep }

// reset starts a new idle spell: something happened.
func (w *waiter) reset() { w.idle, w.since, w.stage = 0, time.Time{}, stageBusy }

func (w *waiter) advance() {
	now := time.Now()
	if w.since.IsZero() {
		w.since = now
		return
	}
	switch idle := now.Sub(w.since); {
	case idle >= w.e.cfg.SleepAfter:
		w.stage = stageSleep
	case idle >= w.e.cfg.BusyPoll:
		w.stage = stageYield
	}
	if w.stage != stageBusy && w.rec == nil {
		reqs := w.reqs
		if w.one != nil {
			reqs = []*Request{w.one}
		}
		w.rec = w.e.record(w.since, reqs, w.probe)
	}
}
