package btltest

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// strided is a Source whose bytes lie in blocks of block bytes, gap
// bytes of garbage apart, as a column of a matrix does.
type strided struct {
	buf        []byte
	block, gap int
}

// newStrided lays want out in blocks of block bytes.
func newStrided(want []byte, block int) strided {
	const gap = 3
	s := strided{block: block, gap: gap}
	for len(want) > 0 {
		n := min(block, len(want))
		s.buf = append(s.buf, want[:n]...)
		s.buf = append(s.buf, make([]byte, gap)...)
		want = want[n:]
	}
	for i := range s.buf {
		if i%(block+gap) >= block {
			s.buf[i] = 0xee
		}
	}
	return s
}

// Pack copies bytes [off, off+len(dst)) of the payload into dst.
func (s strided) Pack(dst []byte, off int) {
	stride := s.block + s.gap
	for len(dst) > 0 {
		blk, in := off/s.block, off%s.block
		n := copy(dst, s.buf[blk*stride+in:blk*stride+s.block])
		dst, off = dst[n:], off+n
	}
}

// testSendFrom: on every reached pair whose module is a btl.Gatherer,
// payloads of every size that matters, packed from a Source at an
// offset, arrive as Send would deliver them, sent at once or held (then
// flushed, for a btl.Poster), in order with Sends between them.
func (s Suite) testSendFrom(t *testing.T) {
	j := s.start(t)
	if _, ok := j.mods[0].(btl.Gatherer); !ok {
		t.Skip("the module is no btl.Gatherer")
	}
	j.sendByTurns(t, 2, func(m btl.Module, to int, hdr, pl []byte, seq int) {
		g, ok := m.(btl.Gatherer)
		if !ok {
			t.Fatalf("the module of a rank that sends to rank %d is no btl.Gatherer, rank 0's is", to)
		}
		// The payload starts off bytes into the Source, as a fragment of a
		// message does after the first.
		off := seq%5 + 1
		src := newStrided(append(make([]byte, off), pl...), 7)
		hold := seq%4 == 0
		err := PostAgain(func() error { return g.SendFrom(context.Background(), to, hdr, src, off, len(pl), hold) })
		if err != nil {
			t.Fatalf("SendFrom to rank %d of %d bytes from offset %d, hold %v: %v", to, len(pl), off, hold, err)
		}
	})
}

// scatterPairs is copyPairs for modules that are btl.ScatterCopiers; it
// skips t when rank 0's is not.
func (j *job) scatterPairs(t *testing.T) []copyPair {
	t.Helper()
	if _, ok := j.mods[0].(btl.ScatterCopier); !ok {
		t.Skip("the module is no btl.ScatterCopier")
	}
	ps := j.copyPairs(t, false)
	for _, p := range ps {
		if _, ok := p.sender.(btl.ScatterCopier); !ok {
			t.Fatalf("rank %d: the module is no btl.ScatterCopier, rank 0's is", p.from)
		}
		if _, ok := p.reader.(btl.ScatterCopier); !ok {
			t.Fatalf("rank %d: the module is no btl.ScatterCopier, rank 0's is", p.to)
		}
	}
	return ps
}

// cutLens splits n bytes into pieces of the lengths in lens, repeated as
// long as n lasts (the last takes what is left); a 0 gives an empty
// piece.
func cutLens(n int, lens []int) []int {
	var out []int
	for i := 0; n > 0; i++ {
		k := min(lens[i%len(lens)], n)
		out = append(out, k)
		n -= k
	}
	return out
}

// shapes are the pieces, on either side, that a scattered read must
// handle: more than a system call takes (1024 a side on Linux), pieces
// that straddle such batches, one large piece, empty pieces.
var shapes = []struct {
	name string
	lens []int
}{
	{"one piece", []int{1 << 30}},
	{"small pieces", []int{37, 1, 90, 5, 64}},
	{"empty pieces among them", []int{0, 700, 0, 0, 3}},
	{"pages and a bit", []int{4096, 4097, 1}},
}

// destinations returns readBufs of lens.
func destinations(lens []int) [][]byte {
	ds := make([][]byte, len(lens))
	for i, n := range lens {
		ds[i] = readBuf(n)
	}
	return ds
}

// checkScattered fails t unless dsts, in order, hold want.
func checkScattered(t *testing.T, what string, dsts [][]byte, want []byte) {
	t.Helper()
	at := 0
	for i, d := range dsts {
		if !bytes.Equal(d, want[at:at+len(d)]) || !guarded(d) {
			checkRead(t, fmt.Sprintf("%s: destination %d of %d, at byte %d", what, i, len(dsts), at), d, want[at:at+len(d)])
		}
		at += len(d)
	}
}

// guarded reports whether the guard after d is intact.
func guarded(d []byte) bool {
	for _, c := range d[len(d):cap(d)] {
		if c != poison {
			return false
		}
	}
	return true
}

// testReadScatter: on every pair with single copy between
// btl.ScatterCopiers, a buffer exposed whole is read into destinations of
// every shape, whole or its first bytes only.
func (s Suite) testReadScatter(t *testing.T) {
	j := s.start(t)
	for _, p := range j.scatterPairs(t) {
		sc := p.reader.(btl.ScatterCopier)
		size := max(p.near(), 256<<10) + 4093
		buf := payload(p.from, p.to, 3, size)
		token := p.sender.Expose(p.to, buf)
		for _, dst := range shapes {
			for _, n := range []int{size, size/2 + 1} {
				what := fmt.Sprintf("rank %d: ReadScatter from rank %d of %d bytes of %d into %s", p.to, p.from, n, size, dst.name)
				dsts := destinations(cutLens(n, dst.lens))
				if err := sc.ReadScatter(p.from, token, dsts); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkScattered(t, what, dsts, buf)
			}
		}
		if err := sc.ReadScatter(p.from, token, [][]byte{nil, {}}); err != nil {
			t.Errorf("rank %d: ReadScatter from rank %d into empty destinations: %v", p.to, p.from, err)
		}
		runtime.KeepAlive(buf) // the contract: reachable until the reader is done
	}
}

// testReadVector: on every pair with single copy between
// btl.ScatterCopiers, buffers exposed in pieces of every shape, whether
// apart in one allocation or in allocations of their own, are read into
// destinations of every shape, whole or their first bytes only.
func (s Suite) testReadVector(t *testing.T) {
	j := s.start(t)
	for _, p := range j.scatterPairs(t) {
		sc := p.reader.(btl.ScatterCopier)
		sender := p.sender.(btl.ScatterCopier)
		size := max(p.near(), 256<<10) + 4093
		for k, src := range shapes {
			msg := payload(p.from, p.to, 4+k, size)
			var bufs [][]byte
			at := 0
			for i, n := range cutLens(size, src.lens) {
				if i%2 == 0 {
					bufs = append(bufs, msg[at:at+n:at+n])
				} else {
					bufs = append(bufs, append([]byte(nil), msg[at:at+n]...))
				}
				at += n
			}
			token, keep := sender.ExposeVector(p.to, bufs)
			for _, dst := range shapes {
				for _, n := range []int{size, size/2 + 1} {
					what := fmt.Sprintf("rank %d: ReadVector from rank %d of %d bytes of %d exposed as %s into %s",
						p.to, p.from, n, size, src.name, dst.name)
					dsts := destinations(cutLens(n, dst.lens))
					if err := sc.ReadVector(p.from, token, dsts); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					checkScattered(t, what, dsts, msg)
				}
			}
			runtime.KeepAlive(keep) // the contract: reachable until the reader is done
			runtime.KeepAlive(bufs)
		}
	}
}
