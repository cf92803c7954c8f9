package pml

import (
	"bytes"
	"context"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// inlineSelf delivers a rank's fragments to itself inside Send, as btl self
// does (btl.Inline).
type inlineSelf struct {
	btl.Module
	nt **net
}

func (m inlineSelf) Send(_ context.Context, peer int, hdr, payload []byte) error {
	(*m.nt).engines[peer].Deliver(peer, hdr, payload, false)
	return nil
}

func (inlineSelf) DeliversInline() {}

// TestInlineRendezvousMovesInTheCall: a rendezvous message to this rank
// through a module that delivers inline moves in the call that matches it,
// not in a goroutine that a waiter must yield to: a receive posted after
// the send is complete when its post returns, as is the send, and so are
// both when the receive was posted first.
func TestInlineRendezvousMovesInTheCall(t *testing.T) {
	var nt *net
	nt = newNetWith(t, 1, 64, 1<<20, func(m btl.Module) btl.Module { return inlineSelf{m, &nt} })
	e := nt.engines[0]
	for _, recvFirst := range []bool{false, true} {
		msg := fill(4096, 3)
		buf := make([]byte, len(msg))
		var s, r *Request
		if recvFirst {
			r = e.Irecv(world, 0, 7, buf)
			s = e.Isend(world, 0, 7, msg, false)
		} else {
			s = e.Isend(world, 0, 7, msg, false)
			r = e.Irecv(world, 0, 7, buf)
		}
		if !r.Done() || !s.Done() {
			t.Fatalf("receive first %v: receive done %v, send done %v before any wait, want both", recvFirst, r.Done(), s.Done())
		}
		if st := e.Wait(r); st.Err != nil || !bytes.Equal(buf, msg) {
			t.Fatalf("receive first %v: %v, data equal %v", recvFirst, st.Err, bytes.Equal(buf, msg))
		}
		if st := e.Wait(s); st.Err != nil {
			t.Fatalf("receive first %v: send: %v", recvFirst, st.Err)
		}
	}
}
