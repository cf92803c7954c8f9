// Command nbcprog makes known non-blocking, persistent and neighbourhood
// collective calls on 3 ranks, for the stats tool's job test: an
// Iallreduce and an Ibcast, an AllreduceInit started twice, an
// Alltoallw, and a NeighborAllgather, an IneighborAlltoall and a
// NeighborAlltoallw on a non-periodic line of the 3 ranks.
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
	// Alltoallw: rank r sends rank j j+1 int64s, whatever r.
	me, i64 := world.Rank(), mpi.TypeOf[int64]()
	counts, displs, rcounts, rdispls := make([]int, 3), make([]int, 3), make([]int, 3), make([]int, 3)
	types := []mpi.Datatype{i64, i64, i64}
	for j := range 3 {
		counts[j], displs[j], rcounts[j], rdispls[j] = j+1, 8*j*(j+1)/2, me+1, 8*j*(me+1)
	}
	if err := mpi.Alltoallw(make([]int64, 6), counts, displs, types, make([]int64, 3*(me+1)), rcounts, rdispls, types, world); err != nil {
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
	// NeighborAlltoallw: one int64 to each neighbour on the line.
	both, nbTypes := make([]int, 2), []mpi.Datatype{i64, i64}
	for k, nb := range []int{me - 1, me + 1} {
		if nb >= 0 && nb < 3 {
			both[k] = 1
		}
	}
	if err := mpi.NeighborAlltoallw(make([]int64, 2), both, []int{0, 8}, nbTypes, make([]int64, 2), both, []int{0, 8}, nbTypes, line); err != nil {
		return err
	}
	if err := line.Free(); err != nil {
		return err
	}
	return mpi.Finalize()
}
