package pmpi_test

import (
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// testGate arms a gate word with a pending receive and with a probe: Arm
// keeps only pending point-to-point requests, refuses a probe whose mark a
// message has passed, and the message that completes the receive clears
// the word.
func testGate(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	var gate atomic.Uint32
	pmpi.SetGate(&gate)
	defer pmpi.SetGate(nil)
	add := func(*atomic.Uint64, uint64) bool { return true }
	buf, in := []byte("8 bytes!"), make([]byte, 8)

	sent, _ := api.Isend(buf, 8, pmpi.Byte, 0, 40, w) // eager to itself: complete at once
	pending, _ := api.Irecv(in, 8, pmpi.Byte, 0, 41, w)
	reqs := []*pmpi.Request{sent, nil, pending}
	if !pmpi.Arm(reqs, false, 0, add) || gate.Load() == 0 {
		t.Fatal("Arm refused a pending receive")
	}
	if reqs[0] != nil || reqs[2] != pending {
		t.Errorf("Arm kept %v; want only the pending receive", reqs)
	}
	if err := api.Send(buf, 8, pmpi.Byte, 0, 41, w); err != nil {
		t.Fatal(err)
	}
	if gate.Load() != 0 {
		t.Error("the message that completed the gate's receive left it armed")
	}
	if pmpi.Arm([]*pmpi.Request{pending}, false, 0, add) {
		t.Error("Arm armed with a complete receive")
	}
	if _, err := api.Wait(pending); err != nil {
		t.Fatal(err)
	}

	mark := pmpi.ProbeMark()
	if err := api.Send(buf, 8, pmpi.Byte, 0, 42, w); err != nil { // held: no receive yet
		t.Fatal(err)
	}
	if pmpi.Arm(nil, true, mark, add) || gate.Load() != 0 {
		t.Error("Arm armed a probe whose mark a message has passed")
	}
	if !pmpi.Arm(nil, true, pmpi.ProbeMark(), add) {
		t.Error("Arm refused a probe with a fresh mark")
	}
	if _, err := api.Recv(in, 8, pmpi.Byte, 0, 42, w); err != nil {
		t.Fatal(err)
	}
}
