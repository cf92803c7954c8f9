package self

import (
	"context"
	"errors"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

type counter struct{ n int }

func (c *counter) Place(int, []byte, int) []byte     { return nil }
func (c *counter) Deliver(int, []byte, []byte, bool) { c.n++ }
func (c *counter) PeerFailed(int, error)             {}

func TestReachesOnlyItselfWhileAdded(t *testing.T) {
	rec := &counter{}
	m := &module{rank: 1, recv: rec, eagerLimit: 4096, maxSendSize: 1 << 20}
	ctx := context.Background()
	procs := []btl.Proc{{Rank: 0}, {Rank: 1}}
	if err := m.Send(ctx, 1, []byte{1}, nil); !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("send before AddProcs: %v", err)
	}
	reach, err := m.AddProcs(ctx, procs)
	if err != nil || reach[0] || !reach[1] {
		t.Fatalf("AddProcs = %v, %v; want only rank 1", reach, err)
	}
	if err := m.Send(ctx, 1, []byte{1}, []byte("x")); err != nil || rec.n != 1 {
		t.Fatalf("send to itself: %v, %d delivered", err, rec.n)
	}
	if err := m.Send(ctx, 0, []byte{1}, nil); err == nil {
		t.Fatal("sent to another rank")
	}
	if err := m.DelProcs(ctx, procs); err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx, 1, []byte{1}, nil); !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("send after DelProcs: %v", err)
	}
}
