package pmpi

import (
	"sync"
	"testing"
)

// started is a request as newRequest leaves it: active in an odd
// generation, its library set.
func started(l *library) (*Request, uint32) {
	r := l.cache.get()
	r.lib = l
	r.gen++
	return r, r.gen
}

// The cache hands back the request retired last, so that a window of
// calls reuses the lines of the one before.
func TestRequestCacheLastInFirstOut(t *testing.T) {
	l := &library{}
	a, ga := started(l)
	b, gb := started(l)
	if a == b {
		t.Fatal("get returned one request twice")
	}
	a.recycle(ga)
	b.recycle(gb)
	if r := l.cache.get(); r != b {
		t.Fatal("get did not return the request put back last")
	}
	if r := l.cache.get(); r != a {
		t.Fatal("get did not return the request put back first")
	}
}

// A request is retired once per generation: a second completion, as by two
// goroutines waiting on one request, finds it retired and puts nothing back.
func TestRetireOncePerGeneration(t *testing.T) {
	l := &library{}
	r, g := started(l)
	var wg sync.WaitGroup
	wins := make(chan *requestCache, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c := r.retire(g); c != nil {
				wins <- c
			}
		}()
	}
	wg.Wait()
	close(wins)
	if n := len(wins); n != 1 {
		t.Fatalf("%d completions retired the request, want 1", n)
	}
	if c := <-wins; c != &l.cache {
		t.Fatal("retire returned another library's cache")
	}
	if r.gen != g+1 || r.lib != nil {
		t.Fatalf("retired request: generation %d (want %d), library %p", r.gen, g+1, r.lib)
	}
}

// WaitAll's batch puts back every request it retired, across more than
// one batch and more than one library, each into its own cache, and skips
// one retired already.
func TestRetiredBatches(t *testing.T) {
	l1, l2 := &library{}, &library{}
	type active struct {
		r *Request
		g uint32
	}
	var reqs []active
	want := map[*library]int{}
	for i := range 150 {
		l := l1
		if i%50 == 49 {
			l = l2
		}
		r, g := started(l)
		reqs = append(reqs, active{r, g})
		want[l]++
	}
	reqs[10].r.recycle(reqs[10].g) // completed elsewhere first
	var done retired
	for _, a := range reqs {
		done.add(a.r, a.g)
	}
	done.flush()
	for _, l := range []*library{l1, l2} {
		if got := len(l.cache.free); got != want[l] {
			t.Errorf("cache holds %d requests, want %d", got, want[l])
		}
		seen := map[*Request]bool{}
		for _, r := range l.cache.free {
			if seen[r] {
				t.Fatal("a request is in the cache twice")
			}
			seen[r] = true
		}
	}
}

// The cache keeps at most maxCachedRequests: the rest go to the garbage
// collector.
func TestRequestCacheBounded(t *testing.T) {
	var c requestCache
	rs := make([]*Request, maxCachedRequests+10)
	for i := range rs {
		rs[i] = new(Request)
	}
	c.put(rs[:5]...)
	c.put(rs[5:]...)
	if len(c.free) != maxCachedRequests {
		t.Fatalf("cache holds %d requests, want %d", len(c.free), maxCachedRequests)
	}
	c.put(new(Request))
	if len(c.free) != maxCachedRequests {
		t.Fatalf("a full cache took one more: %d", len(c.free))
	}
}

// Goroutines getting and putting at once never get one request together.
func TestRequestCacheConcurrent(t *testing.T) {
	l := &library{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				r, g := started(l)
				r.peer = 1 // a second holder would race here
				r.recycle(g)
			}
		}()
	}
	wg.Wait()
	if n := len(l.cache.free); n == 0 || n > 8 {
		t.Fatalf("cache holds %d requests after 8 goroutines, want 1 to 8", n)
	}
}
