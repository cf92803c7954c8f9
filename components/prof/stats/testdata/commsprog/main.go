// Command commsprog makes known calls on several communicators of 3
// ranks, for the stats tool's job test of its per-communicator table:
// world, the two halves of a Split named apart, a Dup freed before the
// end, a Dup kept, and an Idup's communicator.
package main

import (
	"errors"
	"fmt"
	"os"

	_ "github.com/gompi/gompi/components/all"
	_ "github.com/gompi/gompi/components/prof/stats"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "commsprog:", err)
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
	// On world: a Barrier, a Split, two Dups and an Idup (which count on
	// their parent).
	if err := mpi.Barrier(world); err != nil {
		return err
	}
	half, err := world.Split(rank%2, 0)
	if err != nil {
		return err
	}
	kept, err := world.Dup()
	if err != nil {
		return err
	}
	freed, err := world.Dup()
	if err != nil {
		return err
	}
	idup, r, err := world.Idup()
	if err != nil {
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	name := map[int]string{0: "evens", 1: "odds"}[rank%2]
	if err := errors.Join(half.SetName(name), kept.SetName("kept"), freed.SetName("freed"), idup.SetName("idupped")); err != nil {
		return err
	}

	// Two Allreduces of 4 int64 (32 bytes) on each half: ranks 0 and 2
	// send 32 bytes to each other per call; rank 1 is alone.
	sum := make([]int64, 4)
	for range 2 {
		if err := mpi.Allreduce(make([]int64, 4), sum, mpi.Sum, half); err != nil {
			return err
		}
	}
	// Three Barriers on kept; one Barrier on idupped.
	for range 3 {
		if err := mpi.Barrier(kept); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(idup); err != nil {
		return err
	}
	// A Bcast of 2 float64 (16 bytes) from rank 0 on freed, which is then
	// freed: its counts must reach the report all the same.
	if err := mpi.Bcast(make([]float64, 2), 0, freed); err != nil {
		return err
	}
	if err := errors.Join(freed.Free(), half.Free()); err != nil {
		return err
	}
	return mpi.Finalize()
}
