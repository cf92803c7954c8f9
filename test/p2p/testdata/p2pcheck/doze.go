package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// doze: the waiting calls of a rank whose thread dozes between polls (the
// tests run it with mpi_poll_doze_us 1): a token ring, where each rank
// waits in Recv for its left neighbour; a receive that another goroutine
// of the rank answers, after work that needs the processor the waiter
// dozes with; WaitAny over such a receive and a neighbour's; a Probe; and
// a large send that waits for a receiver that posts late.
func doze(w mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	left, right := (me+n-1)%n, (me+1)%n
	if err := dozeRing(w, left, right); err != nil {
		return fmt.Errorf("ring: %w", err)
	}

	// Rank me waits for a message that its own goroutine sends later.
	want := busyWork(me)
	done := make(chan error, 1)
	go func() { done <- mpi.Send([]int64{busyWork(me)}, me, 2, w) }()
	got := []int64{0}
	if _, err := mpi.Recv(got, me, 2, w); err != nil {
		return fmt.Errorf("receive from itself: %w", err)
	}
	if err := <-done; err != nil {
		return fmt.Errorf("send to itself: %w", err)
	}
	if got[0] != want {
		return fmt.Errorf("receive from itself: got %d, want %d", got[0], want)
	}

	// WaitAny over a receive from itself and one from the left.
	fromSelf, fromLeft := []int64{0}, []int64{0}
	rs, err := mpi.Irecv(fromSelf, me, 3, w)
	if err != nil {
		return err
	}
	rl, err := mpi.Irecv(fromLeft, left, 3, w)
	if err != nil {
		return err
	}
	go func() { done <- mpi.Send([]int64{busyWork(me + 1)}, me, 3, w) }()
	if err := mpi.Send([]int64{int64(me)}, right, 3, w); err != nil {
		return err
	}
	reqs := []mpi.Request{rs, rl}
	for range reqs {
		if _, _, err := mpi.WaitAny(reqs); err != nil {
			return fmt.Errorf("waitany: %w", err)
		}
	}
	if err := <-done; err != nil {
		return fmt.Errorf("send to itself: %w", err)
	}
	if fromSelf[0] != busyWork(me+1) || fromLeft[0] != int64(left) {
		return fmt.Errorf("waitany: got %d and %d, want %d and %d", fromSelf[0], fromLeft[0], busyWork(me+1), left)
	}

	// Probe for a message the left neighbour sends after its own probe:
	// rank 0 starts.
	if me == 0 {
		if err := mpi.Send([]byte{1}, right, 4, w); err != nil {
			return err
		}
	}
	st, err := mpi.Probe(left, 4, w)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	if st.Source != left || st.Tag != 4 {
		return fmt.Errorf("probe: got source %d tag %d, want %d and 4", st.Source, st.Tag, left)
	}
	if _, err := mpi.Recv(make([]byte, 1), left, 4, w); err != nil {
		return err
	}
	if me != 0 {
		if err := mpi.Send([]byte{1}, right, 4, w); err != nil {
			return err
		}
	}

	// A rendezvous send waits while its receiver works first.
	const size = 1 << 20
	out := make([]byte, size)
	pattern(out, uint64(me))
	s, err := mpi.Isend(out, right, 5, w)
	if err != nil {
		return err
	}
	_ = busyWork(me)
	in := make([]byte, size)
	if _, err := mpi.Recv(in, left, 5, w); err != nil {
		return fmt.Errorf("large receive: %w", err)
	}
	if _, err := s.Wait(); err != nil {
		return fmt.Errorf("large send: %w", err)
	}
	return checkPattern(in, uint64(left))
}

// dozeRing passes a token round the ring; each rank adds one.
func dozeRing(w mpi.Comm, left, right int) error {
	const laps = 300
	me, n := w.Rank(), w.Size()
	tok := []int64{0}
	for lap := range laps {
		base := int64(lap * n)
		if me == 0 {
			tok[0] = base
			if err := mpi.Send(tok, right, 1, w); err != nil {
				return err
			}
		}
		if _, err := mpi.Recv(tok, left, 1, w); err != nil {
			return err
		}
		if want := base + int64(left); tok[0] != want {
			return fmt.Errorf("lap %d: token %d, want %d", lap, tok[0], want)
		}
		if me != 0 {
			tok[0]++
			if err := mpi.Send(tok, right, 1, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// busyWork computes, and makes garbage so that the collector runs: work
// that needs the rank's processor.
func busyWork(seed int) int64 {
	var sum int64
	for i := range 3_000_000 {
		sum += int64(i%(seed+7)) * int64(seed+1)
		if i%200_000 == 0 {
			garbage := make([]byte, 1<<20)
			sum += int64(garbage[i%len(garbage)])
		}
	}
	return sum
}
