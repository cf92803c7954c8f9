package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// emptyGroup is the group behind MPI_GROUP_EMPTY. It is made from this
// process's own group, not as a zero pmpi.Group, because a group knows
// which process holds it: a union with the empty group as its first
// operand takes that from it.
func emptyGroup() (*pmpi.Group, error) {
	if !api().Initialized() || api().Finalized() {
		return nil, errorf(pmpi.ClassGroup, "MPI_GROUP_EMPTY is usable only between MPI_Init and MPI_Finalize")
	}
	real := pmpi.Real()
	self, err := real.CommGroup(real.CommSelf())
	if err != nil {
		return nil, err
	}
	return real.GroupIncl(self, nil)
}

// setGroup stores a new group's handle in *out: MPI_GROUP_EMPTY for an
// empty one, as MPI_Group_incl of no ranks gives.
func setGroup(out *Group, g *pmpi.Group, err error) error {
	if err != nil {
		return err
	}
	if g.Size() == 0 {
		*out = MPI_GROUP_EMPTY
		return nil
	}
	h, err := lib.groups.put(g)
	if err != nil {
		return err
	}
	*out = Group(h)
	return nil
}

// cInts is the C array p of n ints, named what for errors.
func cInts[T ~int32 | ~int64](op, what string, p *T, n int) ([]int, error) {
	if n < 0 {
		return nil, errorf(pmpi.ClassArg, "%s: %d %s (want a count >= 0)", op, n, what)
	}
	if n > 0 && p == nil {
		return nil, errorf(pmpi.ClassArg, "%s: the array of %d %s is NULL", op, n, what)
	}
	out := make([]int, n)
	if n > 0 {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out, nil
}

// putInts writes vs to the C array p, which the caller sized for them.
func putInts(p *C.int, vs []int) {
	if len(vs) == 0 || p == nil {
		return
	}
	out := unsafe.Slice(p, len(vs))
	for i, v := range vs {
		out[i] = C.int(v)
	}
}

// cCompare is MPI_IDENT..MPI_UNEQUAL for a gompi comparison.
func cCompare(c pmpi.Comparison) C.int {
	switch c {
	case pmpi.Ident:
		return C.MPI_IDENT
	case pmpi.Congruent:
		return C.MPI_CONGRUENT
	case pmpi.Similar:
		return C.MPI_SIMILAR
	}
	return C.MPI_UNEQUAL
}

func mpiCommGroup(h Comm, out *Group) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	g, err := api().CommGroup(c)
	return setGroup(out, g, err)
}

func mpiGroupSize(h Group, n *C.int) error {
	g, err := h.get()
	if err != nil {
		return err
	}
	s, err := api().GroupSize(g)
	*n = C.int(s)
	return err
}

func mpiGroupRank(h Group, r *C.int) error {
	g, err := h.get()
	if err != nil {
		return err
	}
	rk, err := api().GroupRank(g)
	*r = cCount(rk)
	return err
}

func mpiGroupIncl(h Group, n int, ranks *C.int, out *Group) error {
	g, err := h.get()
	if err != nil {
		return err
	}
	rs, err := cInts("group incl", "ranks", ranks, n)
	if err != nil {
		return err
	}
	ng, err := api().GroupIncl(g, rs)
	return setGroup(out, ng, err)
}

func mpiGroupExcl(h Group, n int, ranks *C.int, out *Group) error {
	g, err := h.get()
	if err != nil {
		return err
	}
	rs, err := cInts("group excl", "ranks", ranks, n)
	if err != nil {
		return err
	}
	ng, err := api().GroupExcl(g, rs)
	return setGroup(out, ng, err)
}

// expand lists the ranks of n (first, last, stride) triplets at p, as
// MPI_Group_range_incl reads them: first, first+stride... while not past
// last. A stride that leads away from last is an error, as in MPICH and
// Open MPI, rather than an empty range.
func expand(op string, g *pmpi.Group, n int, p unsafe.Pointer) ([]int, error) {
	flat, err := cInts(op, "ranges", (*C.int)(p), 3*n)
	if err != nil || n < 0 {
		return nil, errorf(pmpi.ClassArg, "%s: %d ranges (want a count >= 0, and an array of that many triplets)", op, n)
	}
	size := g.Size()
	var ranks []int
	for i := 0; i < n; i++ {
		first, last, stride := flat[3*i], flat[3*i+1], flat[3*i+2]
		if stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last) {
			return nil, errorf(pmpi.ClassArg, "%s: range %d (%d, %d, %d) does not lead from first to last (want first <= last with a positive stride, or first >= last with a negative one)",
				op, i, first, last, stride)
		}
		for r := first; (stride > 0 && r <= last) || (stride < 0 && r >= last); r += stride {
			if r < 0 || r >= size {
				return nil, errorf(pmpi.ClassRank, "%s: range %d (%d, %d, %d) reaches rank %d, not in the group of %d (0 to %d)", op, i, first, last, stride, r, size, size-1)
			}
			ranks = append(ranks, r)
		}
	}
	return ranks, nil
}

func mpiGroupRangeIncl(h Group, n int, ranges unsafe.Pointer, out *Group) error {
	g, err := h.get()
	if err != nil {
		return err
	}
	rs, err := expand("group range incl", g, n, ranges)
	if err != nil {
		return err
	}
	ng, err := api().GroupIncl(g, rs)
	return setGroup(out, ng, err)
}

func mpiGroupRangeExcl(h Group, n int, ranges unsafe.Pointer, out *Group) error {
	g, err := h.get()
	if err != nil {
		return err
	}
	rs, err := expand("group range excl", g, n, ranges)
	if err != nil {
		return err
	}
	ng, err := api().GroupExcl(g, rs)
	return setGroup(out, ng, err)
}

// pair looks up the two groups of a call.
func pair(a, b Group) (*pmpi.Group, *pmpi.Group, error) {
	ga, err := a.get()
	if err != nil {
		return nil, nil, err
	}
	gb, err := b.get()
	return ga, gb, err
}

func mpiGroupUnion(a, b Group, out *Group) error {
	ga, gb, err := pair(a, b)
	if err != nil {
		return err
	}
	ng, err := api().GroupUnion(ga, gb)
	return setGroup(out, ng, err)
}

func mpiGroupIntersection(a, b Group, out *Group) error {
	ga, gb, err := pair(a, b)
	if err != nil {
		return err
	}
	ng, err := api().GroupIntersection(ga, gb)
	return setGroup(out, ng, err)
}

func mpiGroupDifference(a, b Group, out *Group) error {
	ga, gb, err := pair(a, b)
	if err != nil {
		return err
	}
	ng, err := api().GroupDifference(ga, gb)
	return setGroup(out, ng, err)
}

func mpiGroupTranslateRanks(a Group, n int, ranks1 *C.int, b Group, ranks2 *C.int) error {
	ga, gb, err := pair(a, b)
	if err != nil {
		return err
	}
	rs, err := cInts("group translate ranks", "ranks", ranks1, n)
	if err != nil {
		return err
	}
	for i, r := range rs {
		rs[i] = rank(r)
	}
	if n > 0 && ranks2 == nil {
		return errorf(pmpi.ClassArg, "group translate ranks: ranks2, for %d ranks, is NULL", n)
	}
	out, err := api().GroupTranslateRanks(ga, rs, gb)
	if err != nil {
		return err
	}
	for i, r := range out {
		if r == pmpi.ProcNull {
			out[i] = C.MPI_PROC_NULL
		}
	}
	putInts(ranks2, out)
	return nil
}

func mpiGroupCompare(a, b Group, result *C.int) error {
	ga, gb, err := pair(a, b)
	if err != nil {
		return err
	}
	c, err := api().GroupCompare(ga, gb)
	*result = cCompare(c)
	return err
}

func mpiGroupFree(h *Group) error {
	if *h != MPI_GROUP_EMPTY && !lib.groups.drop(uintptr(*h)) {
		_, err := h.get()
		return err
	}
	*h = MPI_GROUP_NULL
	return nil
}
