package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// cancel: a posted receive that nothing matches is cancelled, and a later
// message with the same tag goes to the next receive.
func cancel(w mpi.Comm) error {
	switch w.Rank() {
	case 1:
		r, err := mpi.Irecv(make([]byte, 8), 0, 99, w)
		if err != nil {
			return err
		}
		if err := r.Cancel(); err != nil {
			return err
		}
		st, err := r.Wait()
		if err != nil || !st.Cancelled {
			return fmt.Errorf("cancelled receive: status %+v err %v", st, err)
		}
		if err := mpi.Send([]byte{1}, 0, 1, w); err != nil { // tell rank 0 to send
			return err
		}
		buf := make([]byte, 1)
		if _, err := mpi.Recv(buf, 0, 99, w); err != nil || buf[0] != 42 {
			return fmt.Errorf("receive after the cancel: %v, got %d", err, buf[0])
		}
		// Rank 0 cancels a large send before this rank receives on its tag:
		// the next message on that tag is what arrives.
		if _, err := mpi.Recv(make([]byte, 1), 0, 2, w); err != nil {
			return err
		}
		big := make([]byte, 1<<20)
		if _, err := mpi.Recv(big, 0, 98, w); err != nil || big[0] != 7 {
			return fmt.Errorf("receive after a cancelled send: %v, first byte %d (the cancelled send had 6)", err, big[0])
		}
		return cancelEagerReceiver(w)
	case 0:
		if _, err := mpi.Recv(make([]byte, 1), 1, 1, w); err != nil {
			return err
		}
		if err := mpi.Send([]byte{42}, 1, 99, w); err != nil {
			return err
		}
		big := make([]byte, 1<<20) // rendezvous on every transport
		big[0] = 6
		r, err := mpi.Isend(big, 1, 98, w)
		if err != nil {
			return err
		}
		if err := r.Cancel(); err != nil {
			return err
		}
		st, err := r.Wait()
		if err != nil || !st.Cancelled {
			return fmt.Errorf("cancelled send: status %+v err %v", st, err)
		}
		if err := mpi.Send([]byte{1}, 1, 2, w); err != nil {
			return err
		}
		big[0] = 7
		if err := mpi.Send(big, 1, 98, w); err != nil {
			return err
		}
		return cancelEagerSender(w)
	}
	return nil
}

// cancelEagerSender is rank 0's half of cancel's eager part. Of two small
// messages with the same envelope, both unmatched at rank 1, it cancels the
// second: that one never arrives, the first does. It then cancels a small
// message that rank 1 has received, once rank 1 makes no call but
// Finalize: that one completes normally, with the answer from rank 1's
// Finalize. And it cancels a small message to itself.
func cancelEagerSender(w mpi.Comm) error {
	a, err := mpi.Isend([]byte("a"), 1, 97, w)
	if err != nil {
		return err
	}
	b, err := mpi.Isend([]byte("b"), 1, 97, w)
	if err != nil {
		return err
	}
	// Rank 1 answers from its Recv of tag 3, which waits for the word below.
	if err := cancelled(b, true, "an unmatched eager send"); err != nil {
		return err
	}
	if st, err := a.Wait(); err != nil || st.Cancelled {
		return fmt.Errorf("the eager send beside the cancelled one: status %+v err %v", st, err)
	}
	if err := mpi.Send([]byte{1}, 1, 3, w); err != nil {
		return err
	}
	if err := mpi.Send([]byte("c"), 1, 97, w); err != nil {
		return err
	}
	// Rank 1 has posted its receive of tag 96 when it sends on tag 4.
	if _, err := mpi.Recv(make([]byte, 1), 1, 4, w); err != nil {
		return err
	}
	d, err := mpi.Isend([]byte("d"), 1, 96, w)
	if err != nil {
		return err
	}
	// Rank 1 says it has d, then goes on to Finalize: the answer to the
	// cancel comes from there.
	if _, err := mpi.Recv(make([]byte, 1), 1, 5, w); err != nil {
		return err
	}
	if err := cancelled(d, false, "an eager send already matched"); err != nil {
		return err
	}
	s, err := mpi.Isend([]byte("s"), 0, 95, w)
	if err != nil {
		return err
	}
	if err := cancelled(s, true, "an eager send to itself"); err != nil {
		return err
	}
	if _, found, err := mpi.Iprobe(0, 95, w); err != nil || found {
		return fmt.Errorf("the cancelled message to itself is still there (%v)", err)
	}
	return nil
}

// cancelled cancels r, waits for it, and checks that its status says
// cancelled as want does.
func cancelled(r mpi.Request, want bool, what string) error {
	if err := r.Cancel(); err != nil {
		return fmt.Errorf("cancel of %s: %w", what, err)
	}
	if st, err := r.Wait(); err != nil || st.Cancelled != want {
		return fmt.Errorf("%s: status %+v err %v, want cancelled %v", what, st, err, want)
	}
	return nil
}

// cancelEagerReceiver is rank 1's half of cancel's eager part.
func cancelEagerReceiver(w mpi.Comm) error {
	if _, err := mpi.Recv(make([]byte, 1), 0, 3, w); err != nil {
		return err
	}
	for _, want := range []string{"a", "c"} {
		buf := make([]byte, 1)
		if _, err := mpi.Recv(buf, 0, 97, w); err != nil || string(buf) != want {
			return fmt.Errorf("receive on tag 97: %v, got %q, want %q (b was cancelled)", err, buf, want)
		}
	}
	buf := make([]byte, 1)
	d, err := mpi.Irecv(buf, 0, 96, w)
	if err != nil {
		return err
	}
	if err := mpi.Send([]byte{1}, 0, 4, w); err != nil {
		return err
	}
	if _, err := d.Wait(); err != nil || string(buf) != "d" {
		return fmt.Errorf("receive of the matched eager send: %v, got %q", err, buf)
	}
	return mpi.Send([]byte{1}, 0, 5, w)
}
