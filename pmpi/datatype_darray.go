package pmpi

import (
	"fmt"
	"strings"
)

// Distribution is how TypeDarray deals one dimension of a global array
// out to the processes along that dimension of the grid. The zero value
// is none of them, so that a distribution left unset is refused.
type Distribution int

const (
	// DistributeBlock gives each process one block of consecutive
	// elements (MPI_DISTRIBUTE_BLOCK): the first darg to the first
	// process, the next darg to the next, ceil(gsize/psize) each by
	// default; the last blocks may be short or empty.
	DistributeBlock Distribution = iota + 1
	// DistributeCyclic deals blocks of darg elements (1 by default) to the
	// processes in turn, round and round (MPI_DISTRIBUTE_CYCLIC).
	DistributeCyclic
	// DistributeNone leaves the dimension whole (MPI_DISTRIBUTE_NONE):
	// the grid spans one process along it, which holds all of it; its
	// darg is not read.
	DistributeNone
)

// DistributeDefaultDarg asks for a distribution's default argument
// (MPI_DISTRIBUTE_DFLT_DARG): blocks of ceil(gsize/psize) elements for
// DistributeBlock, of 1 for DistributeCyclic.
const DistributeDefaultDarg = -1

func (d Distribution) String() string {
	switch d {
	case DistributeBlock:
		return "block"
	case DistributeCyclic:
		return "cyclic"
	case DistributeNone:
		return "none"
	}
	return fmt.Sprintf("Distribution(%d)", int(d))
}

// TypeDarray is the part of a global array of elements of old, gsizes[i]
// long along dimension i in C or Fortran order, that process rank of size
// holds when the array is distributed over a grid of psizes processes,
// dimension i by distribs[i] with argument dargs[i]
// (MPI_Type_create_darray). The grid is row-major whatever the array's
// order: rank's coordinates run fastest along the last dimension. The
// local elements keep the array's order; as a subarray's, the type's
// lower bound is 0 and its extent the whole array's.
func (*realAPI) TypeDarray(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order, old Datatype) (Datatype, error) {
	const op = "type darray"
	t, err := oldType(op, old)
	if err != nil {
		return Datatype{}, err
	}
	n := len(gsizes)
	switch {
	case size < 1:
		return Datatype{}, errorf(ClassArg, nil, "%s: size %d (want 1 or more processes)", op, size)
	case rank < 0 || rank >= size:
		return Datatype{}, errorf(ClassArg, nil, "%s: rank %d (want 0 to %d, a rank among the size %d processes)", op, rank, size-1, size)
	case n == 0:
		return Datatype{}, errorf(ClassArg, nil, "%s: no dimensions (want 1 or more)", op)
	case len(distribs) != n || len(dargs) != n || len(psizes) != n:
		return Datatype{}, errorf(ClassArg, nil, "%s: %d global sizes, %d distributions, %d distribution arguments and %d process grid sizes (want one of each per dimension)",
			op, n, len(distribs), len(dargs), len(psizes))
	case order != OrderC && order != OrderFortran:
		return Datatype{}, errorf(ClassArg, nil, "%s: order %d (want OrderC or OrderFortran)", op, order)
	}
	total := 1
	limit := maxDisp / max(1, abs(t.extent)) // elements of old a type may span
	for i := range n {
		if err := checkDimension(op, i, gsizes[i], distribs[i], dargs[i], psizes[i]); err != nil {
			return Datatype{}, err
		}
		if total > limit/gsizes[i] {
			return Datatype{}, errorf(ClassArg, nil, "%s: the array of %s elements of %s spans more than the %d bytes a type may span",
				op, ints(gsizes), t.typeName(), maxDisp)
		}
		total *= gsizes[i]
	}
	// The grid's product, stopped once it passes size: psizes may be
	// large enough to overflow.
	grid := 1
	for _, p := range psizes {
		if p > size/grid {
			return Datatype{}, errorf(ClassArg, nil, "%s: the process grid %s holds more than the size %d processes (want its product to be size)",
				op, ints(psizes), size)
		}
		grid *= p
	}
	if grid != size {
		return Datatype{}, errorf(ClassArg, nil, "%s: the process grid %s holds %d processes, not the size %d (want its product to be size)",
			op, ints(psizes), grid, size)
	}
	// rank's coordinates in the row-major grid.
	coords := make([]int, n)
	for i, r := n-1, rank; i >= 0; i-- {
		coords[i], r = r%psizes[i], r/psizes[i]
	}
	// Build from the fastest dimension out, each step resized to the
	// array's slice along it, so that the next dimension's indices step
	// over whole slices.
	cur, stride := t, t.extent
	for k := range n {
		i := k // Fortran order: the first dimension is the fastest
		if order == OrderC {
			i = n - 1 - k
		}
		var entries []placed
		for _, p := range localPieces(distribs[i], dargs[i], gsizes[i], psizes[i], coords[i]) {
			entries = append(entries, placed{p.start * stride, cur, p.len, p.reps, p.step * stride})
		}
		var naming func() string
		if k == n-1 {
			name := darrayName(size, rank, gsizes, distribs, dargs, psizes, order, t)
			naming = func() string { return name }
		}
		d, err := buildType(naming, entries)
		if err != nil {
			return Datatype{}, err
		}
		stride *= gsizes[i]
		d.t.lb, d.t.extent = 0, stride
		d.t.finish()
		cur = d.t
	}
	return Datatype{cur}, nil
}

// checkDimension checks dimension i of a darray: gsize elements dealt by
// dist with argument darg over psize processes.
func checkDimension(op string, i, gsize int, dist Distribution, darg, psize int) error {
	switch {
	case gsize < 1:
		return errorf(ClassArg, nil, "%s: global size %d of dimension %d (want 1 or more)", op, gsize, i)
	case psize < 1:
		return errorf(ClassArg, nil, "%s: process grid size %d of dimension %d (want 1 or more)", op, psize, i)
	}
	switch dist {
	case DistributeNone:
		if psize != 1 {
			return errorf(ClassArg, nil, "%s: dimension %d is not distributed (DistributeNone) but the grid spans %d processes along it (want 1)", op, i, psize)
		}
	case DistributeBlock:
		if darg == DistributeDefaultDarg {
			return nil
		}
		if darg < 1 {
			return errorf(ClassArg, nil, "%s: block size %d of dimension %d (want 1 or more, or DistributeDefaultDarg)", op, darg, i)
		}
		if need := (gsize + psize - 1) / psize; darg < need {
			return errorf(ClassArg, nil, "%s: block size %d of dimension %d leaves elements out: %d processes of blocks of %d hold fewer than its %d (want %d or more, or DistributeDefaultDarg)",
				op, darg, i, psize, darg, gsize, need)
		}
	case DistributeCyclic:
		if darg != DistributeDefaultDarg && darg < 1 {
			return errorf(ClassArg, nil, "%s: cyclic block size %d of dimension %d (want 1 or more, or DistributeDefaultDarg)", op, darg, i)
		}
	default:
		return errorf(ClassArg, nil, "%s: distribution %d of dimension %d (want DistributeBlock, DistributeCyclic or DistributeNone)", op, int(dist), i)
	}
	return nil
}

// piece is reps runs of len consecutive indices of a dimension, the
// first run at index start and each next one step indices after.
type piece struct{ start, len, reps, step int }

// localPieces is the indices of a dimension of gsize elements that the
// process at coord of psize holds under dist with argument darg (checked
// by checkDimension): at most two pieces whatever the size, so that a
// cyclic distribution's description does not grow with the array.
func localPieces(dist Distribution, darg, gsize, psize, coord int) []piece {
	if dist == DistributeNone {
		return []piece{{0, gsize, 1, 0}}
	}
	b := darg // the block length
	if darg == DistributeDefaultDarg {
		b = 1
		if dist == DistributeBlock {
			b = (gsize + psize - 1) / psize
		}
	}
	// The first block starts at coord*b; compared by division, as b may
	// be far larger than the dimension.
	if coord > 0 && b > (gsize-1)/coord {
		return nil
	}
	first := coord * b
	if dist == DistributeBlock {
		return []piece{{first, min(b, gsize-first), 1, 0}}
	}
	// Cyclic: blocks every psize*b indices from first, the last maybe
	// short.
	left := gsize - 1 - first // indices after first
	if psize > left/b {       // psize*b > left: one block
		return []piece{{first, min(b, gsize-first), 1, 0}}
	}
	period := psize * b
	nb := left/period + 1
	last := first + (nb-1)*period
	if gsize-last >= b {
		return []piece{{first, b, nb, period}}
	}
	return []piece{{first, b, nb - 1, period}, {last, gsize - last, 1, 0}}
}

func darrayName(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order, t *typeDesc) string {
	ds := make([]string, len(distribs))
	for i, d := range distribs {
		ds[i] = d.String()
	}
	return fmt.Sprintf("darray(%d,%d;%s;%s;%s;%s,%s,%s)", size, rank, ints(gsizes), strings.Join(ds, ","), ints(dargs), ints(psizes), order, t.typeName())
}
