// Command statsprog makes exactly known traffic on 3 ranks for the stats
// tool's job test. The test finds the call sites by the "site:" marks at
// the ends of their lines, so keep one call per marked line.
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
		fmt.Fprintln(os.Stderr, "statsprog:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	rank := world.Rank()
	if world.Size() != 3 {
		return fmt.Errorf("want 3 ranks, have %d", world.Size())
	}

	// Phase 1: rank 0 sends 5 messages of 100 bytes to rank 1; in a
	// communicator of ranks 1 and 2 numbered backwards, world rank 2
	// sends 3 messages of 4 int32 to world rank 1.
	msg := make([]byte, 100)
	for range 5 {
		var err error
		switch rank {
		case 0:
			err = mpi.Send(msg, 1, 7, world) // site:send100
		case 1:
			_, err = mpi.Recv(msg, 0, 7, world) // site:recv100
		}
		if err != nil {
			return err
		}
	}
	sub, err := world.Split(min(rank, 1), -rank) // site:split
	if err != nil {
		return err
	}
	small := make([]int32, 4)
	for range 3 {
		switch {
		case rank == 2:
			err = mpi.Send(small, 1, 8, sub) // site:sendsub
		case rank == 1:
			_, err = mpi.Recv(small, 0, 8, sub) // site:recvsub
		}
		if err != nil {
			return err
		}
	}
	if err := mpi.Pcontrol(2); err != nil {
		return err
	}

	// Phase 2: two Allreduces of 8 float64, then traffic that must not
	// be counted.
	in, out := make([]float64, 8), make([]float64, 8)
	for range 2 {
		if err := mpi.Allreduce(in, out, mpi.Sum, world); err != nil { // site:allreduce
			return err
		}
	}
	if err := mpi.Pcontrol(0); err != nil {
		return err
	}
	for range 7 {
		switch rank {
		case 1:
			err = mpi.Send(msg, 2, 9, world)
		case 2:
			_, err = mpi.Recv(msg, 1, 9, world)
		}
		if err != nil {
			return err
		}
	}
	if err := mpi.Barrier(world); err != nil {
		return err
	}
	if err := mpi.Pcontrol(1); err != nil {
		return err
	}
	return mpi.Finalize()
}
