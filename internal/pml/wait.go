package pml

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
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
}

const (
	stageBusy = iota
	stageYield
	stageSleep
)

// checkEvery is how many idle polls pass between looks at the clock and
// between yields to the Go scheduler (which background transfers need).
const checkEvery = 64

// step makes one round of progress; wake is closed when the awaited
// condition may have changed.
func (w *waiter) step(wake <-chan struct{}) {
	if w.e.progress() > 0 {
		w.idle, w.since, w.stage = 0, time.Time{}, stageBusy
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
	switch {
	case w.stage == stageSleep:
		<-wake
		w.idle, w.since, w.stage = 0, time.Time{}, stageBusy
	case w.stage == stageYield || w.e.cfg.YieldAtOnce:
		osYield()
	}
}

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
}

// osYield gives the CPU to another process: Go's scheduler only knows this one's goroutines.
func osYield() { _, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
