package pml

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// failingSend is a module whose every send fails with an error that, as
// btl.Module asks, names the peer and not the component.
type failingSend struct{ btl.Module }

func (f failingSend) Send(_ context.Context, peer int, _, _ []byte) error {
	return fmt.Errorf("send to world rank %d: no route today", peer)
}

// The engine names the module once when a send fails, whichever path the
// send took; a module's error leaves its own name out.
func TestSendErrorNamesTheModuleOnce(t *testing.T) {
	nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module { return failingSend{m} })
	e := nt.engines[0]
	const want = "btl loopback: send to world rank 1: no route today"
	if err := e.Send(world, 1, 3, []byte("eager"), false); err == nil || err.Error() != want {
		t.Errorf("blocking eager send: %v, want %q", err, want)
	}
	if st := e.Wait(e.Isend(world, 1, 3, []byte("eager"), false)); st.Err == nil || st.Err.Error() != want {
		t.Errorf("Isend: %v, want %q", st.Err, want)
	}
	if st := e.Wait(e.Isend(world, 1, 3, make([]byte, 1000), false)); st.Err == nil || st.Err.Error() != want {
		t.Errorf("Isend of a rendezvous: %v, want %q", st.Err, want)
	}
}

// A peer's failure names the module that reached it, once, before the
// module's own error, which names the peer as a world rank.
func TestPeerFailureNamesTheModule(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	e := nt.engines[0]
	r := e.Irecv(world, 1, 3, make([]byte, 8))
	nt.kill(1)
	st := e.Wait(r)
	if !errors.Is(st.Err, btl.ErrPeerFailed) {
		t.Fatalf("receive from a killed peer: %v, want btl.ErrPeerFailed", st.Err)
	}
	if want := "btl loopback: world rank 1: peer failed: killed"; st.Err.Error() != want {
		t.Errorf("receive from a killed peer: %q, want %q", st.Err, want)
	}
}
