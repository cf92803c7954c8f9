package tuned

import (
	"math/bits"
	"sync"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// pof2Floor is the largest power of two not above n (n >= 1).
func pof2Floor(n int) int { return 1 << (bits.Len(uint(n)) - 1) }

// pof2Ceil is the smallest power of two not below n (n >= 1).
func pof2Ceil(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// lowBit is the lowest set bit of v > 0.
func lowBit(v int) int { return v & -v }

// ownCachedMax is the largest own block that allgather and alltoall copy
// through the caches. Go's copy writes around them from 1 MiB, where the
// copy competes with the peer's single-copy read of the same buffers: a
// 2-rank alltoall of 1-2 MiB blocks took 0.70-0.79 of the time through
// them, allgather 0.72-0.76; at 4 MiB, 1.06-1.11 times as long.
const ownCachedMax = 2 << 20

// copyOwn copies a rank's own block of an allgather or an alltoall into
// its receive buffer.
func copyOwn(dst, src []byte) {
	if len(src) <= ownCachedMax {
		shm.CopyCached(dst, src)
		return
	}
	copy(dst, src)
}

// scratch hands out per-call buffers. A buffer goes back only once no
// request can still touch it. The pool holds *[]byte; the emptied holders
// are pooled too, so that neither get nor put allocates once warm.
type scratch struct{ pool, holders sync.Pool }

func (s *scratch) get(n int) []byte {
	if p, ok := s.pool.Get().(*[]byte); ok {
		b := *p
		*p = nil
		s.holders.Put(p)
		if cap(b) >= n {
			return b[:n]
		}
	}
	return make([]byte, n)
}

func (s *scratch) put(b []byte) {
	if cap(b) == 0 {
		return
	}
	p, _ := s.holders.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	*p = b
	s.pool.Put(p)
}

// fold maps ranks onto a power of two for the recursive algorithms: of the
// first 2*rem ranks the even ones hand their data to the odd one above and
// sit out, so that the pof2 survivors keep rank order (survivor v is rank
// 2v+1 below rem, v+rem above).
type fold struct {
	n, pof2, rem int
}

func newFold(n int) fold {
	p := pof2Floor(n)
	return fold{n: n, pof2: p, rem: n - p}
}

// vrank is rank's place among the survivors, -1 if it sits out.
func (f fold) vrank(rank int) int {
	switch {
	case rank >= 2*f.rem:
		return rank - f.rem
	case rank%2 == 1:
		return rank / 2
	}
	return -1
}

// unfolded returns send if rank's data is still its own after the fold (it
// took no one's), else nil.
func (f fold) unfolded(rank int, send []byte) []byte {
	if rank < 2*f.rem {
		return nil
	}
	return send
}

// rank is the rank of survivor v.
func (f fold) rank(v int) int {
	if v < f.rem {
		return 2*v + 1
	}
	return v + f.rem
}

// window is a range of elements [lo, hi) of a vector.
type window struct{ lo, hi int }

// halves splits w in two; the lower half goes to the rank whose bit is clear.
func (w window) halves() (lower, upper window) {
	mid := w.lo + (w.hi-w.lo)/2
	return window{w.lo, mid}, window{mid, w.hi}
}

func (w window) bytes(b []byte, es int) []byte { return b[w.lo*es : w.hi*es] }

// waitAll completes reqs whatever happens, and returns the first error.
// It waits on each request itself: a slice handed to coll.Comm's Wait
// escapes to the heap, and one kept off it lets the callers build theirs
// on the stack (see stackReqs).
func waitAll(reqs []coll.Request) error {
	var first error
	for _, r := range reqs {
		if err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// stackReqs is the room for requests that a collective keeps on its stack
// (var buf [stackReqs]coll.Request): communicators of up to 17 ranks then
// allocate nothing for them.
const stackReqs = 16
