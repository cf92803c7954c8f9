package btltest

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// copyPair is a sender whose module offers single copy to a receiver, as
// the engine asks it: the sender exposes, the receiver reads.
type copyPair struct {
	from, to int
	least    int // the sender's SingleCopyMin(to)
	sender   btl.SingleCopier
	reader   btl.SingleCopier
}

// copyPairs returns the ordered pairs of distinct ranks, reaching each
// other, to which the sender's module offers single copy. It skips t when
// the module is no btl.SingleCopier, or no btl.VectorReader if vector is
// set, or when it offers single copy to nobody.
func (j *job) copyPairs(t *testing.T, vector bool) []copyPair {
	t.Helper()
	if _, ok := j.mods[0].(btl.SingleCopier); !ok {
		t.Skip("the module is no btl.SingleCopier")
	}
	if _, ok := j.mods[0].(btl.VectorReader); vector && !ok {
		t.Skip("the module is no btl.VectorReader")
	}
	var ps []copyPair
	for from, m := range j.mods {
		sender, ok := m.(btl.SingleCopier)
		if !ok {
			t.Fatalf("rank %d: the module is no btl.SingleCopier, rank 0's is", from)
		}
		for to := range j.mods {
			if from == to || !j.s.Reaches(from, to) || !j.s.Reaches(to, from) {
				continue
			}
			least := sender.SingleCopyMin(to)
			if least < 0 {
				t.Fatalf("rank %d: SingleCopyMin(%d) = %d; want 0 or more", from, to, least)
			}
			if least == 0 {
				continue
			}
			reader, ok := j.mods[to].(btl.SingleCopier)
			if !ok {
				t.Fatalf("rank %d offers single copy to rank %d, whose module is no btl.SingleCopier", from, to)
			}
			if _, ok := reader.(btl.VectorReader); vector && !ok {
				t.Fatalf("rank %d: the module is no btl.VectorReader, rank 0's is", to)
			}
			ps = append(ps, copyPair{from: from, to: to, least: least, sender: sender, reader: reader})
		}
	}
	if len(ps) == 0 {
		t.Skip("SingleCopyMin is 0 to every peer: single copy is off, or refused here " +
			"(process_vm_readv under ptrace or seccomp restrictions, say)")
	}
	return ps
}

// near is a size about the pair's threshold: a module may set that far
// beyond what a test should allocate, and a read does not depend on it.
func (p copyPair) near() int { return min(p.least, 1<<20) }

// Read buffers carry guardLen bytes of poison past their length, so that
// a read that writes past its dst shows.
const (
	poison   = 0xa5
	guardLen = 64
)

// readBuf returns n bytes to read into, with guardLen poisoned bytes
// after them within its capacity.
func readBuf(n int) []byte {
	return bytes.Repeat([]byte{poison}, n+guardLen)[:n]
}

// checkRead fails t unless dst holds want and its guard is intact.
func checkRead(t *testing.T, what string, dst, want []byte) {
	t.Helper()
	if i := firstDiff(dst, want); i >= 0 {
		t.Fatalf("%s: %d bytes read; byte %d differs from the exposed buffer's", what, len(dst), i)
	}
	checkGuard(t, what, dst)
}

// checkGuard fails t if a read wrote into the guard after dst.
func checkGuard(t *testing.T, what string, dst []byte) {
	t.Helper()
	for i, c := range dst[len(dst):cap(dst)] {
		if c != poison {
			t.Fatalf("%s: wrote byte %d past the end of the %d-byte destination", what, i, len(dst))
		}
	}
}

// firstDiff is the index of the first byte where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// testSingleCopy: on every pair with single copy, buffers exposed at
// once get distinct tokens, and the receiver reads each back exactly,
// whole and in parts. Reads outside a buffer or of a token never exposed
// are the caller's fault (btl.SingleCopier), so they are not made.
func (s Suite) testSingleCopy(t *testing.T) {
	j := s.start(t)
	for _, p := range j.copyPairs(t, false) {
		near := p.near()
		sizes := []int{max(near-1, 2), max(near, 2), near + 1, 1 << 20, 1<<20 + 4093}
		bufs := make([][]byte, len(sizes))
		tokens := make([]uint64, len(sizes))
		owner := map[uint64]int{}
		for i, n := range sizes {
			bufs[i] = payload(p.from, p.to, i, n)
			tokens[i] = p.sender.Expose(p.to, bufs[i])
			if k, dup := owner[tokens[i]]; dup {
				t.Fatalf("rank %d: Expose to rank %d gave buffers %d and %d (%d and %d bytes) one token, %#x",
					p.from, p.to, k, i, sizes[k], n, tokens[i])
			}
			owner[tokens[i]] = i
		}
		for i, n := range sizes {
			mid := n/3 + 1
			for _, r := range []struct{ off, len int }{
				{0, n},                     // whole
				{mid, (n-mid)/2 + 1},       // inside, ending short of the end
				{n - (n+1)/2, (n + 1) / 2}, // the tail, to the last byte
			} {
				what := fmt.Sprintf("rank %d: Read from rank %d of %d bytes at offset %d of a %d-byte buffer", p.to, p.from, r.len, r.off, n)
				dst := readBuf(r.len)
				if err := p.reader.Read(p.from, tokens[i], r.off, dst); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkRead(t, what, dst, bufs[i][r.off:r.off+r.len])
			}
		}
		runtime.KeepAlive(bufs) // the contract: reachable until the reader is done
	}
}

// testReadAll: on every pair with single copy, ReadAll of many exposed
// buffers, of 0 bytes to 1 MiB, some read only in part and some not at
// all, gives what reading them one by one gives.
func (s Suite) testReadAll(t *testing.T) {
	j := s.start(t)
	for _, p := range j.copyPairs(t, true) {
		vr := p.reader.(btl.VectorReader)
		near := p.near()
		sizes := []int{0, 1, 4097, near, near + 1, 1 << 20}
		for i := range 64 { // more than a module may gather in one call
			sizes = append(sizes, 1+i*1237%5000)
		}
		bufs := make([][]byte, len(sizes))
		tokens := make([]uint64, len(sizes))
		lens := make([]int, len(sizes)) // how much of each to read, from its start
		for i, n := range sizes {
			bufs[i] = payload(p.from, p.to, i, n)
			tokens[i] = p.sender.Expose(p.to, bufs[i])
			switch {
			case i == 2:
				lens[i] = 0 // a receive that accepts nothing of a message
			case i%5 == 1:
				lens[i] = n / 2 // a receive shorter than its message
			default:
				lens[i] = n
			}
		}
		ones := make([][]byte, len(sizes))
		for i, l := range lens {
			ones[i] = readBuf(l)
			what := fmt.Sprintf("rank %d: Read from rank %d of %d bytes of buffer %d (%d bytes)", p.to, p.from, l, i, sizes[i])
			if err := p.reader.Read(p.from, tokens[i], 0, ones[i]); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			checkRead(t, what, ones[i], bufs[i][:l])
		}
		all := make([][]byte, len(sizes))
		for i, l := range lens {
			all[i] = readBuf(l)
		}
		if err := vr.ReadAll(p.from, tokens, all); err != nil {
			t.Fatalf("rank %d: ReadAll from rank %d of %d buffers: %v", p.to, p.from, len(tokens), err)
		}
		for i := range all {
			checkRead(t, fmt.Sprintf("rank %d: ReadAll from rank %d: buffer %d, %d bytes of %d", p.to, p.from, i, lens[i], sizes[i]), all[i], ones[i])
		}
		if err := vr.ReadAll(p.from, nil, nil); err != nil {
			t.Errorf("rank %d: ReadAll from rank %d of no buffers: %v", p.to, p.from, err)
		}
		runtime.KeepAlive(bufs) // the contract: reachable until the reader is done
	}
}
