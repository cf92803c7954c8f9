package main

import (
	"sync"
	"sync/atomic"
)

// firstHandle is the smallest handle the library gives out: the standard
// keeps 1..4095 for the predefined handles and 0 for none.
const firstHandle = 4096

const (
	chunkBits = 10
	chunkLen  = 1 << chunkBits
	maxChunks = 1 << 12 // 4M live handles of one kind
)

// table holds the Go objects behind one kind of handle: handle h is entry
// h-firstHandle. Looking one up takes no lock, since every MPI call does;
// giving one out or taking it back does.
type table[T any] struct {
	chunks [maxChunks]atomic.Pointer[[chunkLen]atomic.Pointer[T]]
	mu     sync.Mutex
	next   int   // entries ever used
	free   []int // entries given back, reused first
}

// get returns the object behind h, or nil.
func (t *table[T]) get(h uintptr) *T {
	i := int(h) - firstHandle
	if i < 0 || i >= maxChunks*chunkLen {
		return nil
	}
	c := t.chunks[i>>chunkBits].Load()
	if c == nil {
		return nil
	}
	return c[i&(chunkLen-1)].Load()
}

// put gives v a handle.
func (t *table[T]) put(v *T) (uintptr, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i int
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if t.next == maxChunks*chunkLen {
			return 0, errNoMem("handles", maxChunks*chunkLen)
		}
		i = t.next
		t.next++
		if t.chunks[i>>chunkBits].Load() == nil {
			t.chunks[i>>chunkBits].Store(new([chunkLen]atomic.Pointer[T]))
		}
	}
	t.chunks[i>>chunkBits].Load()[i&(chunkLen-1)].Store(v)
	return uintptr(i + firstHandle), nil
}

// drop takes h back; it reports whether h was live.
func (t *table[T]) drop(h uintptr) bool {
	i := int(h) - firstHandle
	if t.get(h) == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.chunks[i>>chunkBits].Load()[i&(chunkLen-1)].Swap(nil) == nil {
		return false
	}
	t.free = append(t.free, i)
	return true
}
