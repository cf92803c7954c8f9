package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

func init() { scenarios["ddt-collv"] = ddtCollv }

// ddtCollv moves columns of row-major grids with the layout forms of the
// collectives that take per-rank counts, of the scans and reduce-scatters,
// and of the neighbourhood collectives. A column layout resized to one
// number makes element k of the layout column k, so counts count columns
// and displacements are column indices. Element (i, j) of rank r's grid
// is 1000r + 10i + j; a column no call should touch holds -1.
func ddtCollv(w mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	const rows = 4
	value := func(r, i, j int) float64 { return float64(1000*r + 10*i + j) }
	gridOf := func(r, width int) []float64 {
		g := make([]float64, rows*width)
		for i := range rows {
			for j := range width {
				g[i*width+j] = value(r, i, j)
			}
		}
		return g
	}
	blank := func(width int) []float64 {
		g := make([]float64, rows*width)
		for i := range g {
			g[i] = -1
		}
		return g
	}
	columns := func(width int) (mpi.Layout[float64], error) {
		c, err := mpi.Vector[float64](rows, 1, width)
		if err != nil {
			return c, err
		}
		return c.Resized(0, 8)
	}
	// check compares column j of got (width wide) with want(i).
	check := func(what string, got []float64, width, j int, want func(i int) float64) error {
		for i := range rows {
			if g, w := got[i*width+j], want(i); g != w {
				return fmt.Errorf("%s: (%d,%d) = %v, want %v", what, i, j, g, w)
			}
		}
		return nil
	}
	col2, err := columns(2)
	if err != nil {
		return err
	}

	// Gatherv and Allgatherv: rank r sends r%2+1 columns, placed after a
	// gap column that stays -1.
	cnt := func(r int) int { return r%2 + 1 }
	counts, displs := make([]int, n), make([]int, n)
	total := 0
	for r := range n {
		counts[r], displs[r] = cnt(r), total+1
		total += cnt(r) + 1
	}
	colT, err := columns(total)
	if err != nil {
		return err
	}
	placed := func(what string, got []float64) error {
		for r := range n {
			if err := check(what+" gap", got, total, displs[r]-1, func(int) float64 { return -1 }); err != nil {
				return err
			}
			for k := range counts[r] {
				if err := check(what, got, total, displs[r]+k, func(i int) float64 { return value(r, i, k) }); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var rooted []float64
	if me == 0 {
		rooted = blank(total)
	}
	if err := mpi.GathervLayout(gridOf(me, 2), cnt(me), col2, rooted, counts, displs, colT, 0, w); err != nil {
		return fmt.Errorf("gatherv of columns: %w", err)
	}
	if me == 0 {
		if err := placed("gatherv", rooted); err != nil {
			return err
		}
	}
	all := blank(total)
	if err := mpi.AllgathervLayout(gridOf(me, 2), cnt(me), col2, all, counts, displs, colT, w); err != nil {
		return fmt.Errorf("allgatherv of columns: %w", err)
	}
	if err := placed("allgatherv", all); err != nil {
		return err
	}
	back := blank(2)
	if err := mpi.ScattervLayout(rooted, counts, displs, colT, back, cnt(me), col2, 0, w); err != nil {
		return fmt.Errorf("scatterv of columns: %w", err)
	}
	for j := range 2 {
		want := func(i int) float64 { return value(me, i, j) }
		if j >= cnt(me) {
			want = func(int) float64 { return -1 }
		}
		if err := check("scatterv", back, 2, j, want); err != nil {
			return err
		}
	}

	// Gatherv and Allgatherv of runs of three numbers into one row, their
	// layout resized to one number so that displacements count numbers,
	// as a grid's blocks gathered at their corners' offsets are: the
	// elements between the blocks, never received, share numbers with
	// the blocks and must not be written back over them.
	run3, err := mpi.Contiguous[float64](3)
	if err != nil {
		return err
	}
	if run3, err = run3.Resized(0, 8); err != nil {
		return err
	}
	ones, at3 := make([]int, n), make([]int, n)
	for r := range n {
		ones[r], at3[r] = 1, 3*r
	}
	runOf := func(r int) []float64 { return []float64{value(r, 0, 0), value(r, 0, 1), value(r, 0, 2)} }
	inRow := func(what string, got []float64) error {
		for r := range n {
			for k, v := range runOf(r) {
				if got[3*r+k] != v {
					return fmt.Errorf("%s of runs: number %d = %v, want %v", what, 3*r+k, got[3*r+k], v)
				}
			}
		}
		return nil
	}
	var row []float64
	if me == 0 {
		row = make([]float64, 3*n)
	}
	if err := mpi.GathervLayout(runOf(me), 3, mpi.LayoutOf[float64](), row, ones, at3, run3, 0, w); err != nil {
		return fmt.Errorf("gatherv of runs: %w", err)
	}
	if me == 0 {
		if err := inRow("gatherv", row); err != nil {
			return err
		}
	}
	row = make([]float64, 3*n)
	if err := mpi.AllgathervLayout(runOf(me), 3, mpi.LayoutOf[float64](), row, ones, at3, run3, w); err != nil {
		return fmt.Errorf("allgatherv of runs: %w", err)
	}
	if err := inRow("allgatherv", row); err != nil {
		return err
	}

	// Alltoallv: rank a sends rank b 1+(a+b)%2 columns from column 2b of
	// its rows×2n grid, into column 2a of b's.
	pair := func(a, b int) int { return 1 + (a+b)%2 }
	col2n, err := columns(2 * n)
	if err != nil {
		return err
	}
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	for r := range n {
		sc[r], sd[r], rc[r], rd[r] = pair(me, r), 2*r, pair(r, me), 2*r
	}
	got := blank(2 * n)
	if err := mpi.AlltoallvLayout(gridOf(me, 2*n), sc, sd, col2n, got, rc, rd, col2n, w); err != nil {
		return fmt.Errorf("alltoallv of columns: %w", err)
	}
	for r := range n {
		for k := range 2 {
			want := func(i int) float64 { return value(r, i, 2*me+k) }
			if k >= pair(r, me) {
				want = func(int) float64 { return -1 }
			}
			if err := check(fmt.Sprintf("alltoallv from rank %d", r), got, 2*n, 2*r+k, want); err != nil {
				return err
			}
		}
	}

	// Scan and Exscan of two columns.
	sum := func(from, to, i, j int) float64 {
		s := 0.0
		for r := from; r < to; r++ {
			s += value(r, i, j)
		}
		return s
	}
	scanned, exscanned := blank(2), blank(2)
	if err := mpi.ScanLayout(gridOf(me, 2), scanned, 2, col2, mpi.Sum, w); err != nil {
		return fmt.Errorf("scan of columns: %w", err)
	}
	if err := mpi.ExscanLayout(gridOf(me, 2), exscanned, 2, col2, mpi.Sum, w); err != nil {
		return fmt.Errorf("exscan of columns: %w", err)
	}
	for j := range 2 {
		if err := check("scan", scanned, 2, j, func(i int) float64 { return sum(0, me+1, i, j) }); err != nil {
			return err
		}
		want := func(i int) float64 { return sum(0, me, i, j) }
		if me == 0 {
			want = func(int) float64 { return -1 }
		}
		if err := check("exscan", exscanned, 2, j, want); err != nil {
			return err
		}
	}

	// ReduceScatterBlock: column r of the sum goes to rank r, into
	// column 0; ReduceScatter: rank r gets r%2+1 columns.
	colN, err := columns(n)
	if err != nil {
		return err
	}
	block := blank(n)
	if err := mpi.ReduceScatterBlockLayout(gridOf(me, n), block, 1, colN, mpi.Sum, w); err != nil {
		return fmt.Errorf("reduce scatter block of columns: %w", err)
	}
	if err := check("reduce scatter block", block, n, 0, func(i int) float64 { return sum(0, n, i, me) }); err != nil {
		return err
	}
	width, from := 0, 0
	for r := range n {
		if r == me {
			from = width
		}
		width += cnt(r)
	}
	colW, err := columns(width)
	if err != nil {
		return err
	}
	part := blank(width)
	if err := mpi.ReduceScatterLayout(gridOf(me, width), part, counts, colW, mpi.Sum, w); err != nil {
		return fmt.Errorf("reduce scatter of columns: %w", err)
	}
	for k := range cnt(me) {
		if err := check("reduce scatter", part, width, k, func(i int) float64 { return sum(0, n, i, from+k) }); err != nil {
			return err
		}
	}

	// On a ring: column 0 goes to the rank below, column 1 above.
	ring, err := mpi.CartCreate(w, []int{n}, []bool{true}, false)
	if err != nil {
		return err
	}
	defer ring.Free()
	below, above := (me+n-1)%n, (me+1)%n
	swapped := blank(2)
	if err := mpi.NeighborAlltoallLayout(gridOf(me, 2), 1, col2, swapped, 1, col2, ring); err != nil {
		return fmt.Errorf("neighbor alltoall of columns: %w", err)
	}
	if err := check("neighbor alltoall from below", swapped, 2, 0, func(i int) float64 { return value(below, i, 1) }); err != nil {
		return err
	}
	if err := check("neighbor alltoall from above", swapped, 2, 1, func(i int) float64 { return value(above, i, 0) }); err != nil {
		return err
	}
	gathered := blank(2)
	if err := mpi.NeighborAllgatherLayout(gridOf(me, 2)[1:], 1, col2, gathered, 1, col2, ring); err != nil {
		return fmt.Errorf("neighbor allgather of columns: %w", err)
	}
	for j, r := range []int{below, above} {
		if err := check("neighbor allgather", gathered, 2, j, func(i int) float64 { return value(r, i, 1) }); err != nil {
			return err
		}
	}
	vgot := blank(3)
	col3, err := columns(3)
	if err != nil {
		return err
	}
	if err := mpi.NeighborAllgathervLayout(gridOf(me, 2)[1:], 1, col2, vgot, []int{1, 1}, []int{2, 0}, col3, ring); err != nil {
		return fmt.Errorf("neighbor allgatherv of columns: %w", err)
	}
	for j, r := range map[int]int{2: below, 0: above} {
		if err := check("neighbor allgatherv", vgot, 3, j, func(i int) float64 { return value(r, i, 1) }); err != nil {
			return err
		}
	}
	vswap := blank(2)
	if err := mpi.NeighborAlltoallvLayout(gridOf(me, 2), []int{1, 1}, []int{1, 0}, col2, vswap, []int{1, 1}, []int{1, 0}, col2, ring); err != nil {
		return fmt.Errorf("neighbor alltoallv of columns: %w", err)
	}
	// Column 1 went below and column 0 above; they land in columns 1
	// (from below) and 0 (from above).
	if err := check("neighbor alltoallv from below", vswap, 2, 1, func(i int) float64 { return value(below, i, 0) }); err != nil {
		return err
	}
	return check("neighbor alltoallv from above", vswap, 2, 0, func(i int) float64 { return value(above, i, 1) })
}
