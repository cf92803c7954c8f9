// Package shm holds what the shared-memory components of several
// frameworks share (btl sm, coll sm): prefetches, the copy into memory
// that another process reads (Writer), and a copy that stays in the
// caches (CopyCached). It is a library, not a component, as Open
// MPI's common components are.
package shm

import (
	"sync/atomic"
	"time"
)

// Prefetch asks the processor to bring b's lines into its cache, without
// waiting for them.
func Prefetch(b []byte) {
	if len(b) > 0 {
		prefetchLines(&b[0], len(b))
	}
}

// PrefetchW prefetches b's lines to write them: each is taken away from
// the caches that hold it, without waiting.
func PrefetchW(b []byte) {
	if len(b) > 0 {
		prefetchwLines(&b[0], len(b))
	}
}

// WriterMin is the smallest copy that a Writer may make with a string
// copy (REP MOVSB) instead of Go's copy. Go's copy writes a line 32 bytes
// at a time, and each line that another process read since this one last
// wrote it comes back from that process's cache before the store
// completes; a string copy writes whole lines without fetching them. Which
// wins depends on how far apart the two processors are, and on this
// project's virtual machines that changes from one minute to the next:
// when a line takes 0.3-0.4 us to cross, the string copy wins from 4 KiB
// (btl sm's round trip of 4 KiB 2.9 -> 2.3 us, 8 KiB 3.9 -> 3.0, 16 KiB
// 5.0 -> 3.9; at 2 KiB it loses 10 %); when a line takes 0.1 us it loses
// (4 KiB 0.8-0.95 -> 1.1 us, 8 KiB 1.3 -> 1.5). It is 3 KiB, not 4: btl sm
// copies a message's first bytes with its header, so a 4 KiB message
// reached the Writer as 4064 bytes and went by Go's copy (one way 1.5-1.65
// us against 1.25 with the Writer, slow state; no change in the fast one).
const WriterMin = 3 << 10

// A Writer times its copies of a size class in pairs, the way it takes
// and then the other, back to back so that both meet the same state:
// probeEvery copies after the first pair, and twice as many after each
// pair whose verdict held, up to maxProbeEvery; a verdict that changes
// brings the pairs back to every probeEvery-th copy. The other way can
// cost much more: a 2-rank Ialltoall of 256 KiB, whose rounds make two
// copies a call, took 40 us at every 16th call instead of 23 when every
// 16th copy went one way or the other.
const (
	probeEvery    = 16
	maxProbeEvery = 512
)

// largeCopy is where a Writer's large copies begin: they are timed apart
// from smaller ones, and the string copy keeps them unless Go's copy took
// at most two thirds of its time. The writer's clock does not see all of
// the string copy's gain: a 4-rank NeighborAlltoall of 64 KiB-1 MiB over
// page-aligned Go slices took 1.4-1.7 times as long when every copy was
// Go's, and the clocks of the two ways, level there, made the choice flip
// at every probe (700-970 times a run; 40-90 with slices 16 bytes off a
// page, where the string copy's own clock wins). With the margin such a
// call of 128 KiB-1 MiB took 0.70-0.87 of the time.
const largeCopy = 16 << 10

// A Writer copies into memory that another process reads, choosing the
// faster copy by timing both from time to time, apart for copies below
// largeCopy and from it. The zero Writer is ready; it is not safe for
// concurrent use.
type Writer struct {
	class [2]ways // copies of WriterMin up to largeCopy, and from largeCopy

	fence atomic.Uint32 // a locked instruction: waits for the timed copy's stores

	stage []byte // a payload packed for the string copy (CopyPacked), made at its first
}

// ways is what a Writer has timed of one class of copies.
type ways struct {
	n     uint64   // copies of the class
	cost  [2]int64 // the last timed copy's picoseconds a byte: Go's copy (with PrefetchW), the string copy
	far   bool     // the string copy is the one to take
	due   uint64   // the copy that begins the next timed pair; 0 for the first (pair)
	every uint64   // copies from one timed pair to the next
}

// way is the way that c's untimed copies take.
func (c *ways) way() int {
	if c.far {
		return 1
	}
	return 0
}

// Copy copies src into dst, which must be at least as long. Below
// WriterMin it is Go's copy. The stores of a string copy are fenced: a
// plain store after Copy is not seen before them.
func (w *Writer) Copy(dst, src []byte) {
	if len(src) < WriterMin {
		copy(dst, src)
		return
	}
	c, way, t0 := w.next(len(src))
	if way == 1 {
		copyString(&dst[0], &src[0], len(src))
	} else {
		PrefetchW(dst[:len(src)])
		copy(dst, src)
	}
	if !t0.IsZero() {
		w.timed(c, way, t0, len(src))
	}
}

// A Packer writes a payload that does not lie in one slice, its bytes
// [off, off+len(dst)) into dst (btl.Source).
type Packer interface {
	Pack(dst []byte, off int)
}

// CopyPacked is Copy of what src packs, its bytes [off, off+len(dst)):
// src packs into dst itself for Go's copy, its lines prefetched first,
// or into the Writer's stage, stageSize bytes at a time, for the string
// copy.
func (w *Writer) CopyPacked(dst []byte, src Packer, off int) {
	n := len(dst)
	if n < WriterMin {
		src.Pack(dst, off)
		return
	}
	c, way, t0 := w.next(n)
	if way == 1 {
		if w.stage == nil {
			w.stage = make([]byte, stageSize)
		}
		for at := 0; at < n; at += stageSize {
			part := w.stage[:min(stageSize, n-at)]
			src.Pack(part, off+at)
			copyString(&dst[at], &part[0], len(part))
		}
	} else {
		PrefetchW(dst)
		src.Pack(dst, off)
	}
	if !t0.IsZero() {
		w.timed(c, way, t0, n)
	}
}

// stageSize is the most bytes a Writer packs for one string copy. Rows
// of 4 KiB, copied a row at a time by string copies, took 1.10-1.20
// times as long as packed 16 KiB at a time (32 KiB level; 4 KiB at a
// time 1.1-1.3 times as long as a string copy a row).
const stageSize = 16 << 10

// next counts a copy of n bytes, WriterMin or more, in its class and
// picks its way: 0 for Go's copy (with PrefetchW), 1 for the string copy.
// A copy of a timed pair is timed from t0, which is zero for the others.
// (Timing only Go's copy against a fixed rate misjudged: its prefetches
// made it look fast where the string copy was faster.)
func (w *Writer) next(n int) (c *ways, way int, t0 time.Time) {
	c = &w.class[0]
	if n >= largeCopy {
		c = &w.class[1]
	}
	c.n++
	switch c.n {
	case c.pair():
		return c, c.way(), time.Now()
	case c.pair() + 1:
		return c, 1 - c.way(), time.Now()
	}
	return c, c.way(), time.Time{}
}

// pair is the copy that begins c's next timed pair. The first is the
// third copy, so that the first probeEvery copies do not all go the
// slower way (coll sm's alltoall of 64 KiB a rank through the segment
// took 13-15 us at its second to sixteenth calls instead of 6 when the
// string copy was the faster), and not the first two, which may fault in
// the pages of double buffers.
func (c *ways) pair() uint64 {
	if c.due == 0 {
		return 3
	}
	return c.due
}

// timed records a timed copy of n bytes of class c the way way, begun at
// t0, once its stores are done; at the end of a pair it picks c's way
// and the next pair's copy.
func (w *Writer) timed(c *ways, way int, t0 time.Time, n int) {
	w.fence.Add(1)
	// At least 1: a way that was timed counts as timed, whatever the clock.
	c.cost[way] = max(time.Since(t0).Nanoseconds()*1000/int64(n), 1)
	if c.n != c.pair()+1 {
		return // the first of the pair
	}
	far := stringCopyWins(c.cost, n >= largeCopy)
	if c.due == 0 || far != c.far {
		c.every = probeEvery
	} else {
		c.every = min(2*c.every, maxProbeEvery)
	}
	c.far, c.due = far, c.n-1+c.every
}

// stringCopyWins reports whether copies of costs cost (Go's copy's, the
// string copy's) go by the string copy: when it was the faster, or, for
// large copies, unless Go's copy took at most two thirds of its time.
func stringCopyWins(cost [2]int64, large bool) bool {
	if large {
		return 3*cost[0] > 2*cost[1]
	}
	return cost[1] < cost[0]
}
