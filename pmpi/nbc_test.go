package pmpi

import (
	"errors"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

// The kinds follow coll.Collectives, whose order names them in the table.
func TestCollKindsFollowCollectives(t *testing.T) {
	want := map[int]string{collBarrier: "barrier", collAllreduce: "allreduce", collAlltoallv: "alltoallv",
		collReduceScatterBlock: "reduce_scatter_block", collExscan: "exscan",
		collNeighborAllgather: "neighbor_allgather", collNeighborAlltoallv: "neighbor_alltoallv",
		collAlltoallw: "alltoallw", collNeighborAlltoallw: "neighbor_alltoallw"}
	for kind, name := range want {
		if coll.Collectives[kind] != name {
			t.Errorf("kind %d is %q in coll.Collectives, want %q", kind, coll.Collectives[kind], name)
		}
	}
	if len(coll.Collectives) != collNeighborAlltoallw+1 {
		t.Errorf("%d collectives, %d kinds", len(coll.Collectives), collNeighborAlltoallw+1)
	}
}

// Every slot of every communicator has a context of its own, above the
// ids communicators take.
func TestNBCContexts(t *testing.T) {
	seen := map[uint32]bool{}
	for _, cid := range []uint32{0, 2, 4, nbcContexts - 2} {
		for _, slot := range []int{0, 1, nbcOutstanding - 1, nbcOutstanding, 1<<nbcSlotBits - 1} {
			ctx := nbcContext(&Comm{context: cid}, slot)
			if ctx < 1<<31 || seen[ctx] {
				t.Fatalf("context %#x of communicator %d, slot %d: below 1<<31 or taken", ctx, cid, slot)
			}
			seen[ctx] = true
		}
	}
}

// A non-blocking call's slot comes round again once the call that held
// it is released; persistent slots are refused while held.
func TestNBCSlots(t *testing.T) {
	var s nbcState
	for i := range nbcOutstanding {
		if got, _ := s.take(nil); got != i {
			t.Fatalf("take %d gave slot %d", i, got)
		}
	}
	next := make(chan int)
	go func() {
		slot, _ := s.take(nil)
		next <- slot
	}()
	s.release(0)
	if got := <-next; got != 0 {
		t.Fatalf("the call after %d took slot %d, want 0 once released", nbcOutstanding, got)
	}
	first, ok := s.takePersistent()
	if !ok || first != nbcOutstanding {
		t.Fatalf("first persistent slot %d, %v", first, ok)
	}
	for range nbcPersistent - 1 {
		if _, ok := s.takePersistent(); !ok {
			t.Fatal("a persistent slot was refused before they came round")
		}
	}
	if _, ok := s.takePersistent(); ok {
		t.Fatal("the persistent slot of a call not freed was taken again")
	}
	s.releasePersistent(first)
	if again, ok := s.takePersistent(); !ok || again != first {
		t.Fatalf("after release: slot %d, %v; want %d", again, ok, first)
	}
}

// Each call is named as MPI names it: blocking, non-blocking, persistent.
func TestNBCCallNames(t *testing.T) {
	for _, tc := range []struct {
		name *collName
		s    *collStart
		want string
	}{
		{&nameAllreduce, nil, "allreduce"},
		{&nameAllreduce, &collStart{}, "iallreduce"},
		{&nameReduceScatterBlock, &collStart{}, "ireduce scatter block"},
		{&nameReduceScatterBlock, &collStart{persistent: true}, "reduce scatter block init"},
		{&nameBarrier, &collStart{persistent: true}, "barrier init"},
		{&nameNeighborAlltoallw, &collStart{}, "ineighbor alltoallw"},
	} {
		if got := tc.s.callName(tc.name); got != tc.want {
			t.Errorf("callName(%q), start %+v: %q, want %q", tc.name.blocking, tc.s, got, tc.want)
		}
	}
}

// A non-blocking or persistent call's job hands its module a communicator
// that says so, on the communicator's context or its slot's; a blocking
// call's says it is not.
func TestJobComm(t *testing.T) {
	c := &Comm{context: 3}
	c.cc, c.reqCC = &collComm{c: c, ctx: 4}, &collComm{c: c, ctx: 4, nb: true}
	var nb coll.NonBlocking = c.cc
	if nb.NonBlocking() {
		t.Error("a blocking call's communicator says it serves a request")
	}
	for _, slot := range []int{-1, 2} {
		want := c.cc.ctx
		if slot >= 0 {
			want = nbcContext(c, slot)
		}
		x := jobComm(c, slot)
		if nb = x; !nb.NonBlocking() || x.ctx != want || x.c != c {
			t.Errorf("slot %d: the job's communicator: non-blocking %v, context %#x, want true and %#x", slot, nb.NonBlocking(), x.ctx, want)
		}
	}
}

// A non-blocking call's job goes back to its communicator only when both
// its worker and its request's Wait have let go of it, without the
// buffers of the call it ran, and the next call takes it.
func TestNBCJobReuse(t *testing.T) {
	c := &Comm{}
	_, j := c.nbc.take(nil)
	j.k.comm, j.o.send = c, make([]byte, 4)
	j.holders.Store(2)
	j.letGo()
	if _, other := c.nbc.take(nil); other == j {
		t.Fatal("a job still held by its request was taken by the next call")
	}
	j.letGo()
	if _, again := c.nbc.take(nil); again != j {
		t.Fatal("a job let go by both holders was not taken by the next call")
	}
	if j.o.send != nil || j.k.comm != nil {
		t.Error("a job given back keeps the buffers or the communicator of its call")
	}
}

// A non-blocking call's start does not keep its prepare, whose closure of
// the call's arguments would then be allocated at every start; a
// persistent one keeps it for its restarts.
func TestNBCStartKeepsPrepare(t *testing.T) {
	for _, start := range []struct {
		name string
		f    func(func(*collStart) error) (*Request, error)
		keep bool
	}{{"nonblocking", nonblocking, false}, {"persistentColl", persistentColl, true}} {
		stop := errors.New("checked")
		_, err := start.f(func(s *collStart) error {
			if kept := s.prepare != nil; kept != start.keep {
				t.Errorf("%s: prepare kept %v, want %v", start.name, kept, start.keep)
			}
			return stop
		})
		if err != stop {
			t.Errorf("%s returned %v, want prepare's error", start.name, err)
		}
	}
}

// A collective's request names the call and its communicator, not a peer.
func TestCollRequestDesc(t *testing.T) {
	c := &Comm{}
	name := "world"
	c.name.Store(&name)
	r := &Request{op: "ibcast", peer: collPeer, comm: c}
	if got, want := r.String(), "request(ibcast on comm world)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
