package lowlevel

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Gosched on a locked caller relies on the runtime's count of runnable
// goroutines: it must exist, and count a goroutine that waits for the
// only processor.
func TestOthersRunnableSeesAWaitingGoroutine(t *testing.T) {
	s := []metrics.Sample{{Name: runnable}}
	metrics.Read(s)
	if k := s[0].Value.Kind(); k != metrics.KindUint64 {
		t.Fatalf("metric %s: kind %v, want uint64: Gosched would yield always", runnable, k)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var (
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		for !stop.Load() {
			runtime.Gosched() // running or runnable, never waiting
		}
	})
	defer wg.Wait()
	defer stop.Store(true)
	// With one processor, held by this goroutine, the other is runnable.
	for range 100 {
		if !othersRunnable() {
			t.Fatal("othersRunnable: false while another goroutine waits for the only processor")
		}
		runtime.Gosched()
	}
}

// With two processors Gosched yields only to runnable goroutines: the
// others, and the timers they sleep on, must run on the idle processor
// while this goroutine polls through Gosched without yielding.
func TestGoschedLeavesOthersToIdleProcessors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const rounds = 200
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
	}()
	var done atomic.Bool
	go func() {
		defer done.Store(true)
		defer close(ping)
		for i := range rounds {
			time.Sleep(10 * time.Microsecond) // a timer, run by the idle processor's thread
			ping <- i
			if v := <-pong; v != i+1 {
				t.Errorf("round %d: %d back", i, v)
				return
			}
		}
	}()
	for !done.Load() {
		Gosched()
	}
}
