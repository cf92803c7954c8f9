// Command modesprog sends around a ring of 3 ranks with the buffered,
// ready, persistent, partitioned and replace calls, a matched probe and
// across an intercommunicator, makes and frees a topology, for the stats tool's job test: each call's bytes
// and the p2p matrix are known exactly.
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
		fmt.Fprintln(os.Stderr, "modesprog:", err)
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
	right, left := (rank+1)%size, (rank+size-1)%size

	// Bsend: 80 bytes to the right.
	if err := mpi.BufferAttach(make([]byte, 1024)); err != nil {
		return err
	}
	out, in := make([]float64, 10), make([]float64, 10)
	if err := mpi.Bsend(out, right, 1, world); err != nil {
		return err
	}
	if _, err := mpi.Recv(in, left, 1, world); err != nil {
		return err
	}
	if _, err := mpi.BufferDetach(); err != nil {
		return err
	}

	// Rsend: 64 bytes, once the receive is posted.
	rin, rout := make([]int32, 16), make([]int32, 16)
	rr, err := mpi.Irecv(rin, left, 2, world)
	if err != nil {
		return err
	}
	if err := mpi.Barrier(world); err != nil {
		return err
	}
	if err := mpi.Rsend(rout, right, 2, world); err != nil {
		return err
	}
	if err := mpi.WaitAll(rr); err != nil {
		return err
	}

	// Persistent: 8 bytes a Start, 4 rounds with Start, 2 with Startall.
	pout, pin := make([]float64, 1), make([]float64, 1)
	ps, err := mpi.SendInit(pout, right, 3, world)
	if err != nil {
		return err
	}
	pr, err := mpi.RecvInit(pin, left, 3, world)
	if err != nil {
		return err
	}
	for range 4 {
		if err := pr.Start(); err != nil {
			return err
		}
		if err := ps.Start(); err != nil {
			return err
		}
		if err := mpi.WaitAll(pr, ps); err != nil {
			return err
		}
	}
	for range 2 {
		if err := mpi.Startall(pr, ps); err != nil {
			return err
		}
		if err := mpi.WaitAll(pr, ps); err != nil {
			return err
		}
	}
	if err := ps.Free(); err != nil {
		return err
	}
	if err := pr.Free(); err != nil {
		return err
	}

	// SendrecvReplace: 32 bytes round the ring.
	if _, err := mpi.SendrecvReplace(make([]int64, 4), right, 4, left, 4, world); err != nil {
		return err
	}

	// A matched probe of 5 bytes.
	if err := mpi.Send(make([]byte, 5), right, 5, world); err != nil {
		return err
	}
	msg, st, err := mpi.Mprobe(left, 5, world)
	if err != nil {
		return err
	}
	if _, err := mpi.Mrecv(make([]byte, mpi.GetCount[byte](st)), &msg); err != nil {
		return err
	}

	// Partitioned: 2 partitions of 12 bytes to the right, started twice.
	qs, err := mpi.PsendInit(make([]int32, 6), 2, right, 7, world)
	if err != nil {
		return err
	}
	qr, err := mpi.PrecvInit(make([]int32, 6), 2, left, 7, world)
	if err != nil {
		return err
	}
	for range 2 {
		if err := mpi.Startall(qr); err != nil {
			return err
		}
		if err := qs.Start(); err != nil {
			return err
		}
		if err := qs.PreadyRange(0, 1); err != nil {
			return err
		}
		if err := mpi.WaitAll(qr, qs); err != nil {
			return err
		}
	}
	for _, q := range []mpi.Request{qs, qr} {
		if err := q.Free(); err != nil {
			return err
		}
	}

	// A ring topology and a sub-grid of it, freed.
	cart, err := mpi.CartCreate(world, []int{3}, []bool{true}, false)
	if err != nil {
		return err
	}
	sub, err := cart.CartSub([]bool{false})
	if err != nil {
		return err
	}
	for _, c := range []mpi.Comm{sub, cart} {
		if err := c.Free(); err != nil {
			return err
		}
	}

	// Across an intercommunicator of {0} and {1, 2}: rank 0 sends 7 bytes
	// to remote rank 1, world rank 2.
	color := min(rank, 1)
	half, err := world.Split(color, rank)
	if err != nil {
		return err
	}
	inter, err := mpi.IntercommCreate(half, 0, world, 1-color, 9)
	if err != nil {
		return err
	}
	switch rank {
	case 0:
		err = mpi.Send(make([]byte, 7), 1, 6, inter)
	case 2:
		_, err = mpi.Recv(make([]byte, 7), 0, 6, inter)
	}
	if err != nil {
		return err
	}
	return mpi.Finalize()
}
