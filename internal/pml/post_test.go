package pml

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
)

// poster is a transport that can hold fragments back, recording how the
// engine hands them over.
type poster struct {
	discard
	calls []string
}

func (p *poster) For(int) btl.Module { return p }
func (p *poster) Send(context.Context, int, []byte, []byte) error {
	p.calls = append(p.calls, "send")
	return nil
}
func (p *poster) Post(context.Context, int, []byte, []byte) error {
	p.calls = append(p.calls, "post")
	return nil
}
func (p *poster) Flush(peer int) { p.calls = append(p.calls, "flush") }

// A non-blocking eager send is posted, and waiting on it flushes it once;
// a blocking send and a rendezvous announcement are sent at once.
func TestNonBlockingSendsArePosted(t *testing.T) {
	tr := &poster{}
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(tr)
	r := e.Isend(world, 1, 7, make([]byte, 8), false)
	if !r.Done() {
		t.Fatal("a posted eager send is not complete")
	}
	e.Wait(r)
	e.Wait(r) // a second wait has nothing left to flush
	if err := e.Send(world, 1, 7, make([]byte, 8), false); err != nil {
		t.Fatal(err)
	}
	e.Isend(world, 1, 7, make([]byte, 8), true) // synchronous: an RTS
	if want := []string{"post", "flush", "send", "send"}; !slices.Equal(tr.calls, want) {
		t.Fatalf("transport calls %v, want %v", tr.calls, want)
	}
}
