package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

func init() { scenarios["ddt-darray"] = ddtDarray }

// darrayDist is a distribution of a global array over the ranks.
type darrayDist struct {
	name     string
	gsizes   []int
	distribs []mpi.Distribution
	dargs    []int
	psizes   []int
	order    mpi.Order
}

// darrayDists are distributions over n ranks: rows by blocks (with 3
// ranks the last block of 7 rows is short), columns cyclic, and a 3-D
// array on a grid of two distributed dimensions.
func darrayDists(n int) []darrayDist {
	const dflt = mpi.DistributeDefaultDarg
	block, cyclic, none := mpi.DistributeBlock, mpi.DistributeCyclic, mpi.DistributeNone
	a := 1 // the grid's first dimension: the largest divisor of n up to its root
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			a = d
		}
	}
	return []darrayDist{
		{"rows by blocks, C", []int{7, 5}, []mpi.Distribution{block, none}, []int{dflt, dflt}, []int{n, 1}, mpi.OrderC},
		{"columns cyclic(2), Fortran", []int{6, 7}, []mpi.Distribution{none, cyclic}, []int{dflt, 2}, []int{1, n}, mpi.OrderFortran},
		// Blocks of 5/a+1 of 5: with 2 processes along it the second's is short.
		{"3-D block(k) x cyclic x none, C", []int{5, 4, 3}, []mpi.Distribution{block, cyclic, none}, []int{5/a + 1, dflt, dflt}, []int{a, n / a, 1}, mpi.OrderC},
		{"3-D cyclic x block x block, Fortran", []int{4, 5, 3}, []mpi.Distribution{cyclic, block, block}, []int{dflt, dflt, dflt}, []int{a, 1, n / a}, mpi.OrderFortran},
	}
}

// owned is the indices of the global array, in its order, that rank
// holds under d: every element whose owner along each dimension is the
// rank's coordinate there. It reads the distribution directly, element
// by element, apart from how gompi builds the type.
func (d darrayDist) owned(rank int) []int {
	n := len(d.gsizes)
	coords := make([]int, n)
	for i, r := n-1, rank; i >= 0; i-- {
		coords[i], r = r%d.psizes[i], r/d.psizes[i]
	}
	owner := func(i, x int) int {
		g, p, k := d.gsizes[i], d.psizes[i], d.dargs[i]
		switch d.distribs[i] {
		case mpi.DistributeBlock:
			if k == mpi.DistributeDefaultDarg {
				k = (g + p - 1) / p
			}
			return x / k
		case mpi.DistributeCyclic:
			if k == mpi.DistributeDefaultDarg {
				k = 1
			}
			return x / k % p
		}
		return 0
	}
	total := 1
	for _, g := range d.gsizes {
		total *= g
	}
	var out []int
	idx := make([]int, n)
	for flat := range total {
		// flat's multi-index in the array's order.
		for k, f := 0, flat; k < n; k++ {
			i := k // Fortran: the first dimension is the fastest
			if d.order == mpi.OrderC {
				i = n - 1 - k
			}
			idx[i], f = f%d.gsizes[i], f/d.gsizes[i]
		}
		mine := true
		for i := range n {
			mine = mine && owner(i, idx[i]) == coords[i]
		}
		if mine {
			out = append(out, flat)
		}
	}
	return out
}

// ddtDarray deals a global array out to the ranks with darray layouts:
// rank 0 sends each rank, itself too, its part with that rank's layout,
// which the rank receives as plain numbers and checks against owned;
// each rank then sends its numbers back, and rank 0 receives them into
// their places in an empty array with the sender's layout, which gives
// the whole array back.
func ddtDarray(w mpi.Comm) error {
	if err := w.SetErrorHandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	me, n := w.Rank(), w.Size()
	for ci, d := range darrayDists(n) {
		if err := dealDarray(w, me, n, ci, d); err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
	}
	return nil
}

func dealDarray(w mpi.Comm, me, n, ci int, d darrayDist) error {
	layout := func(r int) (mpi.Layout[float64], error) {
		return mpi.Darray[float64](n, r, d.gsizes, d.distribs, d.dargs, d.psizes, d.order)
	}
	mine, err := layout(me)
	if err != nil {
		return err
	}
	defer mine.Free()
	want := mine.Size() / 8
	if idx := d.owned(me); len(idx) != want {
		return fmt.Errorf("rank %d's layout holds %d numbers, want %d", me, want, len(idx))
	}
	total := 1
	for _, g := range d.gsizes {
		total *= g
	}
	if _, ext := mine.Extent(); ext != total*8 {
		return fmt.Errorf("extent %d, want the whole array's %d", ext, total*8)
	}
	tag := 2 * ci
	part := make([]float64, want)
	r, err := mpi.Irecv(part, 0, tag, w)
	if err != nil {
		return err
	}
	var global []float64
	var layouts []mpi.Layout[float64]
	if me == 0 {
		global = grid(1, total, 1000*float64(ci+1))
		for dest := range n {
			l, err := layout(dest)
			if err != nil {
				return err
			}
			defer l.Free()
			layouts = append(layouts, l)
			if err := mpi.SendLayout(global, 1, l, dest, tag, w); err != nil {
				return fmt.Errorf("send to %d: %w", dest, err)
			}
		}
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	for k, i := range d.owned(me) {
		if want := 1000*float64(ci+1) + float64(i); part[k] != want {
			return fmt.Errorf("rank %d received %v, want element %d = %v at %d", me, part, i, want, k)
		}
	}
	// Back to rank 0, each part into its place.
	s, err := mpi.Isend(part, 0, tag+1, w)
	if err != nil {
		return err
	}
	if me == 0 {
		back := make([]float64, total)
		for src := range n {
			st, err := mpi.RecvLayout(back, 1, layouts[src], src, tag+1, w)
			if err != nil {
				return fmt.Errorf("receive from %d: %w", src, err)
			}
			if layouts[src].Size() > 0 && st.Count != 1 {
				return fmt.Errorf("from %d: count %d, want 1", src, st.Count)
			}
		}
		if !slices.Equal(back, global) {
			return errors.New("the parts received into their places are not the whole array")
		}
	}
	_, err = s.Wait()
	return err
}
