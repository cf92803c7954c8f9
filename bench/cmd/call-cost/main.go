// Command call-cost measures what a call costs on one rank, the Go twin of
// bench/c/call_cost.c: a loop of Comm.Rank, of an 8-byte Irecv, Isend and
// WaitAll to itself on CommSelf, of an Allreduce of one float64 on
// CommSelf, of a Test of a receive that no message matches and of an
// Iprobe that finds nothing, and of making, committing and freeing a
// datatype (a vector of 64 float64 8 apart; a struct of an int32, two
// float64 and an int64); nanoseconds a round of each.
//
//	go run ./bench/cmd/call-cost [rounds]
package main

import (
	"fmt"
	"os"
	"strconv"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "call-cost:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	n := 1000000
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 1 {
			return fmt.Errorf("rounds must be a number, 1 or more, not %q", args[0])
		}
		n = v
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	self, world := mpi.CommSelf(), mpi.CommWorld()
	s, r := []float64{8}, []float64{0}
	exchange := func(n int) (float64, error) {
		t := mpi.Wtime()
		for range n {
			rr, err := mpi.Irecv(r, 0, 1, self)
			if err != nil {
				return 0, err
			}
			sr, err := mpi.Isend(s, 0, 1, self)
			if err != nil {
				return 0, err
			}
			if err := mpi.WaitAll(rr, sr); err != nil {
				return 0, err
			}
		}
		return (mpi.Wtime() - t) / float64(n) * 1e9, nil
	}
	if _, err := exchange(n/100 + 1); err != nil { // warm-up
		return err
	}
	x, err := exchange(n)
	if err != nil {
		return err
	}
	t := mpi.Wtime()
	for range n {
		if world.Rank() < 0 {
			return fmt.Errorf("Comm.Rank of the world is %d", world.Rank())
		}
	}
	y := (mpi.Wtime() - t) / float64(n) * 1e9
	t = mpi.Wtime()
	for range n {
		if err := mpi.Allreduce(s, r, mpi.Sum, self); err != nil {
			return err
		}
	}
	z := (mpi.Wtime() - t) / float64(n) * 1e9
	rq, err := mpi.Irecv(r, 0, 2, self)
	if err != nil {
		return err
	}
	t = mpi.Wtime()
	for range n {
		if _, done, err := rq.Test(); err != nil || done {
			return fmt.Errorf("a receive that no message matches: Test says done %v, error %v", done, err)
		}
	}
	p := (mpi.Wtime() - t) / float64(n) * 1e9
	if err := rq.Cancel(); err != nil {
		return err
	}
	if _, err := rq.Wait(); err != nil {
		return err
	}
	t = mpi.Wtime()
	for range n {
		if _, found, err := mpi.Iprobe(0, 3, self); err != nil || found {
			return fmt.Errorf("a probe for a message that nobody sent: found %v, error %v", found, err)
		}
	}
	q := (mpi.Wtime() - t) / float64(n) * 1e9
	timed := func(round func() error) (float64, error) {
		t := mpi.Wtime()
		for range n {
			if err := round(); err != nil {
				return 0, err
			}
		}
		return (mpi.Wtime() - t) / float64(n) * 1e9, nil
	}
	v, err := timed(func() error {
		l, err := mpi.Vector[float64](64, 1, 8)
		if err != nil {
			return err
		}
		return l.Free()
	})
	if err != nil {
		return err
	}
	blocks := []mpi.StructBlock{{Count: 1, Disp: 0, Type: mpi.LayoutOf[int32]().Datatype()},
		{Count: 2, Disp: 8, Type: mpi.LayoutOf[float64]().Datatype()}, {Count: 1, Disp: 24, Type: mpi.LayoutOf[int64]().Datatype()}}
	w, err := timed(func() error {
		l, err := mpi.TypeStruct[byte](blocks...)
		if err != nil {
			return err
		}
		return l.Free()
	})
	if err != nil {
		return err
	}
	fmt.Printf("comm_rank %.0f ns, self exchange %.0f ns, allreduce on self %.0f ns, pending test %.0f ns, empty probe %.0f ns, "+
		"vector type %.0f ns, struct type %.0f ns\n", y, x, z, p, q, v, w)
	return mpi.Finalize()
}
