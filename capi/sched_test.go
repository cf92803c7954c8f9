package main

import (
	"sync/atomic"
	"testing"
	"time"
)

// A call yields once when the epoch moves, and not again until it moves.
func TestReschedulerYieldsOncePerEpoch(t *testing.T) {
	var epoch uint32
	yields := 0
	r := rescheduler{epoch: &epoch, yield: func() { yields++ }}
	for _, step := range []struct {
		advance bool
		calls   int
		want    int
	}{{false, 3, 0}, {true, 1, 1}, {false, 5, 1}, {true, 2, 2}, {true, 1, 3}} {
		if step.advance {
			atomic.AddUint32(&epoch, 1)
		}
		for range step.calls {
			r.check()
		}
		if yields != step.want {
			t.Fatalf("epoch %d: %d yields, want %d", epoch, yields, step.want)
		}
	}
}

// The ticker thread moves the epoch that calls read.
func TestSchedTickerMoves(t *testing.T) {
	if err := startSched(); err != nil {
		t.Fatal(err)
	}
	defer stopSched()
	first := atomic.LoadUint32(sched.epoch)
	deadline := time.Now().Add(time.Minute)
	for atomic.LoadUint32(sched.epoch) == first {
		if time.Now().After(deadline) {
			t.Fatalf("the epoch stayed at %d for a minute (period %v)", first, schedPeriod)
		}
		time.Sleep(time.Millisecond)
	}
}
