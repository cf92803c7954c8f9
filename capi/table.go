package main

import (
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/internal/lowlevel"
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
	h, err := t.putLocked(v)
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
func (t *table[T]) drop(h uintptr) bool {
	if t.get(h) == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	i := int(h) - firstHandle
	if t.chunks[i>>chunkBits].Load()[i&(chunkLen-1)].Swap(nil) == nil {
		return false
	}
	t.free = append(t.free, i)
	return true
}

// slotTable is table for a kind of handle made and taken back at every
// call (requests): each entry lives in a slot of the table's own, marked
// live while its handle is, so that giving a handle out and taking it
// back are one compare-and-swap each (a spin lock's) and plain stores.
// A table with a mutex and an atomic pointer an entry took three locked
// instructions each way, 48 ns a pair against 22 in one process.
type slotTable[T any] struct {
	chunks [maxChunks]atomic.Pointer[[chunkLen]tableSlot[T]]
	lock   lowlevel.SpinLock
	next   int   // entries ever used; guarded by lock
	free   []int // entries given back, reused first; guarded by lock
}

type tableSlot[T any] struct {
	live uint32 // 1 while the handle is given out: loaded atomically, stored with release
	v    T
}

// slot returns h's slot, live or not, or nil.
func (t *slotTable[T]) slot(h uintptr) *tableSlot[T] {
	i := int(h) - firstHandle
	if i < 0 || i >= maxChunks*chunkLen {
		return nil
	}
	c := t.chunks[i>>chunkBits].Load()
	if c == nil {
		return nil
	}
	return &c[i&(chunkLen-1)]
}

// get returns the entry behind h, or nil.
func (t *slotTable[T]) get(h uintptr) *T {
	s := t.slot(h)
	if s == nil || atomic.LoadUint32(&s.live) == 0 {
		return nil
	}
	return &s.v
}

// put gives a handle to a copy of v.
func (t *slotTable[T]) put(v T) (uintptr, error) {
	t.lock.Lock()
	defer t.lock.Unlock()
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
			t.chunks[i>>chunkBits].Store(new([chunkLen]tableSlot[T]))
		}
	}
	s := &t.chunks[i>>chunkBits].Load()[i&(chunkLen-1)]
	s.v = v
	lowlevel.StoreRelease32(&s.live, 1)
	return uintptr(i + firstHandle), nil
}

// recycle takes h back, its entry zeroed for the next put; it reports
// whether h was live. The caller reads nothing of the entry after.
func (t *slotTable[T]) recycle(h uintptr) bool {
	s := t.slot(h)
	if s == nil {
		return false
	}
	t.lock.Lock()
	ok := t.takeLocked(h, s)
	t.lock.Unlock()
	return ok
}

// recycleAll is recycle of every handle of hs, under one hold of the lock.
func (t *slotTable[T]) recycleAll(hs []uintptr) {
	t.lock.Lock()
	for _, h := range hs {
		if s := t.slot(h); s != nil {
			t.takeLocked(h, s)
		}
	}
	t.lock.Unlock()
}

func (t *slotTable[T]) takeLocked(h uintptr, s *tableSlot[T]) bool {
	if atomic.LoadUint32(&s.live) == 0 {
		return false
	}
	lowlevel.StoreRelease32(&s.live, 0)
	var zero T
	s.v = zero
	t.free = append(t.free, int(h)-firstHandle)
	return true
}
