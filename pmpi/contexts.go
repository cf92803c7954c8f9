package pmpi

import (
	"math/bits"
	"sync"
)

// contexts are the context ids in use in this process. Each communicator
// takes two: its own, which is even, and, next to it, its collectives'.
// The even ids are bits of a bitmap, so that finding the lowest free one
// costs a word per 64 ids, and nothing for the words below low, which are
// full: a program holding thousands of communicators made each new one in
// time that grew with their number (a lookup per id in use).
type contexts struct {
	mu   sync.Mutex
	used []uint64 // bit b of word w: id 2*(64w+b) is taken
	low  int      // every word below it is full
	// retired are the ids of freed communicators that still had
	// receives posted: taken until they have none (sweep).
	retired []uint32
}

// retire keeps a freed communicator's id taken for now.
func (x *contexts) retire(id uint32) {
	x.mu.Lock()
	x.retired = append(x.retired, id)
	x.mu.Unlock()
}

// sweep releases the retired ids that busy no longer reports in use.
func (x *contexts) sweep(busy func(id uint32) bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	kept := x.retired[:0]
	for _, id := range x.retired {
		if busy(id) {
			kept = append(kept, id)
			continue
		}
		b := int(id / 2)
		x.used[b/64] &^= 1 << (b % 64)
		x.low = min(x.low, b/64)
	}
	x.retired = kept
}

// reserve takes the lowest free id at or above from.
func (x *contexts) reserve(from uint32) uint32 {
	x.mu.Lock()
	defer x.mu.Unlock()
	first := int(from / 2)
	w := max(first/64, x.low)
	for ; ; w++ {
		for w >= len(x.used) {
			x.used = append(x.used, 0)
		}
		free := ^x.used[w]
		if w == first/64 {
			free &= ^uint64(0) << (first % 64)
		}
		if free != 0 {
			b := w*64 + bits.TrailingZeros64(free)
			x.set(b)
			return uint32(2 * b)
		}
	}
}

// claim takes id if it is free.
func (x *contexts) claim(id uint32) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := int(id / 2)
	if x.taken(b) {
		return false
	}
	x.set(b)
	return true
}

func (x *contexts) release(id uint32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := int(id / 2)
	if b/64 < len(x.used) {
		x.used[b/64] &^= 1 << (b % 64)
		x.low = min(x.low, b/64)
	}
}

func (x *contexts) taken(b int) bool {
	return b/64 < len(x.used) && x.used[b/64]&(1<<(b%64)) != 0
}

// set marks bit b taken, growing the bitmap to hold it.
func (x *contexts) set(b int) {
	for b/64 >= len(x.used) {
		x.used = append(x.used, 0)
	}
	x.used[b/64] |= 1 << (b % 64)
	for x.low < len(x.used) && x.used[x.low] == ^uint64(0) {
		x.low++
	}
}

// reserveWindow takes every id free in words w to w+len(free)-1 of the
// bitmap and sets free to them, a bit each as in used.
func (x *contexts) reserveWindow(w int, free []uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for len(x.used) < w+len(free) {
		x.used = append(x.used, 0)
	}
	for i := range free {
		free[i] = ^x.used[w+i]
		x.used[w+i] = ^uint64(0)
	}
	for x.low < len(x.used) && x.used[x.low] == ^uint64(0) {
		x.low++
	}
}

// releaseWindow gives back what reserveWindow took into free, but for
// bit keep of the bitmap (-1 for none).
func (x *contexts) releaseWindow(w int, free []uint64, keep int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, f := range free {
		if k := keep - 64*(w+i); k >= 0 && k < 64 {
			f &^= 1 << k
		}
		x.used[w+i] &^= f
		if f != 0 {
			x.low = min(x.low, w+i)
		}
	}
}
