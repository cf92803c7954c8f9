package pml

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
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

// A send that the receiver matched completes normally.
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
}

// unexpectedCount is how many messages wait unmatched at e on context cid.
func unexpectedCount(e *Engine, cid uint32) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue(cid).unexpected.all())
}

// A cancel of an eager send, even one that waits unmatched at the
// receiver, fails as MPI allows: the send completes normally, and the
// message arrives. No cancel goes to the receiver.
func TestCancelUnmatchedEagerCompletes(t *testing.T) {
	var droppers []*cancelDropper
	nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module {
		d := &cancelDropper{Module: m}
		droppers = append(droppers, d)
		return d
	})
	e0, e1 := nt.engines[0], nt.engines[1]
	first := e0.PostSend(new(Request), world, 1, 4, []byte("first"), false)
	second := e0.PostSend(new(Request), world, 1, 4, []byte("second"), false)
	e0.Flush(1)
	for unexpectedCount(e1, world) < 2 {
		e1.Progress()
	}
	if ok, err := e0.Cancel(second); ok || err != nil {
		t.Fatalf("Cancel of an eager send: %v, %v; want false, nil", ok, err)
	}
	for _, s := range []*Request{first, second} {
		if st := e0.Wait(s); st.Cancelled || st.Err != nil {
			t.Fatalf("eager send's status %+v, want complete and not cancelled", st)
		}
	}
	for _, want := range []string{"first", "second"} {
		buf := make([]byte, 16)
		if st := e1.Wait(e1.Irecv(world, 0, 4, buf)); st.Err != nil || string(buf[:st.Bytes]) != want {
			t.Fatalf("received %q (%+v), want %q", buf[:st.Bytes], st, want)
		}
	}
	for _, d := range droppers {
		if n := d.dropped.Load(); n != 0 {
			t.Fatalf("%d cancels sent for eager sends", n)
		}
	}
}

// A peer that fails before it answers a cancel fails the rendezvous send
// that waits for the answer, as it fails every request that waits on it.
// The cancel never reaches it here: until the failure the send stays
// pending.
func TestCancelPeerFails(t *testing.T) {
	nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module { return &cancelDropper{Module: m} })
	e0 := nt.engines[0]
	s := e0.Isend(world, 1, 6, bytes.Repeat([]byte{4}, 500), false)
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
}

// cancelDropper is a module that loses, and counts, every cancel it is
// given.
type cancelDropper struct {
	btl.Module
	dropped atomic.Int32
}

func (d *cancelDropper) Send(ctx context.Context, peer int, hdr, payload []byte) error {
	if len(hdr) > 1 && hdr[1] == typeCancel {
		d.dropped.Add(1)
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
