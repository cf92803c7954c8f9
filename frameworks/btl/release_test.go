package btl_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// Goroutines that add to a plain counter under a SpinLock lose no
// addition; under the race detector, an Unlock that did not order the
// holder's writes before the next Lock would be reported too.
func TestSpinLockExcludes(t *testing.T) {
	const goroutines, adds = 8, 2000
	var (
		l      btl.SpinLock
		n      int
		inside atomic.Int32
		wg     sync.WaitGroup
	)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range adds {
				l.Lock()
				if inside.Add(1) != 1 {
					t.Error("two goroutines hold the lock")
				}
				n++
				inside.Add(-1)
				l.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != goroutines*adds {
		t.Fatalf("counter %d, want %d", n, goroutines*adds)
	}
}

// What a goroutine wrote before a release store is seen by one that loads
// the stored value.
func TestStoreReleasePublishes(t *testing.T) {
	for _, width := range []string{"32", "64"} {
		t.Run(width, func(t *testing.T) {
			var (
				data   [4]int
				flag32 uint32
				flag64 uint64
			)
			go func() {
				data = [4]int{1, 2, 3, 4}
				if width == "32" {
					btl.StoreRelease32(&flag32, 7)
				} else {
					btl.StoreRelease64(&flag64, 1<<40)
				}
			}()
			for atomic.LoadUint32(&flag32) != 7 && atomic.LoadUint64(&flag64) != 1<<40 {
				btl.Yield()
			}
			if data != [4]int{1, 2, 3, 4} {
				t.Fatalf("after the flag, data is %v", data)
			}
		})
	}
}
