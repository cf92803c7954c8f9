package colltest

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// Roots are the first, middle and last ranks of n, without repeats.
func Roots(n int) []int {
	rs := []int{0}
	for _, r := range []int{n / 2, n - 1} {
		if r != rs[len(rs)-1] {
			rs = append(rs, r)
		}
	}
	return rs
}

// Data is rank's deterministic input of n bytes for a test named seed.
func Data(seed, rank, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed*7919 + rank*104729 + 1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// AffineData is rank's input of elems Affine pairs, with factors other
// than 0 and 1 so that the order of composition shows.
func AffineData(seed, rank, elems int) []byte {
	b := Data(seed, rank, elems*16)
	for i := range elems {
		binary.LittleEndian.PutUint64(b[i*16:], binary.LittleEndian.Uint64(b[i*16:])%7+2)
	}
	return b
}

// Inputs are every rank's input of an n-rank communicator.
func Inputs(n int, f func(rank int) []byte) [][]byte {
	out := make([][]byte, n)
	for r := range out {
		out[r] = f(r)
	}
	return out
}

// Fold is x0 ⊕ x1 ⊕ ... ⊕ x(n-1), computed left to right: the reference
// result of a reduction in rank order.
func Fold(op coll.Op, xs [][]byte) []byte {
	acc := bytes.Clone(xs[0])
	for _, x := range xs[1:] {
		next := bytes.Clone(x)
		op.Reduce(acc, next)
		acc = next
	}
	return acc
}

// ExpectEqual reports a rank's result that differs from want, with the
// first byte that differs.
func ExpectEqual(got, want []byte, what string, rank int) error {
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		return fmt.Errorf("%s at rank %d: %d bytes differ from the reference (%d expected), first at byte %d",
			what, rank, len(got), len(want), i)
	}
	return nil
}
