package pml

import (
	"bytes"
	"testing"
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
// eager send.
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
		t.Fatal("an eager send that had left says cancelled")
	}
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
