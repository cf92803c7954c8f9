package shm

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestCopyStringCopiesExactly: the string copy and the non-temporal one,
// at every alignment of their destination, write src and nothing outside
// it.
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
			for i := range buf {
				buf[i] = 0xa5
			}
			copyNonTemporal(buf[off:], src)
			checkCopied(t, buf, off, src)
		}
	}
}

// TestWriterCopiesEveryWay: a Writer's copy is exact whichever way it
// goes: below WriterMin, timed any way, or between probes any way.
func TestWriterCopiesEveryWay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 3*WriterMin+2*line) // the largest n, offset and slack below
	for way := range numWays {
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
			w.class[0].way = way // between probes, this way; a probe goes its own
			w.Copy(buf[off:off+n+rng.IntN(line)], src)
			checkCopied(t, buf, off, src)
		}
		if c := w.class[0]; slices.Contains(c.cost[:], 0) {
			t.Errorf("way %d: after %d copies, costs %v: a way was never timed", way, 4*probeEvery, c.cost)
		}
	}
}

// TestWriterTimesEveryWayEarly: a zero Writer has timed every way by its
// fifth copy of WriterMin bytes or more (copies below WriterMin do not
// count), and its next copies up to the probe go the fastest way untimed.
func TestWriterTimesEveryWayEarly(t *testing.T) {
	src, dst := make([]byte, WriterMin), make([]byte, WriterMin)
	var w Writer
	c := &w.class[0]
	for i := range 5 {
		if i > 0 && !slices.Contains(c.cost[:], 0) {
			t.Fatalf("every way timed after %d copies, want 5", i)
		}
		w.Copy(dst[:WriterMin-1], src[:WriterMin-1])
		w.Copy(dst, src)
	}
	if slices.Contains(c.cost[:], 0) {
		t.Fatalf("after 5 copies, costs %v: a way was never timed", c.cost)
	}
	faster := w.fastestWay(0)
	for c.n < probeEvery {
		if _, way, t0 := w.next(WriterMin); way != faster || !t0.IsZero() {
			t.Fatalf("copy %d went way %d (timed %v), want way %d untimed (costs %v)", c.n, way, !t0.IsZero(), faster, c.cost)
		}
	}
}

// TestWriterTimesLessOftenWhileItsVerdictHolds: a Writer's timed rounds
// come twice as far apart after each round that keeps its way, up to
// maxProbeEvery copies, and every probeEvery-th again after a round that
// changes it. Ways are made to look slow by a start an hour early: all but
// Go's copy, until Go's copy becomes the slow one.
func TestWriterTimesLessOftenWhileItsVerdictHolds(t *testing.T) {
	var w Writer
	c := &w.class[0]
	fast := wayGo       // the one way not made slow
	stale := false      // the way changed since the last round
	var rounds []uint64 // the copy that began each timed round
	for c.n < 4*maxProbeEvery {
		if fast == wayGo && len(rounds) == 6 && c.n > rounds[5]+numWays-1 {
			fast, stale = wayString, true
		}
		_, way, t0 := w.next(WriterMin)
		if t0.IsZero() {
			if c.n > 2+numWays && way != fast && !stale {
				t.Fatalf("copy %d went the slow way %d untimed", c.n, way)
			}
			continue
		}
		if c.n > 2+numWays && c.n == c.round() {
			rounds = append(rounds, c.n)
		} else if c.n == c.round()+numWays-1 {
			stale = false // the round's last copy decides
		}
		if way != fast {
			t0 = t0.Add(-time.Hour)
		}
		w.timed(c, way, t0, WriterMin)
	}
	var gaps []uint64
	for i := 1; i < len(rounds); i++ {
		gaps = append(gaps, rounds[i]-rounds[i-1])
	}
	// The first round probeEvery copies after the early one (copies 3
	// to 5); the seventh finds the way changed.
	want := []uint64{32, 64, 128, 256, 512, 512, 16, 32, 64, 128, 256}
	if rounds[0] != 3+probeEvery || !slices.Equal(gaps, want) {
		t.Fatalf("timed rounds began at copies %v (gaps %v), want the first at %d and gaps %v", rounds, gaps, 3+probeEvery, want)
	}
}

// TestWriterTimesLargeCopiesApart: copies from largeCopy are counted and
// timed in their own class, and keep the string copy unless Go's copy
// took at most two thirds of its time; smaller ones take the faster way.
// Non-temporal stores win only at half the time of the way the others
// would take.
func TestWriterTimesLargeCopiesApart(t *testing.T) {
	src, dst := make([]byte, largeCopy), make([]byte, largeCopy)
	var w Writer
	for range 5 {
		w.Copy(dst, src)
	}
	if small, large := w.class[0], w.class[1]; small.n != 0 || large.n != 5 || slices.Contains(large.cost[:], 0) {
		t.Fatalf("after 5 copies of largeCopy bytes: small class %+v, large %+v; want only the large one's, every way timed", small, large)
	}
	for _, c := range []struct {
		cost         [numWays]int64
		small, large int
	}{
		{[numWays]int64{100, 100, 100}, wayGo, wayString},
		{[numWays]int64{100, 140, 100}, wayGo, wayString},
		{[numWays]int64{100, 150, 100}, wayGo, wayGo},
		{[numWays]int64{100, 99, 100}, wayString, wayString},
		{[numWays]int64{300, 100, 100}, wayString, wayString},
		{[numWays]int64{100, 300, 51}, wayGo, wayGo},
		{[numWays]int64{100, 300, 50}, wayNT, wayNT},
		{[numWays]int64{100, 140, 60}, wayGo, wayNT},
		{[numWays]int64{300, 100, 50}, wayNT, wayNT},
		{[numWays]int64{300, 100, 51}, wayString, wayString},
	} {
		if got := fastestWay(c.cost, false, ntMargin); got != c.small {
			t.Errorf("costs %v, small copies: way %d, want %d", c.cost, got, c.small)
		}
		if got := fastestWay(c.cost, true, ntMargin); got != c.large {
			t.Errorf("costs %v, large copies: way %d, want %d", c.cost, got, c.large)
		}
	}
}

// TestWriterCountsItsReader: a timed copy's mark leads its reader's time
// to the copy's class and way, and once the reader has timed every way of
// a class, the way is the one of least time in all, with no margin for
// non-temporal stores; untimed copies are marked 0. The reader's times
// dwarf whatever the writer's clock says, and go one way, then the other:
// a writer deaf to them would take the same way both times.
func TestWriterCountsItsReader(t *testing.T) {
	src, dst := make([]byte, largeCopy), make([]byte, largeCopy)
	for _, c := range []struct {
		read [numWays]time.Duration
		want int
	}{
		{[numWays]time.Duration{wayGo: time.Hour, wayString: time.Hour, wayNT: time.Millisecond}, wayNT},
		{[numWays]time.Duration{wayGo: time.Hour, wayString: time.Millisecond, wayNT: time.Hour}, wayString},
	} {
		var r ReadCosts
		w := Writer{Readers: &r}
		cl := &w.class[1]
		for cl.n < 2*probeEvery+numWays {
			timed := cl.n+1-cl.round() < numWays // as next counts (unsigned: before the round, large)
			m := w.Copy(dst, src)
			if timed != (m != 0) {
				t.Fatalf("copy %d (round at %d): mark %d, timed %v", cl.n, cl.round(), m, timed)
			}
			if m == 0 {
				continue
			}
			if k, way := (int(m)-1)/numWays, (int(m)-1)%numWays; k != 1 {
				t.Fatalf("copy %d of largeCopy bytes marked class %d, way %d", cl.n, k, way)
			}
			r.Record(m, largeCopy, c.read[(int(m)-1)%numWays])
		}
		if cl.way != c.want {
			t.Errorf("way %d after the reader timed every way (writer's costs %v, reader's %v), want %d", cl.way, cl.cost, &r[1], c.want)
		}
		ps := r[1][wayNT].Load()
		r.Record(0, largeCopy, time.Second) // untimed
		r.Record(2*numWays+1, largeCopy, time.Second)
		if got := r[1][wayNT].Load(); got != ps {
			t.Errorf("reader's cost of non-temporal stores %d ps a byte after records of no way, want %d", got, ps)
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
// from any offset, below WriterMin or above it, any way or timed, in one
// stage of the string copy or non-temporal stores or several, and writes nothing
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
	for way := range numWays {
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
			w.class[0].way, w.class[1].way = way, way
			w.CopyPacked(buf[at:at+n], src, from)
			checkCopied(t, buf, at, want[from:from+n])
		}
		for i, c := range w.class {
			if slices.Contains(c.cost[:], 0) {
				t.Errorf("way %d: after %d copies, class %d's costs %v: a way was never timed", way, 4*probeEvery, i, c.cost)
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
