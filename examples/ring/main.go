// Command ring passes a token around the ranks: rank 0 starts it, every
// rank adds its own rank and passes it on, and after -laps laps rank 0
// checks the sum.
//
//	gompirun -np 4 bin/ring -laps 10
package main

import (
	"flag"
	"fmt"
	"log"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	laps := flag.Int("laps", 10, "times the token goes round")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.CommWorld()
	if err := ring(world, *laps); err != nil {
		log.Fatalf("rank %d: %v", world.Rank(), err)
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}

func ring(world mpi.Comm, laps int) error {
	rank, size := world.Rank(), world.Size()
	next, prev := (rank+1)%size, (rank+size-1)%size
	token := []int64{0}
	start := mpi.Wtime()
	for lap := range laps {
		if rank == 0 {
			if err := mpi.Send(token, next, lap, world); err != nil {
				return err
			}
		}
		if _, err := mpi.Recv(token, prev, lap, world); err != nil {
			return err
		}
		token[0] += int64(rank)
		if rank != 0 {
			if err := mpi.Send(token, next, lap, world); err != nil {
				return err
			}
		}
	}
	if rank == 0 {
		want := int64(laps) * int64(size*(size-1)/2)
		if token[0] != want {
			return fmt.Errorf("token is %d after %d laps of %d ranks, want %d", token[0], laps, size, want)
		}
		elapsed := mpi.Wtime() - start
		via, err := world.Transport(next)
		if err != nil {
			return err
		}
		fmt.Printf("ring: %d laps of %d ranks, token %d: ok (%.3f s; rank 0 sends by %s)\n",
			laps, size, token[0], elapsed, via)
	}
	return nil
}
