package main

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

func init() { scenarios["ddt-modes"] = ddtModes }

// ddtModes moves slices of a padded struct, which are packed field by
// field, through every send mode and persistent requests around a ring:
// the receiver must get whole records, padding left alone.
func ddtModes(w mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	right, left := (me+1)%n, (me-1+n)%n
	const k = 300 // records, beyond a small eager limit
	got := make([]record, k)
	check := func(what string, round int) error {
		want := recordsOf(left*10+round, k)
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s, round %d: received %+v..., want %+v...", what, round, got[:2], want[:2])
		}
		clear(got)
		return nil
	}

	// Bsend through an attached buffer.
	if err := mpi.BufferAttach(make([]byte, 4*(k*int(mpi.TypeOf[record]().Size())+mpi.BsendOverhead))); err != nil {
		return err
	}
	if err := mpi.Bsend(recordsOf(me*10, k), right, 1, w); err != nil {
		return fmt.Errorf("bsend: %w", err)
	}
	if _, err := mpi.Recv(got, left, 1, w); err != nil {
		return fmt.Errorf("bsend's receive: %w", err)
	}
	if err := check("bsend", 0); err != nil {
		return err
	}

	// Irsend once the receive is posted: the barrier orders them.
	rr, err := mpi.Irecv(got, left, 2, w)
	if err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	sr, err := mpi.Irsend(recordsOf(me*10+1, k), right, 2, w)
	if err != nil {
		return fmt.Errorf("irsend: %w", err)
	}
	if err := mpi.WaitAll(rr, sr); err != nil {
		return fmt.Errorf("irsend: %w", err)
	}
	if err := check("irsend", 1); err != nil {
		return err
	}

	// Persistent standard and buffered sends, restarted with fresh data.
	out := make([]record, k)
	for _, mode := range []string{"send init", "bsend init"} {
		send := mpi.SendInit[record]
		if mode == "bsend init" {
			send = mpi.BsendInit[record]
		}
		ps, err := send(out, right, 3, w)
		if err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
		pr, err := mpi.RecvInit(got, left, 3, w)
		if err != nil {
			return fmt.Errorf("%s: recv init: %w", mode, err)
		}
		for round := 2; round < 5; round++ {
			copy(out, recordsOf(me*10+round, k))
			if err := mpi.Startall(pr, ps); err != nil {
				return fmt.Errorf("%s: startall: %w", mode, err)
			}
			if err := mpi.WaitAll(pr, ps); err != nil {
				return fmt.Errorf("%s: round %d: %w", mode, round, err)
			}
			if err := check(mode, round); err != nil {
				return err
			}
		}
		if err := ps.Free(); err != nil {
			return err
		}
		if err := pr.Free(); err != nil {
			return err
		}
	}
	if _, err := mpi.BufferDetach(); err != nil {
		return err
	}

	// SendrecvReplace and IsendrecvReplace: the records go round in place.
	buf := recordsOf(me*10+5, k)
	if _, err := mpi.SendrecvReplace(buf, right, 4, left, 4, w); err != nil {
		return fmt.Errorf("sendrecv replace: %w", err)
	}
	copy(got, buf)
	if err := check("sendrecv replace", 5); err != nil {
		return err
	}
	buf = recordsOf(me*10+6, k)
	r, err := mpi.IsendrecvReplace(buf, right, 5, left, 5, w)
	if err != nil {
		return fmt.Errorf("isendrecv replace: %w", err)
	}
	if _, err := r.Wait(); err != nil {
		return fmt.Errorf("isendrecv replace: %w", err)
	}
	copy(got, buf)
	return check("isendrecv replace", 6)
}
