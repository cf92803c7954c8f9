package lowlevel

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
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
