// Command stencil solves the 2-D heat equation on a plate whose top edge
// is held at 100 degrees and the other edges at 0, by Jacobi iteration
// until no cell changes by more than -tol, on a Cartesian grid of ranks
// that CartCreate makes. Each rank owns a block of the plate with a
// one-cell halo. Before every step one NeighborAlltoall swaps its four
// edges with the ranks above, below, left and right (none past the
// plate's edge, where the halo keeps the boundary). The convergence test
// is an Iallreduce of the largest change, started after a step and
// waited for after the next: the reduction runs while the rank computes,
// and the iteration stops one step after the first step whose change
// was small enough. At the end rank 0 gathers the plate and checks it
// against a serial run of the same iteration, cell by cell, to the bit
// (the largest change is exact in any order, so both stop at the same
// step).
//
//	gompirun -np 4 bin/stencil -nx 120 -ny 80 -tol 1e-3
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

const hot = 100 // the top edge's temperature

func main() {
	nx := flag.Int("nx", 96, "rows of the plate")
	ny := flag.Int("ny", 64, "columns of the plate")
	tol := flag.Float64("tol", 1e-3, "stop once no cell changes by more than this in a step")
	maxSteps := flag.Int("max-steps", 100000, "stop after this many steps whatever the change")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	ok, err := run(*nx, *ny, *tol, *maxSteps)
	if err != nil {
		log.Fatal(err)
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
	if !ok {
		os.Exit(1)
	}
}

// block is one rank's part of the plate: nx×ny cells inside a halo, row
// major, w = ny+2 wide.
type block struct {
	nx, ny, w int
	u, next   []float64
}

func newBlock(nx, ny int, top bool) *block {
	b := &block{nx: nx, ny: ny, w: ny + 2, u: make([]float64, (nx+2)*(ny+2)), next: make([]float64, (nx+2)*(ny+2))}
	if top {
		for j := 1; j <= ny; j++ {
			b.u[j], b.next[j] = hot, hot
		}
	}
	return b
}

func (b *block) at(i, j int) int { return i*b.w + j }

// step is one Jacobi step over the block's cells; it returns the largest
// change of a cell.
func (b *block) step() float64 {
	change := 0.0
	for i := 1; i <= b.nx; i++ {
		for j := 1; j <= b.ny; j++ {
			v := 0.25 * (b.u[b.at(i-1, j)] + b.u[b.at(i+1, j)] + b.u[b.at(i, j-1)] + b.u[b.at(i, j+1)])
			change = max(change, math.Abs(v-b.u[b.at(i, j)]))
			b.next[b.at(i, j)] = v
		}
	}
	b.u, b.next = b.next, b.u
	return change
}

// halo is a block's four edges in the order of the grid's neighbours:
// the row above, the row below, the column left, the column right. Each
// travels in a slot of the longer edge's length, as NeighborAlltoall's
// blocks are all one size.
type halo struct {
	slot       int
	send, recv []float64
}

func newHalo(b *block) *halo {
	slot := max(b.nx, b.ny)
	return &halo{slot: slot, send: make([]float64, 4*slot), recv: make([]float64, 4*slot)}
}

// edge visits the n cells of edge k of the block (0 top, 1 bottom, 2
// left, 3 right) as they lie inside (inner) or in the halo beside them.
func (b *block) edge(k int, inner bool, visit func(n, cell int)) {
	in := 0
	if inner {
		in = 1
	}
	switch k {
	case 0, 1:
		i := in
		if k == 1 {
			i = b.nx + 1 - in
		}
		for j := range b.ny {
			visit(j, b.at(i, j+1))
		}
	case 2, 3:
		j := in
		if k == 3 {
			j = b.ny + 1 - in
		}
		for i := range b.nx {
			visit(i, b.at(i+1, j))
		}
	}
}

// exchange fills the block's halo from its neighbours with one
// NeighborAlltoall. The halo of a missing neighbour keeps the boundary:
// its receive block is left as it was, so it is not copied in.
func exchange(b *block, h *halo, have [4]bool, grid mpi.Comm) error {
	for k := range 4 {
		b.edge(k, true, func(n, cell int) { h.send[k*h.slot+n] = b.u[cell] })
	}
	if err := mpi.NeighborAlltoall(h.send, h.recv, grid); err != nil {
		return err
	}
	for k := range 4 {
		if have[k] {
			b.edge(k, false, func(n, cell int) { b.u[cell] = h.recv[k*h.slot+n] })
		}
	}
	return nil
}

func run(nx, ny int, tol float64, maxSteps int) (bool, error) {
	world := mpi.CommWorld()
	dims := []int{0, 0}
	if err := mpi.DimsCreate(world.Size(), dims); err != nil {
		return false, err
	}
	if nx%dims[0] != 0 || ny%dims[1] != 0 {
		return false, fmt.Errorf("a %dx%d plate does not divide into the %dx%d grid of %d ranks", nx, ny, dims[0], dims[1], world.Size())
	}
	grid, err := mpi.CartCreate(world, dims, []bool{false, false}, true)
	if err != nil {
		return false, err
	}
	defer grid.Free()
	_, _, coords, err := grid.CartGet()
	if err != nil {
		return false, err
	}
	var have [4]bool // a neighbour above, below, left, right
	for d := range 2 {
		below, above, err := grid.CartShift(d, 1)
		if err != nil {
			return false, err
		}
		have[2*d], have[2*d+1] = below != mpi.ProcNull, above != mpi.ProcNull
	}
	b := newBlock(nx/dims[0], ny/dims[1], coords[0] == 0)
	h := newHalo(b)

	start := mpi.Wtime()
	steps := 0
	// The change of the step before, being reduced while this step runs.
	var pending mpi.Request
	reducing := false
	local, global := []float64{0}, []float64{0}
	for steps < maxSteps {
		if err := exchange(b, h, have, grid); err != nil {
			return false, err
		}
		change := b.step()
		steps++
		if reducing {
			reducing = false
			if _, err := pending.Wait(); err != nil {
				return false, err
			}
			if global[0] <= tol {
				break
			}
		}
		local[0] = change
		if pending, err = mpi.Iallreduce(local, global, mpi.Max, grid); err != nil {
			return false, err
		}
		reducing = true
	}
	if reducing {
		if _, err := pending.Wait(); err != nil {
			return false, err
		}
	}
	elapsed := mpi.Wtime() - start

	plate, err := gather(b, dims, coords, nx, ny, grid)
	if err != nil || grid.Rank() != 0 {
		return true, err
	}
	serial, serialSteps := serialRun(nx, ny, tol, maxSteps)
	var sum, want float64
	same := steps == serialSteps
	for i := range nx {
		for j := range ny {
			v, s := plate[i*ny+j], serial.u[serial.at(i+1, j+1)]
			sum, want = sum+v, want+s
			same = same && v == s
		}
	}
	verdict := "match"
	if !same {
		verdict = "MISMATCH"
	}
	fmt.Printf("stencil: %dx%d plate on %dx%d ranks, %d steps (serial %d) in %.3fs: checksum %.12g, serial %.12g: %s\n",
		nx, ny, dims[0], dims[1], steps, serialSteps, elapsed, sum, want, verdict)
	return same, nil
}

// serialRun is the parallel run's iteration on one plate: it stops one
// step after the first whose largest change is within tol, and returns
// the plate and its steps.
func serialRun(nx, ny int, tol float64, maxSteps int) (*block, int) {
	p := newBlock(nx, ny, true)
	last := math.Inf(1)
	for steps := 1; steps <= maxSteps; steps++ {
		change := p.step()
		if last <= tol {
			return p, steps
		}
		last = change
	}
	return p, maxSteps
}

// gather sends every rank's cells to rank 0 of grid, which receives each
// block into its place in the whole nx×ny plate with a subarray layout;
// it returns the plate at rank 0.
func gather(b *block, dims, coords []int, nx, ny int, grid mpi.Comm) ([]float64, error) {
	const tag = 1
	cells, err := mpi.Subarray[float64]([]int{b.nx + 2, b.w}, []int{b.nx, b.ny}, []int{1, 1}, mpi.OrderC)
	if err != nil {
		return nil, err
	}
	req, err := mpi.IsendLayout(b.u, 1, cells, 0, tag, grid)
	if err != nil {
		return nil, err
	}
	var plate []float64
	if grid.Rank() == 0 {
		plate = make([]float64, nx*ny)
		for r := range dims[0] * dims[1] {
			at, err := grid.CartCoords(r)
			if err != nil {
				return nil, err
			}
			place, err := mpi.Subarray[float64]([]int{nx, ny}, []int{b.nx, b.ny}, []int{at[0] * b.nx, at[1] * b.ny}, mpi.OrderC)
			if err != nil {
				return nil, err
			}
			if _, err := mpi.RecvLayout(plate, 1, place, r, tag, grid); err != nil {
				return nil, err
			}
		}
	}
	_, err = req.Wait()
	return plate, err
}
