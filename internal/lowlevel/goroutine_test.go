package lowlevel_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Goroutines alive at once have distinct, non-zero keys and ids.
func TestGoroutineKeysDistinct(t *testing.T) {
	const goroutines = 16
	type ident struct {
		key uintptr
		id  uint64
	}
	var (
		all  = make(chan ident, goroutines)
		wg   sync.WaitGroup
		live sync.WaitGroup // each goroutine stays until all have taken theirs
	)
	live.Add(goroutines)
	for range goroutines {
		wg.Go(func() {
			all <- ident{lowlevel.GoroutineKey(), lowlevel.GoroutineID()}
			live.Done()
			live.Wait()
		})
	}
	wg.Wait()
	close(all)
	keys, ids := map[uintptr]bool{}, map[uint64]bool{}
	for g := range all {
		if g.key == 0 || g.id == 0 {
			t.Errorf("key %#x, id %d: want non-zero", g.key, g.id)
		}
		keys[g.key], ids[g.id] = true, true
	}
	if len(keys) != goroutines || len(ids) != goroutines {
		t.Fatalf("%d goroutines alive at once have %d keys and %d ids", goroutines, len(keys), len(ids))
	}
}

// A goroutine keeps its key and id through what moves it: a grown (so
// copied) stack, a collection, yields, and blocking, after which it may
// run on another thread.
func TestGoroutineKeyStable(t *testing.T) {
	key, id := lowlevel.GoroutineKey(), lowlevel.GoroutineID()
	check := func(after string) {
		t.Helper()
		if k, i := lowlevel.GoroutineKey(), lowlevel.GoroutineID(); k != key || i != id {
			t.Fatalf("after %s: key %#x id %d, was %#x and %d", after, k, i, key, id)
		}
	}
	grow(1000, check)
	check("the stack grew")
	runtime.GC()
	check("a collection")
	for range 10 {
		runtime.Gosched()
	}
	check("yields")
	for range 10 {
		ch := make(chan struct{})
		go func() { ch <- struct{}{} }()
		<-ch
	}
	check("blocking")
}

// grow recurses n deep with a frame large enough to make the runtime
// copy the stack, and checks the key at the bottom.
//
//go:noinline
func grow(n int, check func(string)) byte {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		check("the stack grew, at its deepest")
		return pad[0]
	}
	return grow(n-1, check) + pad[n%256]
}

// GoroutineID is the number the runtime prints for the goroutine.
func TestGoroutineIDMatchesStack(t *testing.T) {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	want := string(buf[len("goroutine "):])
	for i, c := range want {
		if c < '0' || c > '9' {
			want = want[:i]
			break
		}
	}
	var id uint64
	for _, c := range want {
		id = id*10 + uint64(c-'0')
	}
	if got := lowlevel.GoroutineID(); got != id || id == 0 {
		t.Fatalf("GoroutineID %d, stack trace says %q", got, want)
	}
}
