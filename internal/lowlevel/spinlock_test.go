package lowlevel_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Goroutines that add to a plain counter under a SpinLock lose no
// addition, and never find another inside; under the race detector, an
// Unlock that did not order the holder's writes before the next Lock
// would be reported too.
func TestSpinLockExcludes(t *testing.T) {
	const goroutines, adds = 8, 2000
	var (
		l      lowlevel.SpinLock
		n      int
		inside atomic.Int32
		wg     sync.WaitGroup
	)
	for range goroutines {
		wg.Go(func() {
			for range adds {
				l.Lock()
				if inside.Add(1) != 1 {
					t.Error("two goroutines hold the lock")
				}
				n++
				inside.Add(-1)
				l.Unlock()
			}
		})
	}
	wg.Wait()
	if n != goroutines*adds {
		t.Fatalf("counter %d, want %d", n, goroutines*adds)
	}
}

// A goroutine that finds the lock taken waits until it is released.
func TestSpinLockWaitsForHolder(t *testing.T) {
	waitsForHolder(t, func() {})
}

// A waiter past its yields to the Go scheduler alone, which also yields
// to the kernel, still takes the lock once it is free and not before.
// With one P the holder runs only when the waiter yields the P to it: it
// keeps the lock through 200 of its own yields, each of which lets the
// waiter try once.
func TestSpinLockWaiterThatYieldsToTheKernel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	waitsForHolder(t, func() {
		for range 200 {
			runtime.Gosched()
		}
	})
}

// waitsForHolder has a goroutine take a lock that this one holds through
// hold, and fails if it took it before the release.
func waitsForHolder(t *testing.T, hold func()) {
	t.Helper()
	var l lowlevel.SpinLock
	l.Lock()
	var released atomic.Bool
	got := make(chan bool)
	go func() {
		l.Lock()
		got <- released.Load()
		l.Unlock()
	}()
	hold()
	released.Store(true)
	l.Unlock()
	if !<-got {
		t.Fatal("Lock returned while another goroutine held the lock")
	}
}
