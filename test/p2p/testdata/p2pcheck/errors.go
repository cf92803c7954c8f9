package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// badArgs: invalid arguments return errors with the right class and say
// what was wrong; a send to and a receive from ProcNull succeed at once,
// the receive with an empty status from ProcNull.
func badArgs(w mpi.Comm) error {
	checks := []struct {
		err  error
		is   error
		text string
	}{
		{mpi.Send([]byte{1}, w.Size(), 0, w), mpi.ErrRank, fmt.Sprintf("rank %d is out of range", w.Size())},
		{mpi.Send([]byte{1}, 0, -5, w), mpi.ErrTag, "tag -5 is out of range"},
		{mpi.Send([]byte{1}, 0, 0, mpi.Comm{}), mpi.ErrComm, "communicator is nil"},
		{func() error { world := w; return world.Disconnect() }(), mpi.ErrComm, "cannot be freed"},
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.is) || !strings.Contains(fmt.Sprint(c.err), c.text) {
			return fmt.Errorf("error %v, want %v saying %q", c.err, c.is, c.text)
		}
	}
	if err := mpi.Send([]byte{1}, mpi.ProcNull, 0, w); err != nil {
		return fmt.Errorf("send to ProcNull: %w", err)
	}
	st, err := mpi.Recv(make([]byte, 1), mpi.ProcNull, 0, w)
	if err != nil || st.Source != mpi.ProcNull || st.Count != 0 {
		return fmt.Errorf("recv from ProcNull: %+v %v", st, err)
	}
	return nil
}

// truncate: rank 0 sends 4096 and 1 MiB bytes; rank 1 receives each into
// 1024 bytes and must get ErrTruncate, the first 1024 bytes, and nothing
// written past them.
func truncate(w mpi.Comm) error {
	sizes := []int{4096, 1 << 20}
	for i, size := range sizes {
		switch w.Rank() {
		case 0:
			msg := make([]byte, size)
			pattern(msg, uint64(i))
			if err := mpi.Send(msg, 1, 7, w); err != nil {
				return fmt.Errorf("sender of a truncated message: %w", err)
			}
		case 1:
			backing := make([]byte, 1024+16)
			for j := range backing {
				backing[j] = 0xEE
			}
			st, err := mpi.Recv(backing[:1024], 0, 7, w)
			if !errors.Is(err, mpi.ErrTruncate) {
				return fmt.Errorf("size %d: err %v, want ErrTruncate", size, err)
			}
			want := fmt.Sprintf("recv from rank 0 of comm MPI_COMM_WORLD, tag 7: message of %d bytes truncated to 1024", size)
			if err.Error() != want || !errors.Is(st.Err, mpi.ErrTruncate) {
				return fmt.Errorf("error %q, want %q", err, want)
			}
			full := make([]byte, size)
			pattern(full, uint64(i))
			if !slices.Equal(backing[:1024], full[:1024]) {
				return fmt.Errorf("size %d: the received prefix differs", size)
			}
			for _, b := range backing[1024:] {
				if b != 0xEE {
					return fmt.Errorf("size %d: bytes written past the receive buffer", size)
				}
			}
		}
	}
	return nil
}
