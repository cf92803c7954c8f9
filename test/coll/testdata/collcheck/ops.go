package main

import (
	"github.com/gompi/gompi/mpi"
)

// The reductions every communicator runs, by element type. Inputs mix
// signs and repeat values (ties for Min, Max and the Loc operations);
// sums and products stay exact in floating point.

func int32Reductions() []reduction[int32] {
	small := func(r, i int) int32 { return []int32{1, -1, 2, 1, -2, 3}[(r+i)%6] }
	spread := func(r, i int) int32 { return int32((r*37+i*11)%23 - 11) }
	truth := func(r, i int) int32 {
		if (r*3+i)%5 == 0 {
			return 0
		}
		return int32((r+i)%4 + 1) // true values other than 1
	}
	bits := func(r, i int) int32 { return int32(uint32(r+1)*0x9E3779B1 ^ uint32(i)*0x85EBCA6B) }
	b2i := func(b bool) int32 {
		if b {
			return 1
		}
		return 0
	}
	return []reduction[int32]{
		{"sum", mpi.Sum, func(a, b int32) int32 { return a + b }, spread},
		{"prod", mpi.Prod, func(a, b int32) int32 { return a * b }, small},
		{"min", mpi.Min, lesser[int32], spread},
		{"max", mpi.Max, larger[int32], spread},
		{"land", mpi.Land, func(a, b int32) int32 { return b2i(a != 0 && b != 0) }, truth},
		{"lor", mpi.Lor, func(a, b int32) int32 { return b2i(a != 0 || b != 0) }, truth},
		{"lxor", mpi.Lxor, func(a, b int32) int32 { return b2i((a != 0) != (b != 0)) }, truth},
		{"band", mpi.Band, func(a, b int32) int32 { return a & b }, bits},
		{"bor", mpi.Bor, func(a, b int32) int32 { return a | b }, bits},
		{"bxor", mpi.Bxor, func(a, b int32) int32 { return a ^ b }, bits},
	}
}

func int64Reductions() []reduction[int64] {
	big := func(r, i int) int64 { return int64(r+1)<<40 - int64(i*i) }
	return []reduction[int64]{
		{"sum", mpi.Sum, func(a, b int64) int64 { return a + b }, big},
		{"min", mpi.Min, lesser[int64], func(r, i int) int64 { return int64((r*7+i)%5) << 33 }},
		{"band", mpi.Band, func(a, b int64) int64 { return a & b }, func(r, i int) int64 {
			return ^(int64(1) << ((r + i) % 63))
		}},
	}
}

func uint8Reductions() []reduction[uint8] {
	in := func(r, i int) uint8 { return uint8(r*53 + i*29 + 200) }
	return []reduction[uint8]{
		{"sum", mpi.Sum, func(a, b uint8) uint8 { return a + b }, in}, // wraps
		{"max", mpi.Max, larger[uint8], in},
		{"bxor", mpi.Bxor, func(a, b uint8) uint8 { return a ^ b }, in},
		{"lor", mpi.Lor, func(a, b uint8) uint8 {
			if a != 0 || b != 0 {
				return 1
			}
			return 0
		}, func(r, i int) uint8 { return uint8((r + i) % 4 / 3 * 7) }},
	}
}

func float64Reductions() []reduction[float64] {
	halves := func(r, i int) float64 { return float64((r*7+i*3)%11-5) + 0.5 }
	factors := func(r, i int) float64 { return []float64{1, -1, 2, 0.5, -2, 1.5}[(r+2*i)%6] }
	return []reduction[float64]{
		{"sum", mpi.Sum, func(a, b float64) float64 { return a + b }, halves},
		{"prod", mpi.Prod, func(a, b float64) float64 { return a * b }, factors},
		{"min", mpi.Min, lesser[float64], halves},
		{"max", mpi.Max, larger[float64], factors},
	}
}

func complex128Reductions() []reduction[complex128] {
	return []reduction[complex128]{
		{"sum", mpi.Sum, func(a, b complex128) complex128 { return a + b }, func(r, i int) complex128 {
			return complex(float64(r-i%5), float64(r*i%7))
		}},
		{"prod", mpi.Prod, func(a, b complex128) complex128 { return a * b }, func(r, i int) complex128 {
			return []complex128{1, 1i, -1, 1 + 1i, 2}[(r+i)%5]
		}},
	}
}

// loc is MinLoc (better is <) or MaxLoc (>): the better value wins; a tie
// keeps the smaller index.
func loc[T int32 | float64](better func(a, b T) bool) func(a, b mpi.Pair[T]) mpi.Pair[T] {
	return func(a, b mpi.Pair[T]) mpi.Pair[T] {
		switch {
		case better(a.Value, b.Value):
			return a
		case better(b.Value, a.Value):
			return b
		}
		return mpi.Pair[T]{Value: a.Value, Index: min(a.Index, b.Index)}
	}
}

func lesser[T int32 | int64 | uint8 | float64](a, b T) T { return min(a, b) }
func larger[T int32 | int64 | uint8 | float64](a, b T) T { return max(a, b) }

func less[T int32 | float64](a, b T) bool    { return a < b }
func greater[T int32 | float64](a, b T) bool { return a > b }

// The indices fall with the rank, so that a tie goes to the higher rank.
func pairFloat64Reductions() []reduction[mpi.Pair[float64]] {
	in := func(r, i int) mpi.Pair[float64] {
		return mpi.Pair[float64]{Value: float64((r*5+i*3)%7) - 2.5, Index: int32(20 - r)}
	}
	return []reduction[mpi.Pair[float64]]{
		{"minloc", mpi.MinLoc, loc(less[float64]), in},
		{"maxloc", mpi.MaxLoc, loc(greater[float64]), in},
	}
}

func pairInt32Reductions() []reduction[mpi.Pair[int32]] {
	in := func(r, i int) mpi.Pair[int32] {
		return mpi.Pair[int32]{Value: int32((r*3+i)%4 - 1), Index: int32(r*7%11 + i)}
	}
	return []reduction[mpi.Pair[int32]]{
		{"minloc", mpi.MinLoc, loc(less[int32]), in},
		{"maxloc", mpi.MaxLoc, loc(greater[int32]), in},
	}
}

// affine composes affine maps x -> a*x + b over the int32 ring (a in
// Value, b in Index), the lower ranks' map applied first. It is
// associative and not commutative: the result proves rank order.
func affine(lo, hi mpi.Pair[int32]) mpi.Pair[int32] {
	return mpi.Pair[int32]{Value: lo.Value * hi.Value, Index: hi.Value*lo.Index + hi.Index}
}

func affineIn(r, i int) mpi.Pair[int32] {
	return mpi.Pair[int32]{Value: int32(2*(r+i) + 3), Index: int32(r*7 + i + 1)}
}

// plusOne is a + b + 1: commutative and associative, with no identity
// among the inputs, so a reduction that starts from a zero or applies the
// operation once too often shows.
func plusOne(a, b int64) int64 { return a + b + 1 }

// userOps makes the user-defined operations.
type userOps struct {
	affine  mpi.Op // on Pair[int32], not commutative
	plusOne mpi.Op // on int64, commutative
}

func newUserOps(x *checker) userOps {
	var u userOps
	var err error
	u.affine, err = mpi.NewOp(func(in, inout []mpi.Pair[int32]) {
		for i := range inout {
			inout[i] = affine(in[i], inout[i])
		}
	}, false)
	x.ok(err, "new op affine")
	u.plusOne, err = mpi.NewOp(func(in, inout []int64) {
		for i := range inout {
			inout[i] = plusOne(in[i], inout[i])
		}
	}, true)
	x.ok(err, "new op plus one")
	return u
}

func (u userOps) affineReduction() reduction[mpi.Pair[int32]] {
	return reduction[mpi.Pair[int32]]{"user affine (non-commutative)", u.affine, affine, affineIn}
}

func (u userOps) plusOneReduction() reduction[int64] {
	return reduction[int64]{"user plus-one", u.plusOne, plusOne, func(r, i int) int64 { return int64(r*1000 + i) }}
}

// reductions runs every reduction on c with vectors of n elements.
func reductions(x *checker, c mpi.Comm, u userOps, n int) {
	for _, d := range int32Reductions() {
		reduce(x, c, d, n)
	}
	for _, d := range int64Reductions() {
		reduce(x, c, d, n)
	}
	for _, d := range uint8Reductions() {
		reduce(x, c, d, n)
	}
	for _, d := range float64Reductions() {
		reduce(x, c, d, n)
	}
	for _, d := range complex128Reductions() {
		reduce(x, c, d, n)
	}
	for _, d := range pairFloat64Reductions() {
		reduce(x, c, d, n)
	}
	for _, d := range pairInt32Reductions() {
		reduce(x, c, d, n)
	}
	reduce(x, c, u.affineReduction(), n)
	reduce(x, c, u.plusOneReduction(), n)
}
