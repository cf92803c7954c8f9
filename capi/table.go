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
	spare  []*T  // objects recycle kept, zeroed, for putValue
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
	h, err := t.putLocked(v)
	t.mu.Unlock()
	return h, err
}

// putValue gives a handle to a copy of v, in an object that recycle kept
// or a new one: a kind of handle made and taken back at every call (a
// request) then allocates nothing, under the one lock put takes anyway.
func (t *table[T]) putValue(v T) (uintptr, error) {
	t.mu.Lock()
	var p *T
	if n := len(t.spare); n > 0 {
		p, t.spare = t.spare[n-1], t.spare[:n-1]
	} else {
		p = new(T)
	}
	*p = v
	h, err := t.putLocked(p)
	if err != nil {
		var zero T
		*p = zero
		t.spare = append(t.spare, p)
	}
	t.mu.Unlock()
	return h, err
}

func (t *table[T]) putLocked(v *T) (uintptr, error) {
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
func (t *table[T]) drop(h uintptr) bool { return t.take(h, false) }

// recycle is drop that keeps h's object, zeroed, for putValue: the caller
// reads nothing of it after.
func (t *table[T]) recycle(h uintptr) bool { return t.take(h, true) }

func (t *table[T]) take(h uintptr, keep bool) bool {
	if t.get(h) == nil {
		return false
	}
	t.mu.Lock()
	ok := t.takeLocked(h, keep)
	t.mu.Unlock()
	return ok
}

// recycleAll is recycle of every handle of hs, under one lock: a
// completion of many requests takes each back for one pair of locked
// instructions, not one pair each.
func (t *table[T]) recycleAll(hs []uintptr) {
	t.mu.Lock()
	for _, h := range hs {
		if t.get(h) != nil {
			t.takeLocked(h, true)
		}
	}
	t.mu.Unlock()
}

func (t *table[T]) takeLocked(h uintptr, keep bool) bool {
	i := int(h) - firstHandle
	old := t.chunks[i>>chunkBits].Load()[i&(chunkLen-1)].Swap(nil)
	if old == nil {
		return false
	}
	t.free = append(t.free, i)
	if keep {
		var zero T
		*old = zero
		t.spare = append(t.spare, old)
	}
	return true
}
