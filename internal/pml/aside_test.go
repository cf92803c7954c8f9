package pml

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// pollCounter is Routes with nothing to deliver that counts the polls.
type pollCounter struct {
	btltest.Discard
	polls atomic.Int64
}

func (p *pollCounter) Progress() int {
	p.polls.Add(1)
	return 0
}

// With one P, a goroutine counted aside (a non-blocking collective's, a
// communicator's agreement) advances only when the waiter yields: the
// waiter yields to it at every poll, in each stage, so that a Wait for
// what it completes after many rounds of its own takes about a poll a
// round, not the 64 between the yields of a waiter alone.
func TestWaiterYieldsToWorkAsideAtEveryPoll(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, cfg := range []Config{
		{BusyPoll: time.Hour, SleepAfter: time.Hour},
		{YieldAtOnce: true, SleepAfter: time.Hour},
	} {
		routes := &pollCounter{}
		e := New(0, hclog.NewNullLogger(), cfg)
		e.Start(routes)
		var g Request
		r := e.StartGeneral(&g)
		const rounds = 200
		e.AsideStarted()
		go func() {
			for range rounds {
				runtime.Gosched()
			}
			e.CompleteGeneral(r, Status{})
			e.AsideEnded()
		}()
		e.Wait(r)
		if n := routes.polls.Load(); n > 4*rounds {
			t.Errorf("yield at once %v: the wait polled %d times for work aside of %d rounds; want at most %d", cfg.YieldAtOnce, n, rounds, 4*rounds)
		}
	}
}
