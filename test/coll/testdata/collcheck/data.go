package main

import "github.com/gompi/gompi/mpi"

// kind is an element type of the data-movement tests: val makes a value
// from a number (distinct numbers give distinct values as far as the type
// allows) and hole marks elements no collective may write.
type kind[T mpi.Elem] struct {
	name string
	val  func(v int) T
	hole T
}

var (
	int32s = kind[int32]{"int32", func(v int) int32 { return int32(v) }, -7}
	uint8s = kind[uint8]{"uint8", func(v int) uint8 {
		return uint8(1 + (v^v>>8^v>>20)%254)
	}, 0}
	float64s    = kind[float64]{"float64", func(v int) float64 { return float64(v) + 0.25 }, -1.5}
	complex128s = kind[complex128]{"complex128", func(v int) complex128 {
		return complex(float64(v), -float64(v%97))
	}, complex(-1, -1)}
	pairs = kind[mpi.Pair[float64]]{"Pair[float64]", func(v int) mpi.Pair[float64] {
		return mpi.Pair[float64]{Value: float64(v), Index: int32(v % 1000)}
	}, mpi.Pair[float64]{Value: -1, Index: -1}}
)

// datum numbers element i of what rank from sends to rank to (to is 0
// where every rank gets the same data): distinct for ranks below 16 and
// i below 2^20.
func datum(from, to, i int) int { return (from*16+to)<<20 + i }

// block is the n elements rank from sends to rank to.
func (k kind[T]) block(from, to, n int) []T {
	b := make([]T, n)
	for i := range b {
		b[i] = k.val(datum(from, to, i))
	}
	return b
}

// holes is n elements that no collective has written.
func (k kind[T]) holes(n int) []T {
	b := make([]T, n)
	for i := range b {
		b[i] = k.hole
	}
	return b
}

// roots are the roots a rooted collective is tried with: the first, the
// middle and the last rank.
func roots(size int) []int {
	r := []int{0}
	for _, v := range []int{size / 2, size - 1} {
		if v != r[len(r)-1] {
			r = append(r, v)
		}
	}
	return r
}

// vcounts are the uneven block sizes of the v-collectives for a nominal
// count n: they vary with the rank and include empty blocks.
func vcounts(size, n int) []int {
	c := make([]int, size)
	for r := range c {
		c[r] = n * (r + 1) % (n + 2)
	}
	return c
}

// pairCount is the number of elements rank i sends rank j in Alltoallv;
// symmetric ones serve the in-place form, where each pair of ranks
// exchanges equal blocks.
func pairCount(i, j, n int, symmetric bool) int {
	if symmetric {
		return n * (i + j + 1) % (n + 2)
	}
	return n * (i + 2*j + 1) % (n + 2)
}

// layout places blocks of counts in a buffer in reverse rank order, with
// a one-element hole before each and at the end, so that a block written
// to the wrong place or too long shows. It returns the displacements and
// the buffer's length.
func layout(counts []int) (displs []int, total int) {
	displs = make([]int, len(counts))
	for i := len(counts) - 1; i >= 0; i-- {
		total++
		displs[i] = total
		total += counts[i]
	}
	return displs, total + 1
}

// place copies each block into a buffer of holes as counts and displs lay
// it out.
func place[T mpi.Elem](k kind[T], total int, displs []int, blocks [][]T) []T {
	buf := k.holes(total)
	for i, b := range blocks {
		copy(buf[displs[i]:], b)
	}
	return buf
}

func concat[T any](blocks [][]T) []T {
	var out []T
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}
