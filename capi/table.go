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
	chunks  [maxChunks]atomic.Pointer[[chunkLen]atomic.Pointer[T]]
	mu      sync.Mutex
	entries // guarded by mu
}

// entries hands out a table's entry numbers, those given back first; the
// table's lock guards it.
type entries struct {
	next int   // entries ever used
	free []int // entries given back, reused first
}

func (e *entries) take() (int, error) {
	if n := len(e.free); n > 0 {
		i := e.free[n-1]
		e.free = e.free[:n-1]
		return i, nil
	}
	if e.next == maxChunks*chunkLen {
		return 0, errNoMem("handles", maxChunks*chunkLen)
	}
	e.next++
	return e.next - 1, nil
}

func (e *entries) give(i int) { e.free = append(e.free, i) }

// chunkFor returns the chunk that holds entry i, made if need be; the
// table's lock is held.
func chunkFor[C any](chunks *[maxChunks]atomic.Pointer[C], i int) *C {
	c := chunks[i>>chunkBits].Load()
	if c == nil {
		c = new(C)
		chunks[i>>chunkBits].Store(c)
	}
	return c
}

// chunkOf returns the chunk that holds handle h's entry and the entry's
// place in it, or nil if h is no handle of the table.
func chunkOf[C any](chunks *[maxChunks]atomic.Pointer[C], h uintptr) (*C, int) {
	i := int(h) - firstHandle
	if i < 0 || i >= maxChunks*chunkLen {
		return nil, 0
	}
	return chunks[i>>chunkBits].Load(), i & (chunkLen - 1)
}

// get returns the object behind h, or nil.
func (t *table[T]) get(h uintptr) *T {
	c, j := chunkOf(&t.chunks, h)
	if c == nil {
		return nil
	}
	return c[j].Load()
}

// put gives v a handle.
func (t *table[T]) put(v *T) (uintptr, error) {
	t.mu.Lock()
	h, err := t.putLocked(v)
	t.mu.Unlock()
	return h, err
}

func (t *table[T]) putLocked(v *T) (uintptr, error) {
	i, err := t.take()
	if err != nil {
		return 0, err
	}
	chunkFor(&t.chunks, i)[i&(chunkLen-1)].Store(v)
	return uintptr(i + firstHandle), nil
}

// drop takes h back; it reports whether h was live.
func (t *table[T]) drop(h uintptr) bool {
	if t.get(h) == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c, j := chunkOf(&t.chunks, h)
	if c[j].Swap(nil) == nil {
		return false
	}
	t.give(int(h) - firstHandle)
	return true
}

// slotTable is table for a kind of handle made and taken back at every
// call (requests): each entry lives in a slot of the table's own, marked
// live while its handle is, so that giving a handle out and taking it
// back are one compare-and-swap each (a spin lock's) and plain stores.
// A table with a mutex and an atomic pointer an entry took three locked
// instructions each way, 48 ns a pair against 22 in one process.
type slotTable[T any] struct {
	chunks  [maxChunks]atomic.Pointer[[chunkLen]tableSlot[T]]
	lock    lowlevel.SpinLock
	entries // guarded by lock
}

type tableSlot[T any] struct {
	live uint32 // 1 while the handle is given out: loaded atomically, stored with release
	v    T
}

// slot returns h's slot, live or not, or nil.
func (t *slotTable[T]) slot(h uintptr) *tableSlot[T] {
	c, j := chunkOf(&t.chunks, h)
	if c == nil {
		return nil
	}
	return &c[j]
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
	i, err := t.take()
	if err != nil {
		return 0, err
	}
	s := &chunkFor(&t.chunks, i)[i&(chunkLen-1)]
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
	t.give(int(h) - firstHandle)
	return true
}
