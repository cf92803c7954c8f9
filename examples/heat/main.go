// Command heat solves the 2-D heat equation on a square plate whose top
// edge is held at 100 degrees and the other edges at 0, by Jacobi
// iteration over a grid of ranks: each rank owns a block of the plate
// with a one-cell halo, and before every step exchanges its edge rows
// with the ranks above and below (contiguous) and its edge columns with
// the ranks left and right, with a vector layout that picks one column
// of the row-major block. At the end each rank's block is gathered into
// rank 0's whole plate with subarray layouts, and rank 0 checks it
// against a serial run: every cell must be the same to the last bit.
//
//	gompirun -np 4 bin/heat -nx 120 -ny 80 -steps 500
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

const hot = 100 // the top edge's temperature

func main() {
	nx := flag.Int("nx", 96, "rows of the plate")
	ny := flag.Int("ny", 64, "columns of the plate")
	steps := flag.Int("steps", 200, "Jacobi steps")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	ok, err := run(*nx, *ny, *steps)
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

// grid is the process grid: pr rows of pc ranks, rank r at row r/pc,
// column r%pc, as square as the number of ranks allows.
type grid struct{ pr, pc int }

func gridOf(size int) grid {
	pr := 1
	for d := 1; d*d <= size; d++ {
		if size%d == 0 {
			pr = d
		}
	}
	return grid{pr, size / pr}
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

// step is one Jacobi step over the block's cells.
func (b *block) step() {
	for i := 1; i <= b.nx; i++ {
		for j := 1; j <= b.ny; j++ {
			b.next[b.at(i, j)] = 0.25 * (b.u[b.at(i-1, j)] + b.u[b.at(i+1, j)] + b.u[b.at(i, j-1)] + b.u[b.at(i, j+1)])
		}
	}
	b.u, b.next = b.next, b.u
}

func run(nx, ny, steps int) (bool, error) {
	world := mpi.CommWorld()
	rank, size := world.Rank(), world.Size()
	g := gridOf(size)
	if nx%g.pr != 0 || ny%g.pc != 0 {
		return false, fmt.Errorf("a %dx%d plate does not divide into the %dx%d grid of %d ranks", nx, ny, g.pr, g.pc, size)
	}
	row, col := rank/g.pc, rank%g.pc
	b := newBlock(nx/g.pr, ny/g.pc, row == 0)
	up, down, left, right := mpi.ProcNull, mpi.ProcNull, mpi.ProcNull, mpi.ProcNull
	if row > 0 {
		up = rank - g.pc
	}
	if row < g.pr-1 {
		down = rank + g.pc
	}
	if col > 0 {
		left = rank - 1
	}
	if col < g.pc-1 {
		right = rank + 1
	}
	// One column of the block's cells: b.nx numbers, a row apart.
	column, err := mpi.Vector[float64](b.nx, 1, b.w)
	if err != nil {
		return false, err
	}
	start := mpi.Wtime()
	for range steps {
		if err := exchange(b, column, up, down, left, right, world); err != nil {
			return false, err
		}
		b.step()
	}
	elapsed := mpi.Wtime() - start

	plate, err := gather(b, g, nx, ny, world)
	if err != nil || rank != 0 {
		return true, err
	}
	serial := newBlock(nx, ny, true)
	for range steps {
		serial.step()
	}
	var sum, want float64
	same := true
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
	fmt.Printf("heat: %dx%d plate on %dx%d ranks, %d steps in %.3fs: checksum %.12g, serial %.12g: %s\n",
		nx, ny, g.pr, g.pc, steps, elapsed, sum, want, verdict)
	return same, nil
}

// exchange fills the block's halo from its neighbours (ProcNull at the
// plate's edges, where the halo keeps the boundary): rows as plain
// slices, columns through the column layout.
func exchange(b *block, column mpi.Layout[float64], up, down, left, right int, comm mpi.Comm) error {
	const tag = 0
	first, last := b.u[b.at(1, 1):b.at(1, b.ny+1)], b.u[b.at(b.nx, 1):b.at(b.nx, b.ny+1)]
	above, below := b.u[b.at(0, 1):b.at(0, b.ny+1)], b.u[b.at(b.nx+1, 1):b.at(b.nx+1, b.ny+1)]
	if _, err := mpi.Sendrecv(first, up, tag, below, down, tag, comm); err != nil {
		return err
	}
	if _, err := mpi.Sendrecv(last, down, tag, above, up, tag, comm); err != nil {
		return err
	}
	// Column 1 goes left while column ny+1 comes from the right, and back.
	if _, err := mpi.SendrecvLayout(b.u[b.at(1, 1):], 1, column, left, tag,
		b.u[b.at(1, b.ny+1):], 1, column, right, tag, comm); err != nil {
		return err
	}
	_, err := mpi.SendrecvLayout(b.u[b.at(1, b.ny):], 1, column, right, tag,
		b.u[b.at(1, 0):], 1, column, left, tag, comm)
	return err
}

// gather sends every rank's cells to rank 0, which receives each block
// into its place in the whole nx×ny plate with a subarray layout; it
// returns the plate at rank 0.
func gather(b *block, g grid, nx, ny int, comm mpi.Comm) ([]float64, error) {
	const tag = 1
	cells, err := mpi.Subarray[float64]([]int{b.nx + 2, b.w}, []int{b.nx, b.ny}, []int{1, 1}, mpi.OrderC)
	if err != nil {
		return nil, err
	}
	req, err := mpi.IsendLayout(b.u, 1, cells, 0, tag, comm)
	if err != nil {
		return nil, err
	}
	var plate []float64
	if comm.Rank() == 0 {
		plate = make([]float64, nx*ny)
		for r := range g.pr * g.pc {
			place, err := mpi.Subarray[float64]([]int{nx, ny}, []int{b.nx, b.ny}, []int{r / g.pc * b.nx, r % g.pc * b.ny}, mpi.OrderC)
			if err != nil {
				return nil, err
			}
			if _, err := mpi.RecvLayout(plate, 1, place, r, tag, comm); err != nil {
				return nil, err
			}
		}
	}
	_, err = req.Wait()
	return plate, err
}
