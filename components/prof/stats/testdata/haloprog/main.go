// Command haloprog makes a halo exchange on a line of 3 ranks, whose ends
// send to and receive from ProcNull, for the stats tool's job test: the
// calls on ProcNull count as calls of 0 bytes. Each rank also sends to
// and receives from ProcNull alone.
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
		fmt.Fprintln(os.Stderr, "haloprog:", err)
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
	left, right := rank-1, rank+1
	if left < 0 {
		left = mpi.ProcNull
	}
	if right == size {
		right = mpi.ProcNull
	}

	// 10 float64 (80 bytes) each way with Sendrecv.
	out, in := make([]float64, 10), make([]float64, 10)
	if _, err := mpi.Sendrecv(out, right, 1, in, left, 1, world); err != nil {
		return err
	}
	if _, err := mpi.Sendrecv(out, left, 2, in, right, 2, world); err != nil {
		return err
	}

	// 4 int32 (16 bytes) each way with Irecv and Isend.
	toL, toR, fromL, fromR := make([]int32, 4), make([]int32, 4), make([]int32, 4), make([]int32, 4)
	var reqs []mpi.Request
	for _, start := range []func() (mpi.Request, error){
		func() (mpi.Request, error) { return mpi.Irecv(fromL, left, 3, world) },
		func() (mpi.Request, error) { return mpi.Irecv(fromR, right, 4, world) },
		func() (mpi.Request, error) { return mpi.Isend(toL, left, 4, world) },
		func() (mpi.Request, error) { return mpi.Isend(toR, right, 3, world) },
	} {
		r, err := start()
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	if err := mpi.WaitAll(reqs...); err != nil {
		return err
	}

	// 100 bytes to and from ProcNull alone.
	msg := make([]byte, 100)
	if err := mpi.Send(msg, mpi.ProcNull, 5, world); err != nil {
		return err
	}
	if _, err := mpi.Recv(msg, mpi.ProcNull, 5, world); err != nil {
		return err
	}
	return mpi.Finalize()
}
