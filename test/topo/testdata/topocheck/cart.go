package main

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// rowMajor is the coordinates of rank r in a grid of dims, computed here
// apart from the library's.
func rowMajor(dims []int, r int) []int {
	c := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		c[i], r = r%dims[i], r/dims[i]
	}
	return c
}

// rankAt is rowMajor's inverse, with periodic wrapping; -1 off a
// non-periodic edge.
func rankAt(dims []int, periods []bool, c []int) int {
	r := 0
	for i, x := range c {
		if periods[i] {
			x = (x%dims[i] + dims[i]) % dims[i]
		} else if x < 0 || x >= dims[i] {
			return -1
		}
		r = r*dims[i] + x
	}
	return r
}

// grid2 is the balanced two-dimensional grid of the world's ranks.
func grid2(world mpi.Comm) ([]int, error) {
	dims := []int{0, 0}
	return dims, mpi.DimsCreate(world.Size(), dims)
}

// cart checks a grid of every rank, with every combination of periods:
// its queries, coordinates and ranks round trip, shifts (ProcNull past a
// non-periodic edge), that Dup keeps the topology and Split drops it,
// and the errors of bad arguments.
func cart(world mpi.Comm) (err error) {
	dims, err := grid2(world)
	if err != nil {
		return err
	}
	for _, periods := range [][]bool{{false, false}, {true, true}, {true, false}} {
		if err := cartWith(world, dims, periods); err != nil {
			return fmt.Errorf("dims %v periods %v: %w", dims, periods, err)
		}
	}
	return cartErrors(world)
}

func cartWith(world mpi.Comm, dims []int, periods []bool) (err error) {
	// One host: reorder keeps the ranks' order.
	c, err := mpi.CartCreate(world, dims, periods, true)
	if err != nil {
		return err
	}
	defer free(c, &err)
	if c.Rank() != world.Rank() || c.Size() != world.Size() {
		return fmt.Errorf("rank %d of %d in the grid; want %d of %d (one host: reorder keeps the order)", c.Rank(), c.Size(), world.Rank(), world.Size())
	}
	if top, err := c.TopoTest(); err != nil || top != mpi.Cart {
		return fmt.Errorf("TopoTest = %v, %v; want Cart", top, err)
	}
	if n, err := c.CartDim(); err != nil || n != 2 {
		return fmt.Errorf("CartDim = %d, %v; want 2", n, err)
	}
	me := rowMajor(dims, c.Rank())
	gd, gp, gc, err := c.CartGet()
	if err != nil || !slices.Equal(gd, dims) || !slices.Equal(gp, periods) || !slices.Equal(gc, me) {
		return fmt.Errorf("CartGet = %v %v %v, %v; want %v %v %v", gd, gp, gc, err, dims, periods, me)
	}
	for r := range c.Size() {
		co, err := c.CartCoords(r)
		if err != nil || !slices.Equal(co, rowMajor(dims, r)) {
			return fmt.Errorf("CartCoords(%d) = %v, %v; want %v", r, co, err, rowMajor(dims, r))
		}
		if back, err := c.CartRank(co); err != nil || back != r {
			return fmt.Errorf("CartRank(CartCoords(%d)) = %d, %v", r, back, err)
		}
	}
	for d := range dims {
		for _, disp := range []int{1, -1, 2} {
			src, dst, err := c.CartShift(d, disp)
			if err != nil {
				return fmt.Errorf("CartShift(%d, %d): %w", d, disp, err)
			}
			back, fwd := slices.Clone(me), slices.Clone(me)
			back[d] -= disp
			fwd[d] += disp
			want := func(r int) int {
				if r < 0 {
					return mpi.ProcNull
				}
				return r
			}
			if ws, wd := want(rankAt(dims, periods, back)), want(rankAt(dims, periods, fwd)); src != ws || dst != wd {
				return fmt.Errorf("CartShift(%d, %d) = %d, %d; want %d, %d", d, disp, src, dst, ws, wd)
			}
		}
	}
	// Coordinates outside the grid: wrapped where periodic, refused where not.
	out := []int{me[0] + dims[0], me[1]}
	r, err := c.CartRank(out)
	if periods[0] {
		if err != nil || r != c.Rank() {
			return fmt.Errorf("CartRank(%v) = %d, %v; want %d (periodic)", out, r, err, c.Rank())
		}
	} else if err := wantErr(fmt.Sprintf("CartRank(%v)", out), err, mpi.ErrArg, "coords[0]", "non-periodic dimension 0"); err != nil {
		return err
	}
	// Dup keeps the topology; Split drops it.
	d, err := c.Dup()
	if err != nil {
		return err
	}
	defer free(d, &err)
	if top, err := d.TopoTest(); err != nil || top != mpi.Cart {
		return fmt.Errorf("Dup: TopoTest = %v, %v; want Cart", top, err)
	}
	if dd, dp, dc, err := d.CartGet(); err != nil || !slices.Equal(dd, dims) || !slices.Equal(dp, periods) || !slices.Equal(dc, me) {
		return fmt.Errorf("Dup: CartGet = %v %v %v, %v", dd, dp, dc, err)
	}
	s, err := c.Split(0, c.Rank())
	if err != nil {
		return err
	}
	defer free(s, &err)
	if top, err := s.TopoTest(); err != nil || top != mpi.Undefined {
		return fmt.Errorf("Split: TopoTest = %v, %v; want Undefined", top, err)
	}
	return nil
}

// cartErrors checks that bad arguments fail with their class and say
// what was wrong.
func cartErrors(world mpi.Comm) error {
	n := world.Size()
	if top, err := world.TopoTest(); err != nil || top != mpi.Undefined {
		return fmt.Errorf("world: TopoTest = %v, %v; want Undefined", top, err)
	}
	_, _, err := world.CartShift(0, 1)
	if err := wantErr("CartShift on world", err, mpi.ErrTopology, "has no topology", "want a Cartesian topology"); err != nil {
		return err
	}
	_, err = mpi.CartCreate(world, []int{n + 1}, []bool{false}, false)
	if err := wantErr("a grid larger than the world", err, mpi.ErrDims, fmt.Sprintf("%d ranks", n)); err != nil {
		return err
	}
	_, err = mpi.CartCreate(world, []int{-1, 2}, []bool{false, false}, false)
	if err := wantErr("negative dims", err, mpi.ErrDims, "dims[0] is -1"); err != nil {
		return err
	}
	_, err = mpi.CartCreate(world, []int{n}, []bool{false, true}, false)
	if err := wantErr("periods of another length", err, mpi.ErrArg, "1 dims and 2 periods"); err != nil {
		return err
	}
	err = mpi.DimsCreate(n, []int{n + 1, 0})
	if err := wantErr("DimsCreate with a fixed entry that does not divide", err, mpi.ErrDims, "does not divide"); err != nil {
		return err
	}
	c, err := mpi.CartCreate(world, []int{n}, []bool{false}, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	_, err = c.CartCoords(n)
	if err := wantErr("CartCoords out of range", err, mpi.ErrRank, fmt.Sprintf("rank %d", n)); err != nil {
		return err
	}
	_, _, err = c.CartShift(1, 1)
	if err := wantErr("CartShift along a dimension the grid lacks", err, mpi.ErrDims, "direction 1"); err != nil {
		return err
	}
	_, err = c.CartRank([]int{0, 0})
	if err := wantErr("CartRank with too many coords", err, mpi.ErrArg, "2 coords"); err != nil {
		return err
	}
	_, err = c.CartSub([]bool{true, true})
	return wantErr("CartSub with too many entries", err, mpi.ErrArg, "remain has 2 entries")
}

// beyond makes a grid smaller than the world: the ranks past it get a
// null communicator, and CartMap says Undefined for them.
func beyond(world mpi.Comm) (err error) {
	dims := []int{2, world.Size() / 2 / 2}
	places := dims[0] * dims[1]
	if places >= world.Size() {
		return fmt.Errorf("the grid %v leaves no rank of %d beyond it", dims, world.Size())
	}
	periods := []bool{false, true}
	want := world.Rank()
	if want >= places {
		want = mpi.Undefined
	}
	if m, err := world.CartMap(dims, periods); err != nil || m != want {
		return fmt.Errorf("CartMap = %d, %v; want %d", m, err, want)
	}
	c, err := mpi.CartCreate(world, dims, periods, false)
	if err != nil {
		return err
	}
	if world.Rank() >= places {
		if !c.IsNull() {
			return fmt.Errorf("rank %d beyond a grid of %d got %v; want a null Comm", world.Rank(), places, c)
		}
		return nil
	}
	defer free(c, &err)
	if c.IsNull() || c.Rank() != world.Rank() || c.Size() != places {
		return fmt.Errorf("got %v, rank %d of %d; want rank %d of %d", c, c.Rank(), c.Size(), world.Rank(), places)
	}
	return nil
}

// sub cuts a grid into its rows and its columns and checks each part's
// members (by world rank, gathered over it) and its grid.
func sub(world mpi.Comm) (err error) {
	dims, err := grid2(world)
	if err != nil {
		return err
	}
	periods := []bool{true, false}
	c, err := mpi.CartCreate(world, dims, periods, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	me := rowMajor(dims, c.Rank())
	for keep := range 2 {
		remain := []bool{keep == 0, keep == 1}
		s, err := c.CartSub(remain)
		if err != nil {
			return err
		}
		var members []int
		for r := range c.Size() {
			if rc := rowMajor(dims, r); rc[1-keep] == me[1-keep] {
				members = append(members, r)
			}
		}
		got := make([]int, s.Size())
		if err := mpi.Allgather([]int{world.Rank()}, got, s); err != nil {
			return err
		}
		sd, sp, sc, err := s.CartGet()
		switch {
		case err != nil:
			return err
		case !slices.Equal(got, members):
			return fmt.Errorf("CartSub(%v): members %v; want %v", remain, got, members)
		case !slices.Equal(sd, []int{dims[keep]}) || !slices.Equal(sp, []bool{periods[keep]}) || !slices.Equal(sc, []int{me[keep]}):
			return fmt.Errorf("CartSub(%v): grid %v %v, coords %v; want [%d] [%v], [%d]", remain, sd, sp, sc, dims[keep], periods[keep], me[keep])
		}
		if err := s.Free(); err != nil {
			return err
		}
	}
	// Keeping no dimension leaves each rank a grid of its own.
	s, err := c.CartSub([]bool{false, false})
	if err != nil {
		return err
	}
	defer free(s, &err)
	if n, err := s.CartDim(); err != nil || n != 0 || s.Size() != 1 {
		return fmt.Errorf("CartSub(none): %d dimensions, %d ranks, %v; want 0 and 1", n, s.Size(), err)
	}
	return nil
}

// halo runs a halo exchange on a periodic-in-one-dimension grid: each
// rank sends its value to its neighbours with Sendrecv over CartShift's
// ranks, and checks what arrives from each side, or that nothing does
// past a non-periodic edge.
func halo(world mpi.Comm) (err error) {
	dims, err := grid2(world)
	if err != nil {
		return err
	}
	periods := []bool{false, true}
	c, err := mpi.CartCreate(world, dims, periods, false)
	if err != nil {
		return err
	}
	defer free(c, &err)
	value := func(r int) float64 { return 100 + float64(r)*1.5 }
	me := rowMajor(dims, c.Rank())
	for d := range dims {
		for _, disp := range []int{1, -1} {
			src, dst, err := c.CartShift(d, disp)
			if err != nil {
				return err
			}
			got := []float64{-1}
			if _, err := mpi.Sendrecv([]float64{value(c.Rank())}, dst, d, got, src, d, c); err != nil {
				return fmt.Errorf("Sendrecv along %d by %d: %w", d, disp, err)
			}
			from := slices.Clone(me)
			from[d] -= disp
			want := -1.0 // untouched: nothing comes from ProcNull
			if r := rankAt(dims, periods, from); r >= 0 {
				want = value(r)
			}
			if got[0] != want {
				return fmt.Errorf("halo along %d by %d: got %v; want %v", d, disp, got[0], want)
			}
		}
	}
	return nil
}
