// Command pi estimates pi by integrating 4/(1+x²) over [0, 1], the classic
// first MPI program: rank 0 broadcasts the number of intervals, each rank
// sums its share, and a reduction adds the shares. It then runs a
// collective on a split communicator. Which coll component serves each
// collective on each communicator is in the coll framework's log:
//
//	gompirun -np 4 bin/pi -n 10000000
//	gompirun -np 4 --mca coll_base_verbose debug bin/pi
package main

import (
	"flag"
	"fmt"
	"log"
	"math"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of intervals")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	if err := run(*n); err != nil {
		log.Fatal(err)
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}

func run(n int) error {
	world := mpi.CommWorld()
	rank, size := world.Rank(), world.Size()
	intervals := []int64{int64(n)}
	if err := mpi.Bcast(intervals, 0, world); err != nil {
		return err
	}
	start := mpi.Wtime()
	h := 1 / float64(intervals[0])
	sum := 0.0
	for i := int64(rank); i < intervals[0]; i += int64(size) {
		x := h * (float64(i) + 0.5)
		sum += 4 / (1 + x*x)
	}
	pi := make([]float64, 1)
	if err := mpi.Reduce([]float64{h * sum}, pi, mpi.Sum, 0, world); err != nil {
		return err
	}
	elapsed := mpi.Wtime() - start

	// Halves of the job, each with its own communicator: the maximum rank
	// of each half, computed on the half.
	half, err := world.Split(rank%2, rank)
	if err != nil {
		return err
	}
	defer half.Free()
	top := []int{rank}
	if err := mpi.AllreduceInPlace(top, mpi.Max, half); err != nil {
		return err
	}

	if rank == 0 {
		fmt.Printf("pi is about %.12f, error %.2e, %d intervals on %d ranks in %.3f ms\n",
			pi[0], math.Abs(pi[0]-math.Pi), intervals[0], size, elapsed*1e3)
		fmt.Printf("highest rank of %s among the even ranks: %d\n", half.Name(), top[0])
	}
	return nil
}
