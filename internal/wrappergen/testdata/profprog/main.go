// Command profprog makes a known set of calls on two ranks, for the job
// test of the generated prof components it links: rank 0 sends three
// messages to rank 1, then both ranks call Barrier twice and Allreduce once.
package main

import (
	"fmt"
	"os"

	_ "github.com/gompi/gompi/components/all"
	_ "github.com/gompi/gompi/internal/wrappergen/testdata/gen/counter"
	_ "github.com/gompi/gompi/internal/wrappergen/testdata/gen/nested"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	if world.Size() != 2 {
		return fmt.Errorf("want 2 ranks, have %d", world.Size())
	}
	buf := make([]int32, 4)
	for tag := range 3 {
		var err error
		if world.Rank() == 0 {
			err = mpi.Send(buf, 1, tag, world)
		} else {
			_, err = mpi.Recv(buf, 0, tag, world)
		}
		if err != nil {
			return err
		}
	}
	for range 2 {
		if err := mpi.Barrier(world); err != nil {
			return err
		}
	}
	sum := make([]int64, 1)
	if err := mpi.Allreduce([]int64{1}, sum, mpi.Sum, world); err != nil {
		return err
	}
	if sum[0] != 2 {
		return fmt.Errorf("allreduce: sum %d, want 2", sum[0])
	}
	return mpi.Finalize()
}
