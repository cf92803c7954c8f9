package lowlevel_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"
)

// What a goroutine wrote before a release store is seen by one that loads
// the stored value with sync/atomic. Under the race detector a store it
// cannot see (an assembly MOV) would leave data's accesses unordered, and
// the detector would fail the test.
func TestStoreReleasePublishes(t *testing.T) {
	var (
		w64  uint64
		w32  uint32
		a64  atomic.Uint64
		flag atomic.Bool
	)
	flag.Store(true)
	for _, c := range []struct {
		name  string
		store func()
		seen  func() bool
	}{
		{"64", func() { lowlevel.StoreRelease64(&w64, 1<<40) }, func() bool { return atomic.LoadUint64(&w64) == 1<<40 }},
		{"32", func() { lowlevel.StoreRelease32(&w32, 7) }, func() bool { return atomic.LoadUint32(&w32) == 7 }},
		{"Uint64", func() { lowlevel.StoreReleaseUint64(&a64, 1<<40) }, func() bool { return a64.Load() == 1<<40 }},
		{"UnlockFlag", func() { lowlevel.UnlockFlag(&flag) }, func() bool { return !flag.Load() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var data [4]int
			go func() {
				data = [4]int{1, 2, 3, 4}
				c.store()
			}()
			for !c.seen() {
				runtime.Gosched()
			}
			if data != [4]int{1, 2, 3, 4} {
				t.Fatalf("after the release store, data is %v", data)
			}
		})
	}
}

// UnlockFlag leaves a flag that CompareAndSwap(false, true) takes again:
// it stores what atomic.Bool holds for false.
func TestUnlockFlagReleases(t *testing.T) {
	var f atomic.Bool
	for i := range 3 {
		if !f.CompareAndSwap(false, true) {
			t.Fatalf("round %d: the flag is still taken after UnlockFlag", i)
		}
		if f.CompareAndSwap(false, true) {
			t.Fatalf("round %d: the flag was taken twice", i)
		}
		lowlevel.UnlockFlag(&f)
	}
}

// The release stores write the whole word, and only it.
func TestStoreReleaseWritesTheWord(t *testing.T) {
	words := [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)}
	lowlevel.StoreRelease64(&words[1], 0x0123456789abcdef)
	if words != [3]uint64{^uint64(0), 0x0123456789abcdef, ^uint64(0)} {
		t.Errorf("64-bit store: words %#x", words)
	}
	halves := [3]uint32{^uint32(0), ^uint32(0), ^uint32(0)}
	lowlevel.StoreRelease32(&halves[1], 0x89abcdef)
	if halves != [3]uint32{^uint32(0), 0x89abcdef, ^uint32(0)} {
		t.Errorf("32-bit store: words %#x", halves)
	}
	var a atomic.Uint64
	lowlevel.StoreReleaseUint64(&a, 0xfedcba9876543210)
	if got := a.Load(); got != 0xfedcba9876543210 {
		t.Errorf("atomic.Uint64 store: %#x", got)
	}
}
