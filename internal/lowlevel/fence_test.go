package lowlevel_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"
)

// The store-buffering litmus test, as a waker and a sleeper play it: the
// waker publishes with a release store and then looks for a sleeper; the
// sleeper counts itself with a locked add and then looks for the
// publication. On x86 a load may pass an earlier store, so without a
// fence both may miss the other's write; with the sleeper's RemoteFence
// between its add and its look, at least one sees the other's.
func TestRemoteFenceOrdersAReleaseStore(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("the two sides must run at once: one CPU")
	}
	if err := lowlevel.JoinRemoteFences(); err != nil {
		t.Skipf("membarrier refused here: %v", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const rounds = 20000
	// How often the test sees the reordering here: where it never does (a
	// loaded host runs the sides one after the other), the fenced rounds
	// cannot show it either. A fence that did nothing would miss as often.
	t.Logf("without the fence, %d of %d rounds had both sides miss", storeBuffering(rounds, nil), rounds)
	var fenceErr error
	missed := storeBuffering(rounds, func() {
		if err := lowlevel.RemoteFence(); err != nil {
			fenceErr = err
		}
	})
	if fenceErr != nil {
		t.Fatalf("RemoteFence after JoinRemoteFences: %v", fenceErr)
	}
	if missed > 0 {
		t.Errorf("with RemoteFence, %d of %d rounds had both sides miss the other's store", missed, rounds)
	}
}

// storeBuffering plays rounds of the litmus test, the sleeper calling
// fence (if not nil) between its add and its look, and returns how many
// ended with both loads missing the other side's store. The sides meet at
// a barrier before each round.
func storeBuffering(rounds int, fence func()) int {
	var (
		arrived    atomic.Int64 // two a round
		published  uint64
		sleepers   atomic.Uint32
		sawSleeper atomic.Bool // the waker's look, read after the next barrier
		wg         sync.WaitGroup
		spins      atomic.Int64
	)
	meet := func(r int64) {
		arrived.Add(1)
		for arrived.Load() < 2*r {
		}
	}
	missed := 0
	wg.Add(1)
	go func() { // the waker
		defer wg.Done()
		for r := int64(1); r <= int64(rounds); r++ {
			meet(2*r - 1)
			lowlevel.StoreRelease64(&published, uint64(r))
			sawSleeper.Store(sleepers.Load() >= uint32(r))
			meet(2 * r)
		}
	}()
	for r := int64(1); r <= int64(rounds); r++ { // the sleeper
		meet(2*r - 1)
		// The last side to arrive leaves the barrier a line transfer
		// before the other: delays of every length in turn make some
		// rounds' stores and loads meet.
		for range r % 128 {
			spins.Add(1)
		}
		sleepers.Add(1)
		if fence != nil {
			fence()
		}
		sawPublished := atomic.LoadUint64(&published) >= uint64(r)
		meet(2 * r)
		if !sawPublished && !sawSleeper.Load() {
			missed++
		}
	}
	wg.Wait()
	return missed
}
