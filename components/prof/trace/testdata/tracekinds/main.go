// Command tracekinds sends messages between 2 ranks by every kind of
// point-to-point call, for the trace component's arrow test: each stream
// (communicator, tag) begins with a message of one kind and ends with a
// plain Send and Recv, each message with a length of its own, so that a
// kind the tracer failed to count shifts the arrows after it onto
// messages of another length. Communicators come from Idup, an
// intercommunicator and its merge, and CreateGroup.
package main

import (
	"fmt"
	"os"

	_ "github.com/gompi/gompi/components/all"
	_ "github.com/gompi/gompi/components/prof/trace"
	"github.com/gompi/gompi/mpi"
)

var world mpi.Comm

func main() {
	check("init", mpi.Init())
	world = mpi.CommWorld()
	if world.Size() != 2 {
		fail("size", fmt.Errorf("want 2 ranks, have %d", world.Size()))
	}
	check("attach", mpi.BufferAttach(make([]byte, 1<<16)))
	if world.Rank() == 0 {
		sender()
	} else {
		receiver()
	}
	exchanges()
	comms()
	_, err := mpi.BufferDetach()
	check("detach", err)
	fmt.Printf("ok rank %d\n", world.Rank())
	check("finalize", mpi.Finalize())
}

// n returns a message of k int32s.
func n(k int) []int32 { return make([]int32, k) }

// plain ends a stream with a message of k int32s.
func plain(k, tag int, comm mpi.Comm) {
	if comm.Rank() == 0 {
		check("send", mpi.Send(n(k), 1, tag, comm))
		return
	}
	recv(k, 0, tag, comm)
}

func recv(k, source, tag int, comm mpi.Comm) {
	st, err := mpi.Recv(n(k), source, tag, comm)
	check("recv", err)
	if st.Count != k {
		fail("recv", fmt.Errorf("tag %d: %d elements, want %d", tag, st.Count, k))
	}
}

func wait(what string, r mpi.Request) {
	_, err := r.Wait()
	check(what, err)
}

// sender is rank 0's half of the one-way streams.
func sender() {
	check("bsend", mpi.Bsend(n(1), 1, 10, world))
	plain(2, 10, world)

	check("barrier", mpi.Barrier(world)) // rank 1 posted its receive
	check("rsend", mpi.Rsend(n(3), 1, 11, world))
	plain(4, 11, world)

	r, err := mpi.Ibsend(n(5), 1, 12, world)
	check("ibsend", err)
	wait("wait ibsend", r)
	plain(6, 12, world)

	check("barrier", mpi.Barrier(world))
	r, err = mpi.Irsend(n(7), 1, 13, world)
	check("irsend", err)
	wait("wait irsend", r)
	plain(8, 13, world)

	p, err := mpi.SendInit(n(9), 1, 14, world)
	check("send init", err)
	for range 2 {
		check("start", p.Start())
		wait("wait send init", p)
	}
	check("free", p.Free())
	plain(10, 14, world)

	check("send", mpi.Send(n(11), 1, 15, world))
	check("send", mpi.Send(n(11), 1, 15, world))
	plain(12, 15, world)

	b, err := mpi.BsendInit(n(13), 1, 16, world)
	check("bsend init", err)
	s, err := mpi.SsendInit(n(14), 1, 17, world)
	check("ssend init", err)
	check("startall", mpi.Startall(b, s))
	check("waitall", mpi.WaitAll(b, s))
	check("barrier", mpi.Barrier(world))
	rs, err := mpi.RsendInit(n(15), 1, 18, world)
	check("rsend init", err)
	check("start", rs.Start())
	wait("wait rsend init", rs)
	for _, r := range []mpi.Request{b, s, rs} {
		check("free", r.Free())
	}
	plain(16, 16, world)
	plain(17, 17, world)
	plain(18, 18, world)

	// Partitioned messages match apart: the plain one on tag 19 is the
	// stream's first.
	ps, err := mpi.PsendInit(n(20), 2, 1, 19, world)
	check("psend init", err)
	for range 2 {
		check("start", ps.Start())
		check("pready", ps.PreadyRange(0, 1))
		wait("wait psend", ps)
	}
	check("free", ps.Free())
	plain(19, 19, world)
}

// receiver is rank 1's half of the one-way streams.
func receiver() {
	recv(1, 0, 10, world)
	plain(2, 10, world)

	r, err := mpi.Irecv(n(3), 0, 11, world)
	check("irecv", err)
	check("barrier", mpi.Barrier(world))
	wait("wait irecv", r)
	plain(4, 11, world)

	msg, _, err := mpi.Mprobe(0, 12, world)
	check("mprobe", err)
	_, err = mpi.Mrecv(n(5), &msg)
	check("mrecv", err)
	plain(6, 12, world)

	r, err = mpi.Irecv(n(7), 0, 13, world)
	check("irecv", err)
	check("barrier", mpi.Barrier(world))
	idx := make([]int, 1)
	for done := 0; done == 0; {
		done, err = mpi.TestSome([]mpi.Request{r}, idx, nil)
		check("testsome", err)
	}
	plain(8, 13, world)

	recv(9, 0, 14, world)
	for found := false; !found; {
		msg, _, found, err = mpi.Improbe(0, 14, world)
		check("improbe", err)
	}
	r, err = mpi.Imrecv(n(9), &msg)
	check("imrecv", err)
	wait("wait imrecv", r)
	plain(10, 14, world)

	p, err := mpi.RecvInit(n(11), 0, 15, world)
	check("recv init", err)
	for range 2 {
		check("startall", mpi.Startall(p))
		wait("wait recv init", p)
	}
	check("free", p.Free())
	plain(12, 15, world)

	recv(13, 0, 16, world)
	recv(14, 0, 17, world)
	r, err = mpi.Irecv(n(15), 0, 18, world)
	check("irecv", err)
	check("barrier", mpi.Barrier(world))
	wait("wait irecv", r)
	plain(16, 16, world)
	plain(17, 17, world)
	plain(18, 18, world)

	pr, err := mpi.PrecvInit(n(20), 2, 0, 19, world)
	check("precv init", err)
	for range 2 {
		check("start", pr.Start())
		wait("wait precv", pr)
	}
	check("free", pr.Free())
	plain(19, 19, world)
}

// exchanges runs the two-way calls: each rank sends to the other.
func exchanges() {
	other := 1 - world.Rank()
	_, err := mpi.SendrecvReplace(n(21), other, 20, other, 20, world)
	check("sendrecv replace", err)
	plain(22, 20, world)

	r, err := mpi.Isendrecv(n(23), other, 21, n(23), other, 21, world)
	check("isendrecv", err)
	wait("wait isendrecv", r)
	r, err = mpi.IsendrecvReplace(n(24), other, 21, other, 21, world)
	check("isendrecv replace", err)
	check("waitall", mpi.WaitAll(r))
	plain(25, 21, world)
}

// comms sends on communicators the tracer must name alike on both ranks.
func comms() {
	a, ra, err := world.Idup()
	check("idup", err)
	b, rb, err := world.Idup()
	check("idup", err)
	check("waitall", mpi.WaitAll(ra, rb))
	// The same tag on both: were they one stream, the arrows would cross.
	if world.Rank() == 0 {
		check("send", mpi.Send(n(26), 1, 30, a))
		check("send", mpi.Send(n(27), 1, 30, b))
	} else {
		recv(27, 0, 30, b)
		recv(26, 0, 30, a)
	}

	// An intercommunicator of one rank a side: both ranks are rank 0 of
	// their group, so only world ranks tell its two streams apart.
	half, err := world.Split(world.Rank(), 0)
	check("split", err)
	inter, err := mpi.IntercommCreate(half, 0, world, 1-world.Rank(), 40)
	check("intercomm create", err)
	if world.Rank() == 0 {
		check("send", mpi.Send(n(28), 0, 31, inter))
		recv(29, 0, 31, inter)
	} else {
		recv(28, 0, 31, inter)
		check("send", mpi.Send(n(29), 0, 31, inter))
	}
	merged, err := inter.Merge(world.Rank() == 1)
	check("merge", err)
	plain(30, 32, merged)

	g, err := world.Group()
	check("group", err)
	made, err := world.CreateGroup(g, 5)
	check("create group", err)
	plain(31, 33, made)
	d, err := world.Dup()
	check("dup", err)
	plain(32, 34, d)
	for _, c := range []mpi.Comm{a, b, half, inter, merged, made, d} {
		check("free", c.Free())
	}
}

func check(what string, err error) {
	if err != nil {
		fail(what, err)
	}
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "rank %d: %s: %v\n", world.Rank(), what, err)
	os.Exit(1)
}
