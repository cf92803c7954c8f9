package main

import (
	"errors"
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// hintMsgs is how many messages each round sends: enough that the
// receiver's queues split by key.
const hintMsgs = 200

// hints checks matching on a communicator whose hints rule out
// AnySource and AnyTag (2 ranks): wildcards fail naming the hint; many
// receives posted in reverse order, and many messages received in
// another order than they came, each get their own message; messages of
// one tag keep their order; once the hints are set false again,
// wildcard receives get the waiting messages in the order they were
// sent.
func hints(world mpi.Comm, _ []string) error {
	if world.Size() != 2 {
		return fmt.Errorf("hints runs on 2 ranks, not %d", world.Size())
	}
	d, err := world.Dup()
	if err != nil {
		return err
	}
	if err := setHints(d, "true"); err != nil {
		return err
	}
	buf := make([]int64, 1)
	_, err = mpi.Irecv(buf, mpi.AnySource, 0, d)
	if err := wantErr("AnySource", err, mpi.ErrRank, "mpi_assert_no_any_source=true rules out"); err != nil {
		return err
	}
	_, _, err = mpi.Iprobe(0, mpi.AnyTag, d)
	if err := wantErr("AnyTag", err, mpi.ErrTag, "mpi_assert_no_any_tag=true rules out"); err != nil {
		return err
	}
	value := func(round, tag int) int64 { return int64(round*100000 + tag*10 + 1) }
	if d.Rank() == 0 {
		for round := range 2 {
			if err := mpi.Barrier(d); err != nil { // round 0: the receives are posted
				return err
			}
			for tag := range hintMsgs {
				if err := mpi.Send([]int64{value(round, tag)}, 1, tag, d); err != nil {
					return err
				}
			}
			// The same tag twice: the second must not overtake the first.
			if err := errors.Join(mpi.Send([]int64{-1}, 1, 7, d), mpi.Send([]int64{-2}, 1, 7, d)); err != nil {
				return err
			}
		}
		// Sent under the hints, received after they are gone.
		for tag := range hintMsgs {
			if err := mpi.Send([]int64{value(2, tag)}, 1, tag, d); err != nil {
				return err
			}
		}
		return errors.Join(mpi.Barrier(d), d.Free())
	}

	// Round 0: every receive posted before its message, in reverse order.
	reqs := make([]mpi.Request, hintMsgs)
	got := make([][]int64, hintMsgs)
	for tag := hintMsgs - 1; tag >= 0; tag-- {
		got[tag] = make([]int64, 1)
		if reqs[tag], err = mpi.Irecv(got[tag], 0, tag, d); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(d); err != nil {
		return err
	}
	if err := errors.Join(mpi.WaitAll(reqs...), checkRound(0, got, value), recvTwice(d)); err != nil {
		return err
	}
	// Round 1: the messages first (the last one probed, so all are
	// here), received in a stride through the tags.
	if err := mpi.Barrier(d); err != nil {
		return err
	}
	if _, err := mpi.Probe(0, hintMsgs-1, d); err != nil {
		return err
	}
	for i := range hintMsgs {
		tag := i * 37 % hintMsgs
		if _, err := mpi.Recv(got[tag], 0, tag, d); err != nil {
			return err
		}
	}
	if err := errors.Join(checkRound(1, got, value), recvTwice(d)); err != nil {
		return err
	}
	// Round 2: the messages wait, split by key, when the hints go.
	if _, err := mpi.Probe(0, hintMsgs-1, d); err != nil {
		return err
	}
	if err := setHints(d, "false"); err != nil {
		return err
	}
	for tag := range hintMsgs {
		st, err := mpi.Recv(buf, mpi.AnySource, mpi.AnyTag, d)
		if err != nil {
			return err
		}
		if st.Source != 0 || st.Tag != tag || buf[0] != value(2, tag) {
			return fmt.Errorf("wildcard receive %d: from %d tag %d value %d; want 0, %d, %d (the order they were sent)", tag, st.Source, st.Tag, buf[0], tag, value(2, tag))
		}
	}
	return errors.Join(mpi.Barrier(d), d.Free())
}

// setHints sets both of d's wildcard hints to v.
func setHints(d mpi.Comm, v string) error {
	in := mpi.InfoCreate()
	defer in.Free()
	if err := errors.Join(in.Set("mpi_assert_no_any_source", v), in.Set("mpi_assert_no_any_tag", v)); err != nil {
		return err
	}
	return d.SetInfo(in)
}

// checkRound checks that every receive of round got its own message.
func checkRound(round int, got [][]int64, value func(round, tag int) int64) error {
	for tag, g := range got {
		if g[0] != value(round, tag) {
			return fmt.Errorf("round %d: the receive of tag %d got %d, want %d", round, tag, g[0], value(round, tag))
		}
	}
	return nil
}

// recvTwice receives the two messages of tag 7 that follow a round.
func recvTwice(d mpi.Comm) error {
	a, b := make([]int64, 1), make([]int64, 1)
	if _, err := mpi.Recv(a, 0, 7, d); err != nil {
		return err
	}
	if _, err := mpi.Recv(b, 0, 7, d); err != nil {
		return err
	}
	if a[0] != -1 || b[0] != -2 {
		return fmt.Errorf("two messages of one tag came as %d, %d; want -1, -2", a[0], b[0])
	}
	return nil
}
