package pml

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// An unmatched rendezvous send is cancelled: the receiver never sees it,
// and a later receive matches the next message.
func TestCancelUnmatchedSend(t *testing.T) {
	for _, sync := range []bool{false, true} {
		nt := newNet(t, 2, 64, 100)
		s := nt.engines[0].Isend(world, 1, 4, bytes.Repeat([]byte{1}, 500), sync)
		for !hasUnexpected(nt.engines[1]) { // the RTS is there, unmatched
			nt.engines[1].Progress()
		}
		if ok, err := nt.engines[0].Cancel(s); ok || err != nil {
			t.Fatalf("Cancel of a send: %v, %v; want false, nil (the answer comes later)", ok, err)
		}
		if st := nt.engines[0].Wait(s); !st.Cancelled || st.Err != nil {
			t.Fatalf("cancelled send's status %+v", st)
		}
		buf := make([]byte, 500)
		r := nt.engines[1].Irecv(world, 0, 4, buf)
		nt.engines[0].Wait(nt.engines[0].Isend(world, 1, 4, bytes.Repeat([]byte{2}, 300), false))
		if st := nt.engines[1].Wait(r); st.Err != nil || st.Total != 300 || buf[0] != 2 {
			t.Fatalf("the receive after the cancel got %+v, first byte %d: the cancelled send was delivered", st, buf[0])
		}
	}
}

// A send that the receiver matched completes normally, and so does an
// eager send without a mark, which no cancel can name.
func TestCancelMatchedSendCompletes(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	buf := make([]byte, 500)
	r := nt.engines[1].Irecv(world, 0, 4, buf)
	s := nt.engines[0].Isend(world, 1, 4, bytes.Repeat([]byte{3}, 500), false)
	if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != 500 {
		t.Fatalf("receive %+v", st)
	}
	if _, err := nt.engines[0].Cancel(s); err != nil {
		t.Fatal(err)
	}
	if st := nt.engines[0].Wait(s); st.Cancelled || st.Err != nil {
		t.Fatalf("matched send's status %+v", st)
	}
	e := nt.engines[0].Isend(world, 1, 5, []byte{1}, false)
	if _, err := nt.engines[0].Cancel(e); err != nil {
		t.Fatal(err)
	}
	if st := nt.engines[0].Wait(e); st.Cancelled {
		t.Fatal("an eager send without a mark says cancelled")
	}
}

// unexpectedCount is how many messages wait unmatched at e on context cid.
func unexpectedCount(e *Engine, cid uint32) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue(cid).unexpected.all())
}

// An unmatched eager send is cancelled by its mark: of two messages with
// the same envelope, the one cancelled never arrives and the other does,
// and the next message on the tag takes its place. Through PostSend's
// request and through CancelPosted, as pmpi cancels what PostEager sent.
func TestCancelUnmatchedEager(t *testing.T) {
	for _, posted := range []bool{false, true} {
		nt := newNet(t, 2, 64, 100)
		e0, e1 := nt.engines[0], nt.engines[1]
		first := e0.PostSend(new(Request), world, 1, 4, []byte("first"), false, 7)
		second := e0.PostSend(new(Request), world, 1, 4, []byte("second"), false, 8)
		e0.Wait(first)
		e0.Flush(1)
		for unexpectedCount(e1, world) < 2 {
			e1.Progress()
		}
		checkWaiting(t, e1)
		if posted {
			var err error
			if second, err = e0.CancelPosted(new(Request), world, 1, 4, 8); err != nil {
				t.Fatal(err)
			}
		} else if ok, err := e0.Cancel(second); ok || err != nil {
			t.Fatalf("Cancel of an eager send: %v, %v; want false, nil (the answer comes later)", ok, err)
		}
		if _, err := e0.Cancel(second); err != nil { // a second cancel changes nothing
			t.Fatal(err)
		}
		for !second.Done() {
			e1.Progress()
			e0.Progress()
		}
		if st := e0.Wait(second); !st.Cancelled || st.Err != nil {
			t.Fatalf("posted %v: cancelled eager send's status %+v", posted, st)
		}
		if st := e0.Wait(first); st.Cancelled || st.Err != nil {
			t.Fatalf("posted %v: the other send's status %+v", posted, st)
		}
		e0.Wait(e0.Isend(world, 1, 4, []byte("third"), false))
		for _, want := range []string{"first", "third"} {
			buf := make([]byte, 16)
			if st := e1.Wait(e1.Irecv(world, 0, 4, buf)); st.Err != nil || string(buf[:st.Bytes]) != want {
				t.Fatalf("posted %v: received %q (%+v), want %q", posted, buf[:st.Bytes], st, want)
			}
		}
		if n := unexpectedCount(e1, world); n != 0 {
			t.Fatalf("posted %v: %d messages left unmatched", posted, n)
		}
		checkWaiting(t, e1)
	}
}

// An eager send that a receive matched completes normally when cancelled,
// once the receiver says so.
func TestCancelMatchedEager(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	e0, e1 := nt.engines[0], nt.engines[1]
	buf := make([]byte, 8)
	r := e1.Irecv(world, 0, 5, buf)
	s := e0.PostSend(new(Request), world, 1, 5, []byte("matched"), false, 9)
	if st := e1.Wait(r); st.Err != nil || string(buf[:st.Bytes]) != "matched" {
		t.Fatalf("receive %+v", st)
	}
	if _, err := e0.Cancel(s); err != nil {
		t.Fatal(err)
	}
	for !s.Done() {
		e1.Progress()
		e0.Progress()
	}
	if st := e0.Wait(s); st.Cancelled || st.Err != nil {
		t.Fatalf("matched eager send's status %+v", st)
	}
}

// A peer that fails before it answers a cancel fails the send that waits
// for the answer, as it fails every request that waits on it. The cancel
// never reaches it here: until the failure the send stays pending.
func TestCancelEagerPeerFails(t *testing.T) {
	nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module { return &cancelDropper{Module: m} })
	e0 := nt.engines[0]
	s := e0.PostSend(new(Request), world, 1, 6, []byte("lost"), false, 10)
	e0.Wait(s)
	if _, err := e0.Cancel(s); err != nil {
		t.Fatal(err)
	}
	if s.Done() {
		t.Fatal("the cancelled send completed with no answer")
	}
	e0.PeerFailed(1, errors.New("gone"))
	if st := e0.Wait(s); !errors.Is(st.Err, btl.ErrPeerFailed) || st.Cancelled {
		t.Fatalf("status %+v, want the peer's failure", st)
	}
	// Nothing is left to drop once the peer is gone: the send stays as it was.
	c, err := e0.CancelPosted(new(Request), world, 1, 6, 11)
	if err != nil || !c.Done() {
		t.Fatalf("CancelPosted to a failed peer: done %v, %v", c.Done(), err)
	}
}

// cancelDropper is a module that loses every cancel it is given.
type cancelDropper struct{ btl.Module }

func (d *cancelDropper) Send(ctx context.Context, peer int, hdr, payload []byte) error {
	if len(hdr) > 1 && hdr[1] == typeCancel {
		return nil
	}
	return d.Module.Send(ctx, peer, hdr, payload)
}

// Cancel racing a receive: either outcome is allowed, but the two sides
// must agree. A cancelled send never reaches the receiver; one that was not
// cancelled arrives whole.
func TestCancelRacingAMatch(t *testing.T) {
	for i := range 50 {
		nt := newNet(t, 2, 64, 100)
		msg := bytes.Repeat([]byte{byte(i)}, 400)
		s := nt.engines[0].Isend(world, 1, 9, msg, false)
		buf := make([]byte, 400)
		r := nt.engines[1].Irecv(world, 0, 9, buf)
		if _, err := nt.engines[0].Cancel(s); err != nil {
			t.Fatal(err)
		}
		sst := nt.engines[0].Wait(s)
		if sst.Cancelled {
			// The receive matched nothing: it can still be cancelled.
			if ok, _ := nt.engines[1].Cancel(r); !ok {
				st := nt.engines[1].Wait(r)
				t.Fatalf("send cancelled but the receive completed with %+v", st)
			}
			continue
		}
		if st := nt.engines[1].Wait(r); st.Err != nil || !bytes.Equal(buf, msg) {
			t.Fatalf("send not cancelled but the receive got %+v", st)
		}
	}
}
