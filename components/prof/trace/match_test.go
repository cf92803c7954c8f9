package trace

import (
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// TestMatchOrder: the n-th send from a to b on (comm, tag) and the n-th
// receive at b from a on (comm, tag) get the same id, whatever order the
// streams interleave in; different streams never share one.
func TestMatchOrder(t *testing.T) {
	r0, r1, r2 := newMatcher(), newMatcher(), newMatcher()
	// Sends: rank 0 sends twice with tag 1 and once with tag 2; rank 2 once with tag 1.
	s01a := r0.send("world", 0, 1, 1)
	s01b := r0.send("world", 0, 1, 1)
	s01t2 := r0.send("world", 0, 1, 2)
	s21 := r2.send("world", 2, 1, 1)
	sdup := r0.send("world.0", 0, 1, 1)
	// Rank 1 receives from AnySource: the statuses say rank 2 came first,
	// then rank 0's tag 2 (AnyTag), then rank 0's two tag-1 messages.
	got := []uint64{
		r1.recv("world", 2, 1, 1),
		r1.recv("world", 0, 1, 2),
		r1.recv("world", 0, 1, 1),
		r1.recv("world", 0, 1, 1),
		r1.recv("world.0", 0, 1, 1),
	}
	want := []uint64{s21, s01t2, s01a, s01b, sdup}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("receive %d: id %d, want %d", i, got[i], want[i])
		}
	}
	seen := map[uint64]bool{}
	for _, id := range want {
		if id == 0 || id >= 1<<53 || seen[id] {
			t.Errorf("id %d: zero, too large for JSON or shared", id)
		}
		seen[id] = true
	}
}

// TestMatchNull: ProcNull, a cancelled receive and nil communicators make
// no arrow and do not advance a stream.
func TestMatchNull(t *testing.T) {
	m := newMatcher()
	if id := m.sendOn(nil, "", 1, 0); id != 0 {
		t.Errorf("send on nil comm: id %d", id)
	}
	if id := m.recvOn(nil, "", 1, 0, false); id != 0 {
		t.Errorf("recv on nil comm: id %d", id)
	}
	if len(m.sent)+len(m.recvd) != 0 {
		t.Error("streams advanced")
	}
}

// TestDerive: communicators made from one parent are numbered in the
// order of the calls, on every rank alike.
func TestDerive(t *testing.T) {
	world, sub := &pmpi.Comm{}, &pmpi.Comm{}
	a, b := newMatcher(), newMatcher()
	for _, m := range []*matcher{&a, &b} {
		m.name(world, "world")
	}
	if id := a.derive(world); id != "world.0" {
		t.Errorf("first: %q", id)
	}
	a.name(sub, "world.1")
	if id := a.derive(world); id != "world.1" {
		t.Errorf("second: %q", id)
	}
	if id := a.derive(sub); id != "world.1.0" {
		t.Errorf("from the second: %q", id)
	}
	if id := b.derive(world); id != "world.0" {
		t.Errorf("other rank's first: %q", id)
	}
	a.forget(sub)
	if _, ok := a.comms[sub]; ok {
		t.Error("freed communicator still named")
	}
}
