package tuned

import (
	"math/bits"
	"sync"

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

// scratch hands out per-call buffers. A buffer goes back only once no
// request can still touch it.
type scratch struct{ pool sync.Pool }

func (s *scratch) get(n int) []byte {
	if p, ok := s.pool.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

func (s *scratch) put(b []byte) {
	if cap(b) > 0 {
		s.pool.Put(&b)
	}
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
func waitAll(c coll.Comm, reqs []coll.Request) error {
	if len(reqs) == 0 {
		return nil
	}
	return c.Wait(reqs...)
}
