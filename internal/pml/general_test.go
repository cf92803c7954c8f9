package pml

import "testing"

// A general request is pending until its owner completes it, from
// another goroutine too, and waits like any other: WaitAny among a
// receive that never matches returns it, and Cancel leaves it alone.
func TestGeneralRequest(t *testing.T) {
	nt := newNet(t, 1, 64, 100)
	e := nt.engines[0]
	var g Request
	r := e.StartGeneral(&g)
	if r.Done() {
		t.Fatal("a general request is done as it starts")
	}
	if ok, err := e.Cancel(r); ok || err != nil || r.Done() {
		t.Fatalf("Cancel of a general request: %v, %v, done %v", ok, err, r.Done())
	}
	recv := e.Irecv(world, 0, 1, nil)
	go e.CompleteGeneral(r, Status{Tag: 7})
	if i := e.WaitAny([]*Request{recv, r}); i != 1 {
		t.Fatalf("WaitAny returned %d, want the general request's 1", i)
	}
	if st := e.Wait(r); st.Tag != 7 {
		t.Fatalf("general request's status %+v, want its owner's", st)
	}
	if ok, _ := e.Cancel(recv); !ok {
		t.Fatal("the receive could not be cancelled")
	}
}
