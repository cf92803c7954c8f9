// Command nbcprog makes known non-blocking, persistent and neighbourhood
// collective calls on 3 ranks, for the stats tool's job test: an
// Iallreduce and an Ibcast, an AllreduceInit started twice, and a
// NeighborAllgather and an IneighborAlltoall on a non-periodic line of
// the 3 ranks.
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
		fmt.Fprintln(os.Stderr, "nbcprog:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	if world.Size() != 3 {
		return fmt.Errorf("want 3 ranks, have %d", world.Size())
	}
	sum := make([]float64, 8)
	r1, err := mpi.Iallreduce(make([]float64, 8), sum, mpi.Sum, world)
	if err != nil {
		return err
	}
	r2, err := mpi.Ibcast(make([]int32, 4), 0, world)
	if err != nil {
		return err
	}
	if err := mpi.WaitAll(r1, r2); err != nil {
		return err
	}
	p, err := mpi.AllreduceInit(make([]float64, 2), make([]float64, 2), mpi.Sum, world)
	if err != nil {
		return err
	}
	for range 2 {
		if err := p.Start(); err != nil {
			return err
		}
		if _, err := p.Wait(); err != nil {
			return err
		}
	}
	if err := p.Free(); err != nil {
		return err
	}
	line, err := mpi.CartCreate(world, []int{3}, []bool{false}, false)
	if err != nil {
		return err
	}
	if err := mpi.NeighborAllgather(make([]int64, 4), make([]int64, 8), line); err != nil {
		return err
	}
	r, err := mpi.IneighborAlltoall(make([]int64, 6), make([]int64, 6), line)
	if err != nil {
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	if err := line.Free(); err != nil {
		return err
	}
	return mpi.Finalize()
}
