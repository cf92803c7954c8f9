package basic

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

const maxSize = 9

// byteCounts are the per-rank (or per-block) lengths every collective is
// run with: empty, one word, a few words, a few KiB.
var byteCounts = []int{0, 8, 24, 3072}

// elemCounts are the vector lengths, in elements, of the reductions.
var elemCounts = []int{0, 1, 3, 200}

var ops = []coll.Op{colltest.SumInt64{}, colltest.Affine{}}

func opName(op coll.Op) string { return fmt.Sprintf("%T", op)[len("colltest."):] }

// roots are the first, the last and a middle rank.
func roots(n int) []int {
	rs := []int{0}
	if n > 1 {
		rs = append(rs, n-1)
	}
	if n > 2 {
		rs = append(rs, n/2)
	}
	return rs
}

// fill is rank's n bytes of a test, distinct for every seed, rank and
// offset within a 251-byte period.
func fill(seed, rank, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(seed*31 + rank*17 + i*7 + i/251)
	}
	return b
}

// operand is rank's vector of elems elements of op.
func operand(op coll.Op, seed, rank, elems int) []byte {
	b := make([]byte, elems*op.ElemSize())
	for e := range elems {
		switch op.(type) {
		case colltest.Affine:
			a := int64((rank+2*e)%5) - 2 // never all equal across ranks
			if a == 0 {
				a = 3
			}
			binary.LittleEndian.PutUint64(b[16*e:], uint64(a))
			binary.LittleEndian.PutUint64(b[16*e+8:], uint64(int64(rank*11+e+seed)))
		default:
			binary.LittleEndian.PutUint64(b[8*e:], uint64(int64(seed*1000+rank*37+e*3-50)))
		}
	}
	return b
}

// operands are every rank's operand.
func operands(op coll.Op, seed, n, elems int) [][]byte {
	xs := make([][]byte, n)
	for r := range xs {
		xs[r] = operand(op, seed, r, elems)
	}
	return xs
}

// vlayout lays out blocks of counts in reverse rank order with gap bytes
// before, between and after them: displacements are neither increasing
// nor contiguous.
func vlayout(counts []int, gap int) (displs []int, size int) {
	displs = make([]int, len(counts))
	off := gap
	for i := len(counts) - 1; i >= 0; i-- {
		displs[i] = off
		off += counts[i] + gap
	}
	return displs, off
}

// uneven counts give some ranks nothing and others up to 3 units.
func uneven(n, unit, salt int) []int {
	counts := make([]int, n)
	for i := range counts {
		counts[i] = ((i*7 + salt) % 4) * unit
	}
	return counts
}

const sentinel = 0xEE

func filled(n int) []byte { return bytes.Repeat([]byte{sentinel}, n) }

func check(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d bytes, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: byte %d of %d is %#x, want %#x", what, i, len(got), got[i], want[i])
			return
		}
	}
}

// run runs f on every rank of a fresh communicator of n ranks.
func run(t *testing.T, n int, f func(c coll.Comm) error) {
	t.Helper()
	colltest.NewWorld(n).Run(t, f)
}
