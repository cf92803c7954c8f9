package main

import (
	"os"
	"strings"
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

// A ticker stopped and started again before its next tick ends at that
// tick rather than ticking beside the new one, and a stop ends the last.
func TestSchedTickerRestarts(t *testing.T) {
	for range 2 {
		if err := startSched(); err != nil {
			t.Fatal(err)
		}
		stopSched()
	}
	if err := startSched(); err != nil {
		t.Fatal(err)
	}
	defer stopSched()
	// Three moves of the epoch: each ticker stopped may make one more, so
	// the last has begun and named itself.
	deadline := time.Now().Add(time.Minute)
	for first := atomic.LoadUint32(sched.epoch); atomic.LoadUint32(sched.epoch)-first < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("the epoch moved less than three times in a minute")
		}
		time.Sleep(time.Millisecond)
	}
	waitTickers(t, 1)
	stopSched()
	waitTickers(t, 0)
}

// waitTickers waits, up to a minute, for the process to have n ticker
// threads.
func waitTickers(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := tickerThreads(t)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d ticker threads for a minute, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// tickerThreads counts the process's threads named as the ticker names
// itself.
func tickerThreads(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		// A thread can end between the listing and the read.
		if comm, err := os.ReadFile("/proc/self/task/" + task.Name() + "/comm"); err == nil && strings.TrimSpace(string(comm)) == "gompi-sched" {
			n++
		}
	}
	return n
}
