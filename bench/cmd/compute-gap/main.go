// Command compute-gap measures what a computation between calls costs the
// next call, the Go twin of bench/c/compute_gap.c: ranks 0 and 1 each
// compute for US microseconds (a loop on mpi.Wtime), then make an 8-byte
// round trip, ROUNDS times; rank 0 prints the mean time of a round trip
// after its computation.
//
//	gompirun -np 2 --mca btl self,sm bin/compute-gap [us] [rounds]
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	us, n, err := parseArgs(os.Args[1:])
	if err == nil {
		err = measure(us, n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compute-gap:", err)
		os.Exit(1)
	}
}

// parseArgs reads [us] [rounds], 50 and 2000 when absent.
func parseArgs(args []string) (us float64, n int, err error) {
	us, n = 50, 2000
	if len(args) > 0 {
		if us, err = strconv.ParseFloat(args[0], 64); err != nil || us < 0 {
			return 0, 0, fmt.Errorf("microseconds must be a number, 0 or more, not %q", args[0])
		}
	}
	if len(args) > 1 {
		if n, err = strconv.Atoi(args[1]); err != nil || n < 1 {
			return 0, 0, fmt.Errorf("rounds must be a number, 1 or more, not %q", args[1])
		}
	}
	return us, n, nil
}

func measure(us float64, n int) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	return errors.Join(gap(mpi.CommWorld(), us, n), mpi.Finalize())
}

func gap(w mpi.Comm, us float64, n int) error {
	if w.Size() < 2 {
		return fmt.Errorf("wants 2 ranks or more, has %d", w.Size())
	}
	for range 200 {
		if err := mpi.Barrier(w); err != nil {
			return err
		}
	}
	if w.Rank() > 1 {
		return nil
	}
	b := make([]byte, 8)
	peer := 1 - w.Rank()
	var comm float64
	for range n {
		for t0 := mpi.Wtime(); (mpi.Wtime()-t0)*1e6 < us; {
		}
		t := mpi.Wtime()
		if err := roundTrip(w, b, peer); err != nil {
			return err
		}
		comm += mpi.Wtime() - t
	}
	if w.Rank() == 0 {
		fmt.Printf("compute %.0f us: round trip after it %.2f us\n", us, comm/float64(n)*1e6)
	}
	return nil
}

// roundTrip sends b to peer and back, rank 0 first.
func roundTrip(w mpi.Comm, b []byte, peer int) error {
	if w.Rank() == 0 {
		if err := mpi.Send(b, peer, 0, w); err != nil {
			return err
		}
		_, err := mpi.Recv(b, peer, 0, w)
		return err
	}
	if _, err := mpi.Recv(b, peer, 0, w); err != nil {
		return err
	}
	return mpi.Send(b, peer, 0, w)
}
