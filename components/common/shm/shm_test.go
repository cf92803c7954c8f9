package shm

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

const line = 64

// TestCopyStringCopiesExactly: the string copy, at every alignment of its
// destination, writes src and nothing outside it.
func TestCopyStringCopiesExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 3*WriterMin)
	for _, n := range []int{1, line - 1, line, line + 1, WriterMin - 1, WriterMin, WriterMin + 65, 2 * WriterMin} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		for off := range line + 1 {
			for i := range buf {
				buf[i] = 0xa5
			}
			copyString(&buf[off], &src[0], n)
			checkCopied(t, buf, off, src)
		}
	}
}

// TestWriterCopiesEveryWay: a Writer's copy is exact whichever way it
// goes: below WriterMin, timed either way, or between probes either way.
func TestWriterCopiesEveryWay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 3*WriterMin+2*line) // the largest n, offset and slack below
	for _, far := range []bool{false, true} {
		var w Writer
		for i := range 4 * probeEvery {
			n := rng.IntN(2 * WriterMin)
			if i%3 != 0 {
				n += WriterMin
			}
			src := make([]byte, n)
			for j := range src {
				src[j] = byte(rng.Uint32())
			}
			off := rng.IntN(line + 1)
			for j := range buf {
				buf[j] = 0xa5
			}
			w.class[0].far = far // between probes, this way; a probe goes its own
			w.Copy(buf[off:off+n+rng.IntN(line)], src)
			checkCopied(t, buf, off, src)
		}
		if c := w.class[0]; c.cost[0] == 0 || c.cost[1] == 0 {
			t.Errorf("far %v: after %d copies, costs %v: a way was never timed", far, 4*probeEvery, c.cost)
		}
	}
}

// TestWriterTimesBothWaysEarly: a zero Writer has timed both ways by its
// fourth copy of WriterMin bytes or more (copies below WriterMin do not
// count), and its next copies up to the probe go the faster way untimed.
func TestWriterTimesBothWaysEarly(t *testing.T) {
	src, dst := make([]byte, WriterMin), make([]byte, WriterMin)
	var w Writer
	c := &w.class[0]
	for i := range 4 {
		if i > 0 && c.cost[0] != 0 && c.cost[1] != 0 {
			t.Fatalf("both ways timed after %d copies, want 4", i)
		}
		w.Copy(dst[:WriterMin-1], src[:WriterMin-1])
		w.Copy(dst, src)
	}
	if c.cost[0] == 0 || c.cost[1] == 0 {
		t.Fatalf("after 4 copies, costs %v: a way was never timed", c.cost)
	}
	faster := 0
	if c.cost[1] < c.cost[0] {
		faster = 1
	}
	for c.n < probeEvery {
		if _, way, t0 := w.next(WriterMin); way != faster || !t0.IsZero() {
			t.Fatalf("copy %d went way %d (timed %v), want way %d untimed (costs %v)", c.n, way, !t0.IsZero(), faster, c.cost)
		}
	}
}

// TestWriterTimesLessOftenWhileItsVerdictHolds: a Writer's timed pairs
// come twice as far apart after each pair that keeps its way, up to
// maxProbeEvery copies, and every probeEvery-th again after a pair that
// changes it. One way is made to look slow by a start an hour early.
func TestWriterTimesLessOftenWhileItsVerdictHolds(t *testing.T) {
	var w Writer
	c := &w.class[0]
	slow := 0          // Go's copy, until the string copy becomes the slow one
	stale := false     // the way changed since the last pair
	var pairs []uint64 // the copy that began each timed pair
	for c.n < 4*maxProbeEvery {
		if slow == 0 && len(pairs) == 6 && c.n > pairs[5]+1 {
			slow, stale = 1, true
		}
		_, way, t0 := w.next(WriterMin)
		if t0.IsZero() {
			if c.n > 4 && way == slow && !stale {
				t.Fatalf("copy %d went the slow way %d untimed", c.n, way)
			}
			continue
		}
		if c.n > 4 && c.n == c.pair() {
			pairs = append(pairs, c.n)
		} else {
			stale = false // the pair's second copy decides
		}
		if way == slow {
			t0 = t0.Add(-time.Hour)
		}
		w.timed(c, way, t0, WriterMin)
	}
	var gaps []uint64
	for i := 1; i < len(pairs); i++ {
		gaps = append(gaps, pairs[i]-pairs[i-1])
	}
	// The first pair probeEvery copies after the early one (copies 3 and
	// 4); the seventh finds the way changed.
	want := []uint64{32, 64, 128, 256, 512, 512, 16, 32, 64, 128, 256}
	if pairs[0] != 3+probeEvery || !slices.Equal(gaps, want) {
		t.Fatalf("timed pairs began at copies %v (gaps %v), want the first at %d and gaps %v", pairs, gaps, 3+probeEvery, want)
	}
}

// TestWriterTimesLargeCopiesApart: copies from largeCopy are counted and
// timed in their own class, and keep the string copy unless Go's copy
// took at most two thirds of its time; smaller ones take the faster way.
func TestWriterTimesLargeCopiesApart(t *testing.T) {
	src, dst := make([]byte, largeCopy), make([]byte, largeCopy)
	var w Writer
	for range 4 {
		w.Copy(dst, src)
	}
	if small, large := w.class[0], w.class[1]; small.n != 0 || large.n != 4 || large.cost[0] == 0 || large.cost[1] == 0 {
		t.Fatalf("after 4 copies of largeCopy bytes: small class %+v, large %+v; want only the large one's, both ways timed", small, large)
	}
	for _, c := range []struct {
		cost         [2]int64
		small, large bool
	}{
		{[2]int64{100, 100}, false, true},
		{[2]int64{100, 140}, false, true},
		{[2]int64{100, 150}, false, false},
		{[2]int64{100, 99}, true, true},
		{[2]int64{300, 100}, true, true},
	} {
		if got := stringCopyWins(c.cost, false); got != c.small {
			t.Errorf("costs %v, small copies: string copy %v, want %v", c.cost, got, c.small)
		}
		if got := stringCopyWins(c.cost, true); got != c.large {
			t.Errorf("costs %v, large copies: string copy %v, want %v", c.cost, got, c.large)
		}
	}
}

// rows is a Packer of every block bytes out of stride in buf.
type rows struct {
	buf           []byte
	block, stride int
}

func (r rows) Pack(dst []byte, off int) {
	for len(dst) > 0 {
		blk, in := off/r.block, off%r.block
		n := copy(dst, r.buf[blk*r.stride+in:blk*r.stride+r.block])
		dst, off = dst[n:], off+n
	}
}

// TestWriterCopiesPackedEveryWay: CopyPacked writes what its Packer packs
// from any offset, below WriterMin or above it, the one way, the other or
// timed, in one stage of the string copy or several, and writes nothing
// past it.
func TestWriterCopiesPackedEveryWay(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const most = 2*stageSize + WriterMin
	src := rows{block: 100, stride: 103}
	src.buf = make([]byte, (2*most/src.block+1)*src.stride)
	for j := range src.buf {
		src.buf[j] = byte(rng.Uint32())
	}
	want := make([]byte, 2*most)
	src.Pack(want, 0)
	buf := make([]byte, most+2*line)
	for _, far := range []bool{false, true} {
		var w Writer
		for i := range 4 * probeEvery {
			n := rng.IntN(most + 1)
			if i%3 == 0 {
				n = rng.IntN(WriterMin)
			}
			from := rng.IntN(most)
			at := rng.IntN(line + 1)
			for j := range buf {
				buf[j] = 0xa5
			}
			w.class[0].far, w.class[1].far = far, far
			w.CopyPacked(buf[at:at+n], src, from)
			checkCopied(t, buf, at, want[from:from+n])
		}
		for i, c := range w.class {
			if c.cost[0] == 0 || c.cost[1] == 0 {
				t.Errorf("far %v: after %d copies, class %d's costs %v: a way was never timed", far, 4*probeEvery, i, c.cost)
			}
		}
	}
}

// checkCopied fails unless buf holds src at off and 0xa5 everywhere else.
func checkCopied(t *testing.T, buf []byte, off int, src []byte) {
	t.Helper()
	n := len(src)
	if !bytes.Equal(buf[off:off+n], src) {
		t.Fatalf("%d bytes at offset %d: copy differs", n, off)
	}
	if i := slices.IndexFunc(buf[off+n:], func(b byte) bool { return b != 0xa5 }); i >= 0 {
		t.Fatalf("%d bytes at offset %d: byte %d past the end written", n, off, i)
	}
	if i := slices.IndexFunc(buf[:off], func(b byte) bool { return b != 0xa5 }); i >= 0 {
		t.Fatalf("%d bytes at offset %d: byte %d before the start written", n, off, i)
	}
}
