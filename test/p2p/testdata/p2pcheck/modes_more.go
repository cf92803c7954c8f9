package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

func init() { scenarios["modesmore"] = modesMore }

// modesMore runs the calls the other mode scenarios leave out: a
// persistent ready send around a ring, BufferIflush, and the status
// setters.
func modesMore(w mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	right, left := (me+1)%n, (me-1+n)%n

	// RsendInit: each round the receive is started before a barrier, the
	// ready send after it.
	out, in := make([]int64, 3), make([]int64, 3)
	ps, err := mpi.RsendInit(out, right, 1, w)
	if err != nil {
		return fmt.Errorf("rsend init: %w", err)
	}
	pr, err := mpi.RecvInit(in, left, 1, w)
	if err != nil {
		return err
	}
	for round := range 5 {
		if err := pr.Start(); err != nil {
			return err
		}
		if err := mpi.Barrier(w); err != nil {
			return err
		}
		out[0], out[1], out[2] = int64(me), int64(round), int64(me*round)
		if err := ps.Start(); err != nil {
			return fmt.Errorf("round %d: start: %w", round, err)
		}
		if err := mpi.WaitAll(pr, ps); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if in[0] != int64(left) || in[1] != int64(round) || in[2] != int64(left*round) {
			return fmt.Errorf("round %d: received %v from rank %d", round, in, left)
		}
	}
	if err := ps.Free(); err != nil {
		return err
	}
	if err := pr.Free(); err != nil {
		return err
	}

	// BufferIflush: its request completes once the buffered messages
	// have gone, which the receives show.
	if err := mpi.BufferAttach(make([]byte, 4*(64+mpi.BsendOverhead))); err != nil {
		return err
	}
	for i := range 3 {
		if err := mpi.Bsend([]int64{int64(me), int64(i)}, right, 2, w); err != nil {
			return fmt.Errorf("bsend %d: %w", i, err)
		}
	}
	fr, err := mpi.BufferIflush()
	if err != nil {
		return fmt.Errorf("buffer iflush: %w", err)
	}
	got := make([]int64, 2)
	for i := range 3 {
		if _, err := mpi.Recv(got, left, 2, w); err != nil {
			return err
		}
		if got[0] != int64(left) || got[1] != int64(i) {
			return fmt.Errorf("buffered message %d: %v", i, got)
		}
	}
	if _, err := fr.Wait(); err != nil {
		return fmt.Errorf("buffer iflush's wait: %w", err)
	}
	if _, err := mpi.BufferDetach(); err != nil {
		return err
	}

	// The status setters, for a program that builds a status itself.
	var st mpi.Status
	if err := mpi.StatusSetElements[float64](&st, 7); err != nil {
		return err
	}
	if err := mpi.StatusSetCancelled(&st, true); err != nil {
		return err
	}
	if mpi.GetCount[float64](st) != 7 || mpi.GetCount[byte](st) != 56 || !mpi.TestCancelled(st) {
		return fmt.Errorf("status set to 7 float64, cancelled: counts %d and %d, cancelled %v",
			mpi.GetCount[float64](st), mpi.GetCount[byte](st), mpi.TestCancelled(st))
	}
	if err := mpi.StatusSetCancelled(&st, false); err != nil || mpi.TestCancelled(st) {
		return fmt.Errorf("status set not cancelled: %v, %v", mpi.TestCancelled(st), err)
	}
	return nil
}
