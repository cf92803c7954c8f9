// Package shm holds what the shared-memory components of several
// frameworks share (btl sm, coll sm): prefetches, the copy into memory
// that another process reads (Writer), a copy that stays in the caches
// (CopyCached), and which directories' refusals of a segment another
// directory may not share (DirRefused). It is a library, not a
// component, as Open MPI's common components are.
package shm

import (
	"math"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
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

// WriterMin is the smallest copy that a Writer may make with a string copy
// (REP MOVSB), or non-temporal stores, instead of Go's copy. Go's copy
// writes a line 32 bytes at a time, and each line that another process
// read since this one last wrote it comes back from that process's cache
// before the store completes; a string copy writes whole lines without
// fetching them. Which wins depends on how far apart the two processors
// are, and on this project's virtual machines that changes from one minute
// to the next: when a line takes 0.3-0.4 us to cross, the string copy wins
// from 4 KiB (btl sm's round trip of 4 KiB 2.9 -> 2.3 us, 8 KiB 3.9 ->
// 3.0, 16 KiB 5.0 -> 3.9; at 2 KiB it loses 10 %); when a line takes 0.1
// us it loses (4 KiB 0.8-0.95 -> 1.1 us, 8 KiB 1.3 -> 1.5). It is 3 KiB,
// not 4: btl sm copies a message's first bytes with its header, so a 4 KiB
// message reached the Writer as 4064 bytes and went by Go's copy (one way
// 1.5-1.65 us against 1.25 with the Writer, slow state; no change in the
// fast one).
const WriterMin = 3 << 10

// A Writer times its copies of a size class in rounds, one copy each way,
// the way it takes first and then the others, back to back so that all
// meet the same state: probeEvery copies after the first round, and twice
// as many after each round whose verdict held, up to maxProbeEvery; a
// verdict that changes brings the rounds back to every probeEvery-th
// copy. Another way can cost much more: a 2-rank Ialltoall of 256 KiB,
// whose rounds make two copies a call, took 40 us at every 16th call
// instead of 23 when every 16th copy went one way or the other.
const (
	probeEvery    = 16
	maxProbeEvery = 512
)

// The ways a Writer copies: Go's copy (with PrefetchW), the string copy,
// and non-temporal stores.
const (
	wayGo = iota
	wayString
	wayNT
	numWays
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

// ntMargin: where no reader says what its reads took (ReadCosts),
// non-temporal stores are taken only when they took at most 1/ntMargin of
// the better other way's time. They write around the caches, so the
// reader fetches the lines from memory, not from this processor's cache,
// which the writer's clock does not see: in a 32 KiB ping-pong the
// reader's copy of such lines took 1.3 times the writer's.
const ntMargin = 2

// A Writer copies into memory that another process reads, choosing the
// fastest way by timing each from time to time, apart for copies below
// largeCopy and from it. The zero Writer is ready; it is not safe for
// concurrent use.
type Writer struct {
	class [2]ways // copies of WriterMin up to largeCopy, and from largeCopy

	// Readers, if set, is where the copies' reader says what reading
	// them took: the way is then the one of least time in all.
	Readers *ReadCosts

	fence atomic.Uint32 // a locked instruction: waits for the timed copy's stores

	stage []byte // a payload packed for the string copy or non-temporal stores (CopyPacked), made at its first
}

// ways is what a Writer has timed of one class of copies.
type ways struct {
	n     uint64         // copies of the class
	cost  [numWays]int64 // the last timed copy's picoseconds a byte, each way
	way   int            // the way untimed copies take
	due   uint64         // the copy that begins the next timed round; 0 for the first (round)
	every uint64         // copies from one timed round to the next
}

// Copy copies src into dst, which must be at least as long, and returns
// the copy's mark for its reader. Below WriterMin it is Go's copy. The
// stores of the string copy and of non-temporal stores are fenced: a plain
// store after Copy is not seen before them.
func (w *Writer) Copy(dst, src []byte) Mark {
	if len(src) < WriterMin {
		copy(dst, src)
		return 0
	}
	c, way, t0 := w.next(len(src))
	switch way {
	case wayString:
		copyString(&dst[0], &src[0], len(src))
	case wayNT:
		copyNonTemporal(dst, src)
	default:
		PrefetchW(dst[:len(src)])
		copy(dst, src)
	}
	if t0.IsZero() {
		return 0
	}
	return w.timed(c, way, t0, len(src))
}

// copyNonTemporal copies src into dst, whole lines of dst with
// non-temporal stores and its partial first and last lines with Go's
// copy: a partial line written around the cache costs a read of memory.
func copyNonTemporal(dst, src []byte) {
	n := len(src)
	head := min(int(-uintptr(unsafe.Pointer(&dst[0]))&(line-1)), n)
	copy(dst[:head], src)
	body := (n - head) &^ (line - 1)
	if body > 0 {
		copyNT(&dst[head], &src[head], body)
	}
	copy(dst[head+body:n], src[head+body:])
}

// line is the size of a cache line.
const line = 64

// A Packer writes a payload that does not lie in one slice, its bytes
// [off, off+len(dst)) into dst (btl.Source).
type Packer interface {
	Pack(dst []byte, off int)
}

// CopyPacked is Copy of what src packs, its bytes [off, off+len(dst)),
// and returns the copy's mark. src packs into dst itself for Go's copy,
// its lines prefetched first, or into the Writer's stage, stageSize bytes
// at a time, for the other ways.
func (w *Writer) CopyPacked(dst []byte, src Packer, off int) Mark {
	n := len(dst)
	if n < WriterMin {
		src.Pack(dst, off)
		return 0
	}
	c, way, t0 := w.next(n)
	if way != wayGo {
		if w.stage == nil {
			w.stage = make([]byte, stageSize)
		}
		for at := 0; at < n; at += stageSize {
			part := w.stage[:min(stageSize, n-at)]
			src.Pack(part, off+at)
			if way == wayString {
				copyString(&dst[at], &part[0], len(part))
			} else {
				copyNonTemporal(dst[at:], part)
			}
		}
	} else {
		PrefetchW(dst)
		src.Pack(dst, off)
	}
	if t0.IsZero() {
		return 0
	}
	return w.timed(c, way, t0, n)
}

// stageSize is the most bytes a Writer packs for one string copy (or
// non-temporal one). Rows of 4 KiB, copied a row at a time by string
// copies, took 1.10-1.20 times as long as packed 16 KiB at a time (32 KiB
// level; 4 KiB at a time 1.1-1.3 times as long as a string copy a row).
const stageSize = 16 << 10

// next counts a copy of n bytes, WriterMin or more, in its class and
// picks its way. The copies of a timed round are timed from t0, which is
// zero for the others. (Timing only Go's copy against a fixed rate
// misjudged: its prefetches made it look fast where the string copy was
// faster.)
func (w *Writer) next(n int) (c *ways, way int, t0 time.Time) {
	c = &w.class[0]
	if n >= largeCopy {
		c = &w.class[1]
	}
	c.n++
	if k := c.n - c.round(); k < numWays {
		return c, (c.way + int(k)) % numWays, time.Now()
	}
	return c, c.way, time.Time{}
}

// round is the copy that begins c's next timed round. The first is the
// third copy, so that the first probeEvery copies do not all go a slower
// way (coll sm's alltoall of 64 KiB a rank through the segment took 13-15
// us at its second to sixteenth calls instead of 6 when the string copy
// was the faster), and not the first two, which may fault in the pages of
// double buffers.
func (c *ways) round() uint64 {
	if c.due == 0 {
		return 3
	}
	return c.due
}

// timed records a timed copy of n bytes of class c the way way, begun at
// t0, once its stores are done, and returns its mark; at the end of a
// round it picks c's way and the next round's copy.
func (w *Writer) timed(c *ways, way int, t0 time.Time, n int) Mark {
	w.fence.Add(1)
	// At least 1: a way that was timed counts as timed, whatever the clock.
	c.cost[way] = max(time.Since(t0).Nanoseconds()*1000/int64(n), 1)
	k := 0
	if c == &w.class[1] {
		k = 1
	}
	if c.n == c.round()+numWays-1 { // the last of the round
		best := w.fastestWay(k)
		if c.due == 0 || best != c.way {
			c.every = probeEvery
		} else {
			c.every = min(2*c.every, maxProbeEvery)
		}
		c.way, c.due = best, c.round()+c.every
	}
	return Mark(1 + k*numWays + way)
}

// fastestWay is the way that class k's copies go: by the writer's times,
// or by the writer's and the reader's together once the reader has timed
// every way.
func (w *Writer) fastestWay(k int) int {
	cost, margin := w.class[k].cost, int64(ntMargin)
	if r := w.Readers; r != nil {
		var read [numWays]int64
		for i := range read {
			read[i] = int64(r[k][i].Load())
		}
		if !slices.Contains(read[:], 0) {
			for i := range cost {
				cost[i] += read[i]
			}
			margin = 1
		}
	}
	return fastestWay(cost, k == 1, margin)
}

// fastestWay is the way that copies of costs cost go: of Go's copy and
// the string copy, the faster, or, for large copies, the string copy
// unless Go's copy took at most two thirds of its time; non-temporal
// stores if they took at most 1/margin of that one's time.
func fastestWay(cost [numWays]int64, large bool, margin int64) int {
	way := wayGo
	if large && 3*cost[wayGo] > 2*cost[wayString] || !large && cost[wayString] < cost[wayGo] {
		way = wayString
	}
	if margin*cost[wayNT] <= cost[way] {
		way = wayNT
	}
	return way
}

// Mark is 0 for an untimed copy; for a timed one it says the copy's class
// and way, so that its reader can say what reading it took
// (ReadCosts.Record). It fits in 4 bits.
type Mark uint8

// ReadCosts is where the reader of a Writer's copies tells the writer
// what reading them took, for each class and way, in picoseconds a byte.
// It may lie in memory that the two processes share.
type ReadCosts [2][numWays]atomic.Uint32

// Record records that reading a copy of mark m, n bytes, took d.
func (r *ReadCosts) Record(m Mark, n int, d time.Duration) {
	if m == 0 || m > 2*numWays || n <= 0 {
		return // untimed, or not a Writer's mark
	}
	i := int(m) - 1
	ps := min(max(d.Nanoseconds()*1000/int64(n), 1), math.MaxUint32)
	r[i/numWays][i%numWays].Store(uint32(ps))
}
