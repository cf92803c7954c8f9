package lowlevel_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Each trick beside what it replaces. Compare the pairs within one run:
// they measure one machine at one time.

func BenchmarkTicks(b *testing.B) {
	b.Run("Ticks", func(b *testing.B) {
		for b.Loop() {
			lowlevel.Ticks()
		}
	})
	b.Run("time.Now", func(b *testing.B) {
		for b.Loop() {
			time.Now()
		}
	})
}

func BenchmarkCallers(b *testing.B) {
	var pcs [6]uintptr
	b.Run("Callers", func(b *testing.B) {
		for b.Loop() {
			callersFrom(pcs[:])
		}
	})
	b.Run("runtime.Callers", func(b *testing.B) {
		for b.Loop() {
			runtimeCallersFrom(pcs[:])
		}
	})
}

//go:noinline
func callersFrom(pcs []uintptr) int { return lowlevel.Callers(pcs) }

//go:noinline
func runtimeCallersFrom(pcs []uintptr) int { return runtime.Callers(2, pcs) }

func BenchmarkGoroutine(b *testing.B) {
	b.Run("GoroutineKey", func(b *testing.B) {
		for b.Loop() {
			lowlevel.GoroutineKey()
		}
	})
	b.Run("GoroutineID", func(b *testing.B) {
		for b.Loop() {
			lowlevel.GoroutineID()
		}
	})
}

// An uncontended lock and unlock: the locked instructions, not the wait.
func BenchmarkLock(b *testing.B) {
	b.Run("SpinLock", func(b *testing.B) {
		var (
			l lowlevel.SpinLock
			n int
		)
		for b.Loop() {
			l.Lock()
			n++
			l.Unlock()
		}
	})
	b.Run("sync.Mutex", func(b *testing.B) {
		var (
			l sync.Mutex
			n int
		)
		for b.Loop() {
			l.Lock()
			n++
			l.Unlock()
		}
	})
}

// A store after a write to another line: the sequentially consistent
// store waits for that write to reach the cache, the release store not.
func BenchmarkStore(b *testing.B) {
	var lines [2][8]uint64
	b.Run("StoreRelease64", func(b *testing.B) {
		for i := range uint64(b.N) {
			lines[1][0] = i
			lowlevel.StoreRelease64(&lines[0][0], i)
		}
	})
	b.Run("atomic.StoreUint64", func(b *testing.B) {
		for i := range uint64(b.N) {
			lines[1][0] = i
			atomic.StoreUint64(&lines[0][0], i)
		}
	})
}
