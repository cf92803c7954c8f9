package pmpi

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// cartTopo is a Cartesian grid. A rank's coordinates are its rank in
// row-major order: the last dimension varies fastest.
type cartTopo struct {
	dims    []int
	periods []bool
}

func (t *cartTopo) coords(rank int) []int {
	c := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		c[i] = rank % t.dims[i]
		rank /= t.dims[i]
	}
	return c
}

// rank is the rank at coords, which must be in range.
func (t *cartTopo) rank(coords []int) int {
	r := 0
	for i, x := range coords {
		r = r*t.dims[i] + x
	}
	return r
}

// wrap brings x into dimension d's range, cyclically if d is periodic;
// ok is false for x outside a non-periodic dimension.
func (t *cartTopo) wrap(d, x int) (int, bool) {
	n := t.dims[d]
	if t.periods[d] {
		return ((x % n) + n) % n, true
	}
	return x, x >= 0 && x < n
}

// checkGrid checks a grid's dims and periods against comm and returns
// its number of places; the error is not handled yet.
func checkGrid(op string, comm *Comm, dims []int, periods []bool) (int, error) {
	if len(periods) != len(dims) {
		return 0, errorf(ClassArg, nil, "%s on %v: %d dims and %d periods (want one period per dimension)", op, comm, len(dims), len(periods))
	}
	nnodes := 1
	for i, d := range dims {
		if d <= 0 {
			return 0, errorf(ClassDims, nil, "%s on %v: dims[%d] is %d (want a positive size; DimsCreate fills zeros)", op, comm, i, d)
		}
		if nnodes *= d; nnodes > comm.Size() {
			break
		}
	}
	if nnodes > comm.Size() {
		return 0, errorf(ClassDims, nil, "%s on %v: the grid %v has more places than the communicator's %d ranks (want a product of dims of at most %d)", op, comm, dims, comm.Size(), comm.Size())
	}
	return nnodes, nil
}

// cartArgs are what the ranks of CartCreate pass alike: dims and periods,
// compared across the ranks with the group they give.
func cartArgs(dims []int, periods []bool) sameArgs {
	values := append(make([]int, 0, 1+len(dims)+len(periods)), len(dims))
	values = append(values, dims...)
	for _, p := range periods {
		v := 0
		if p {
			v = 1
		}
		values = append(values, v)
	}
	return sameArgs{names: "dims and periods", alike: true, values: values}
}

// CartCreate makes a communicator with a Cartesian grid of dims, periodic
// in the dimensions periods says, of comm's first ranks: the ranks beyond
// the grid get nil. reorder true places the ranks by host (see
// hostOrder), so that grid neighbours share a host; with one host it
// keeps comm's order. Every rank of comm calls it alike.
func (*realAPI) CartCreate(comm *Comm, dims []int, periods []bool, reorder bool) (*Comm, error) {
	const op = "cart create"
	l, err := topoArgs(op, comm)
	if err != nil {
		return nil, err
	}
	nnodes, own := checkGrid(op, comm, dims, periods)
	var group []int
	if own == nil {
		group = make([]int, 0, nnodes)
		for _, r := range l.placement(comm, nnodes, reorder) {
			group = append(group, comm.group[r])
		}
	}
	t := &topology{cart: &cartTopo{dims: slices.Clone(dims), periods: slices.Clone(periods)}}
	return l.topoComm(comm, op, "cart", cartArgs(dims, periods), group, t, own)
}

// CartMap returns the rank this process would have in the grid CartCreate
// makes with reorder true, or Undefined if it would have none.
func (*realAPI) CartMap(comm *Comm, dims []int, periods []bool) (int, error) {
	const op = "cart map"
	l, err := topoArgs(op, comm)
	if err != nil {
		return Undefined, err
	}
	nnodes, err := checkGrid(op, comm, dims, periods)
	if err != nil {
		return Undefined, comm.handle(err)
	}
	if i := slices.Index(l.placement(comm, nnodes, true), comm.rank); i >= 0 {
		return i, nil
	}
	return Undefined, nil
}

// CartdimGet returns the number of dimensions of comm's grid.
func (*realAPI) CartdimGet(comm *Comm) (int, error) {
	t, err := topoOf("cartdim get", comm, Cart)
	if err != nil {
		return 0, err
	}
	return len(t.cart.dims), nil
}

// CartGet returns comm's grid: its dims, its periods, and this rank's
// coordinates.
func (*realAPI) CartGet(comm *Comm) ([]int, []bool, []int, error) {
	t, err := topoOf("cart get", comm, Cart)
	if err != nil {
		return nil, nil, nil, err
	}
	return slices.Clone(t.cart.dims), slices.Clone(t.cart.periods), t.cart.coords(comm.rank), nil
}

// CartRank returns the rank at coords. A coordinate outside a periodic
// dimension wraps round; outside a non-periodic one it is an error.
func (*realAPI) CartRank(comm *Comm, coords []int) (int, error) {
	const op = "cart rank"
	t, err := topoOf(op, comm, Cart)
	if err != nil {
		return ProcNull, err
	}
	g := t.cart
	if len(coords) != len(g.dims) {
		return ProcNull, comm.handle(errorf(ClassArg, nil, "%s on %v: %d coords for a grid of %d dimensions (want one per dimension)", op, comm, len(coords), len(g.dims)))
	}
	in := make([]int, len(coords))
	for d, x := range coords {
		var ok bool
		if in[d], ok = g.wrap(d, x); !ok {
			return ProcNull, comm.handle(errorf(ClassArg, nil, "%s on %v: coords[%d] is %d, outside the non-periodic dimension %d (want 0 to %d)", op, comm, d, x, d, g.dims[d]-1))
		}
	}
	return g.rank(in), nil
}

// CartCoords returns the coordinates of rank in comm's grid.
func (*realAPI) CartCoords(comm *Comm, rank int) ([]int, error) {
	const op = "cart coords"
	t, err := topoOf(op, comm, Cart)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= comm.Size() {
		return nil, comm.handle(errorf(ClassRank, nil, "%s on %v: rank %d is out of range (0 to %d)", op, comm, rank, comm.Size()-1))
	}
	return t.cart.coords(rank), nil
}

// CartShift returns the ranks disp steps back (source) and forward
// (dest) of this rank along dimension direction: the ranks a shift by
// disp receives from and sends to. Past the edge of a non-periodic
// dimension they are ProcNull.
func (*realAPI) CartShift(comm *Comm, direction, disp int) (int, int, error) {
	const op = "cart shift"
	t, err := topoOf(op, comm, Cart)
	if err != nil {
		return ProcNull, ProcNull, err
	}
	g := t.cart
	if direction < 0 || direction >= len(g.dims) {
		return ProcNull, ProcNull, comm.handle(errorf(ClassDims, nil, "%s on %v: direction %d is out of range (want 0 to %d, the grid's dimensions)", op, comm, direction, len(g.dims)-1))
	}
	at := func(x int) int {
		c := g.coords(comm.rank)
		var ok bool
		if c[direction], ok = g.wrap(direction, x); !ok {
			return ProcNull
		}
		return g.rank(c)
	}
	here := g.coords(comm.rank)[direction]
	return at(here - disp), at(here + disp), nil
}

// CartSub cuts comm's grid into the sub-grids of the dimensions where
// remain is true: each rank gets the communicator of the ranks that share
// its coordinates in the other dimensions, with a grid of the remaining
// ones. Every rank of comm calls it with the same remain; ranks that
// pass different ones all fail, as do all when one passes a remain of
// the wrong length.
func (*realAPI) CartSub(comm *Comm, remain []bool) (*Comm, error) {
	const op = "cart sub"
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	t, err := topoOf(op, comm, Cart)
	if err != nil {
		return nil, err
	}
	g := t.cart
	check := splitCheck{
		bad:  func(_, n int64) string { return fmt.Sprintf("a remain of length %d", n) },
		want: fmt.Sprintf("want one entry per dimension of the grid, %d, at every rank", len(g.dims)),
	}
	sub := &cartTopo{}
	color, key := 0, 0
	ok := len(remain) == len(g.dims)
	if !ok {
		// Every rank then fails, on the split's exchange, naming this one.
		color, key = badArgs, len(remain)
		check.own = errorf(ClassArg, nil, "%s on %v: remain has %d entries for a grid of %d dimensions (want one per dimension)", op, comm, len(remain), len(g.dims))
	} else {
		for d, x := range g.coords(comm.rank) {
			if remain[d] {
				key = key*g.dims[d] + x
				sub.dims = append(sub.dims, g.dims[d])
				sub.periods = append(sub.periods, g.periods[d])
			} else {
				color = color*g.dims[d] + x
			}
		}
	}
	// remain rides in the split's record, a byte per dimension (zeros
	// for a remain of the wrong length), so that ranks passing
	// different ones fail together rather than split inconsistently.
	mine := colorOf(color, key, len(g.dims))
	for d := range g.dims {
		mine = append(mine, boolByte(ok && remain[d]))
	}
	c, err := l.splitRecords(comm, op, comm.Name()+".sub", mine, check, func(all []byte) error {
		return remainsDiffer(op, comm, all, len(mine))
	})
	if err != nil || c == nil {
		return nil, err
	}
	c.topo = &topology{cart: sub}
	return c, nil
}

// boolByte is b as a byte of a record: 1 for true.
func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// remainsDiffer is the error of a CartSub whose records (size bytes
// each: a color and key, then remain a byte per dimension) show ranks
// that passed a remain other than rank 0's, naming the first few; nil
// if every rank passed rank 0's.
func remainsDiffer(op string, comm *Comm, all []byte, size int) error {
	remainOf := func(r int) []byte { return all[size*r+colorRecord : size*(r+1)] }
	show := func(b []byte) string {
		v := make([]bool, len(b))
		for i, x := range b {
			v[i] = x != 0
		}
		return fmt.Sprint(v)
	}
	const shown = 3
	var bad []string
	others := 0
	for r := 1; r < len(all)/size; r++ {
		if bytes.Equal(remainOf(r), remainOf(0)) {
			continue
		}
		if others++; others <= shown {
			bad = append(bad, fmt.Sprintf("rank %d passed remain %s", r, show(remainOf(r))))
		}
	}
	if others == 0 {
		return nil
	}
	if others > shown {
		bad = append(bad, fmt.Sprintf("%s passed other values", moreRanks(others-shown)))
	}
	return errorf(ClassArg, nil, "%s on %v: %s where rank 0 passed %s (MPI requires the same remain at every rank)",
		op, comm, strings.Join(bad, ", "), show(remainOf(0)))
}
