// Command typesprog builds, uses and frees a derived datatype, packs
// with it, builds a darray and fills an Info, on 3 ranks, for the stats
// tool's job test: each of those calls passes through the profiling
// stack once per call, and a send with the layout is one Send.
package main

import (
	"fmt"
	"os"

	_ "github.com/gompi/gompi/components/all"
	_ "github.com/gompi/gompi/components/prof/stats"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "typesprog:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	rank, size := world.Rank(), world.Size()
	if size != 3 {
		return fmt.Errorf("want 3 ranks, have %d", size)
	}
	right, left := (rank+1)%size, (rank+size-1)%size

	// A column of a 4×3 grid: Type_vector and Type_commit.
	col, err := mpi.Vector[float64](4, 1, 3)
	if err != nil {
		return err
	}
	grid := make([]float64, 12)
	for i := range grid {
		grid[i] = float64(100*rank + i)
	}
	// Pack and Unpack of its 32 bytes.
	n, err := mpi.PackSize(1, col)
	if err != nil {
		return err
	}
	packed := make([]byte, n)
	if _, err := mpi.Pack(grid, 1, col, packed, 0); err != nil {
		return err
	}
	back := make([]float64, 12)
	if _, err := mpi.Unpack(packed, 0, back, 1, col); err != nil {
		return err
	}
	if back[9] != grid[9] || back[1] != 0 {
		return fmt.Errorf("unpacked %v from %v", back, grid)
	}
	// One Send of 32 bytes with the layout.
	recv := make([]float64, 12)
	r, err := mpi.IrecvLayout(recv, 1, col, left, 0, world)
	if err != nil {
		return err
	}
	if err := mpi.SendLayout(grid, 1, col, right, 0, world); err != nil {
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	if want := float64(100*left + 3); recv[3] != want {
		return fmt.Errorf("received %v from rank %d, want %v at 3", recv, left, want)
	}
	// Type_dup, and two Type_free.
	dup, err := col.Dup()
	if err != nil {
		return err
	}
	if err := dup.Free(); err != nil {
		return err
	}
	if err := col.Free(); err != nil {
		return err
	}

	// This rank's rows of a 7×2 array dealt out by blocks of 3, the last
	// rank's short: Type_create_darray, Type_commit and a third Type_free.
	mine, err := mpi.Darray[float64](size, rank, []int{7, 2}, []mpi.Distribution{mpi.DistributeBlock, mpi.DistributeNone},
		[]int{mpi.DistributeDefaultDarg, mpi.DistributeDefaultDarg}, []int{size, 1}, mpi.OrderC)
	if err != nil {
		return err
	}
	if want := []int{3, 3, 1}[rank] * 2 * 8; mine.Size() != want {
		return fmt.Errorf("rank %d's darray holds %d bytes, want %d", rank, mine.Size(), want)
	}
	if err := mine.Free(); err != nil {
		return err
	}

	// Info_create, two Info_set, an Info_get_string and Info_free.
	info := mpi.InfoCreate()
	if err := info.Set("a", "1"); err != nil {
		return err
	}
	if err := info.Set("b", "2"); err != nil {
		return err
	}
	if v, ok, err := info.Get("a"); v != "1" || !ok || err != nil {
		return fmt.Errorf("info get a: %q, %v, %v; want 1", v, ok, err)
	}
	if err := info.Free(); err != nil {
		return err
	}
	return mpi.Finalize()
}
