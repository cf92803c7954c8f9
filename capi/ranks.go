package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// The standard ABI's special ranks, tags and counts differ from gompi's Go
// values; these translate them at the boundary. A value that is special
// in one and not the other becomes one gompi rejects, so that it is not
// taken for a different special value.
const invalid = math.MinInt32

// MPI_UNDEFINED needs no translation: gompi's Undefined has its value
// (this fails to compile if they part).
var _ = [1]struct{}{}[pmpi.Undefined-C.MPI_UNDEFINED]

func rank(r int) int {
	switch r {
	case C.MPI_ANY_SOURCE:
		return pmpi.AnySource
	case C.MPI_PROC_NULL:
		return pmpi.ProcNull
	case C.MPI_ROOT:
		return pmpi.Root
	case pmpi.ProcNull:
		return invalid
	}
	return r
}

func tag(t int) int {
	switch t {
	case C.MPI_ANY_TAG:
		return pmpi.AnyTag
	case pmpi.AnyTag:
		return invalid
	}
	return t
}

// cRank, cTag and cCount are the other way: gompi's results to C's.
func cRank(r int) C.int {
	switch r {
	case pmpi.AnySource:
		return C.MPI_ANY_SOURCE
	case pmpi.ProcNull:
		return C.MPI_PROC_NULL
	}
	return C.int(r)
}

func cTag(t int) C.int {
	if t == pmpi.AnyTag {
		return C.MPI_ANY_TAG
	}
	return C.int(t)
}

func cCount(n int) C.int { return countIn[C.int](n) }

// countIn is a count, size or element count for an int or MPI_Count
// result: MPI_UNDEFINED where gompi has none, or, for an int, where the
// value does not fit, as the int forms of the status and size queries say.
func countIn[N cInt](n int) N {
	if n == pmpi.Undefined || unsafe.Sizeof(N(0)) == 4 && n > math.MaxInt32 {
		return C.MPI_UNDEFINED
	}
	return N(n)
}
