package pml

import (
	"bytes"
	"errors"
	"testing"
)

// A ready-mode message that finds its receive posted is an ordinary
// message; one that arrives first is still delivered to the receive that
// takes it later, whose status says what happened. Eager and rendezvous
// sizes, blocking and not.
func TestReadySend(t *testing.T) {
	for _, size := range []int{10, 500} {
		nt := newNet(t, 2, 64, 100)
		e0, e1 := nt.engines[0], nt.engines[1]
		payload := bytes.Repeat([]byte{7}, size)
		buf := make([]byte, size)

		r := e1.Irecv(world, 0, 1, buf)
		if err := e0.SendReady(world, 1, 1, payload); err != nil {
			t.Fatalf("size %d: SendReady: %v", size, err)
		}
		if st := e1.Wait(r); st.Err != nil || st.Bytes != size || !bytes.Equal(buf, payload) {
			t.Fatalf("size %d: posted receive got %+v", size, st)
		}

		// Unmatched: the message, or its RTS, waits in the unexpected queue.
		s := e0.PostReady(new(Request), world, 1, 2, payload, 0)
		for !hasUnexpected(e1) {
			e1.Progress()
		}
		clear(buf)
		st := e1.Wait(e1.Irecv(world, 0, 2, buf))
		var early *EarlyReadyError
		if !errors.As(st.Err, &early) || early.From != 0 || early.Tag != 2 {
			t.Fatalf("size %d: early ready message's receive got error %v, want an EarlyReadyError from 0 tag 2", size, st.Err)
		}
		if st.Bytes != size || !bytes.Equal(buf, payload) {
			t.Fatalf("size %d: early ready message not delivered: %+v", size, st)
		}
		if st := e0.Wait(s); st.Err != nil {
			t.Fatalf("size %d: PostReady: %v", size, st.Err)
		}

		// A plain message that arrives first is no error.
		s = e0.Isend(world, 1, 3, payload, false)
		for !hasUnexpected(e1) {
			e1.Progress()
		}
		if st := e1.Wait(e1.Irecv(world, 0, 3, buf)); st.Err != nil {
			t.Fatalf("size %d: plain unexpected message: %v", size, st.Err)
		}
		e0.Wait(s)
	}
}
