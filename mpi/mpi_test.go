package mpi_test

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

// TestSingleton runs the API in this test process, which gompirun did not
// start: a singleton job of one rank. MPI initialises once per process, so
// this is one test.
func TestSingleton(t *testing.T) {
	if mpi.Finalized() {
		t.Skip("an earlier run in this process (-count above 1) initialised and finalised MPI, which happens once per process")
	}
	if mpi.Initialized() || mpi.CommWorld().Rank() != -1 {
		t.Fatal("initialised before Init")
	}
	if err := mpi.Send([]int{1}, 0, 0, mpi.CommWorld()); !errors.Is(err, mpi.ErrOther) || !strings.Contains(err.Error(), "call Init first") {
		t.Fatalf("send before Init: %v", err)
	}
	// Pcontrol without tools does nothing, from any goroutine, before,
	// during and after Init (with -race, it is checked for races with
	// the Init that builds the stack).
	if err := mpi.Pcontrol(0); err != nil {
		t.Fatalf("Pcontrol before Init: %v", err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := mpi.Pcontrol(1); err != nil {
					t.Errorf("Pcontrol during Init: %v", err)
					return
				}
				runtime.Gosched()
			}
		})
	}
	level, err := mpi.InitThread(mpi.ThreadSingle)
	close(stop)
	wg.Wait()
	if err != nil || level != mpi.ThreadSingle {
		t.Fatalf("InitThread = %v, %v", level, err)
	}
	world := mpi.CommWorld()
	if world.Rank() != 0 || world.Size() != 1 || mpi.CommSelf().Size() != 1 {
		t.Fatalf("rank %d size %d", world.Rank(), world.Size())
	}

	// Typed buffers: elements, not bytes, are counted.
	in := []float64{1.5, 2.5, 3.5}
	r, err := mpi.Irecv(make([]float64, 4), 0, 3, world)
	if err != nil {
		t.Fatal(err)
	}
	if err := mpi.Send(in, 0, 3, world); err != nil {
		t.Fatal(err)
	}
	st, err := r.Wait()
	if err != nil || st.Count != 3 || st.Source != 0 || st.Tag != 3 {
		t.Fatalf("status %+v err %v", st, err)
	}

	// Probe, then receive with the probed count.
	if err := mpi.Send([]int32{7, 8}, 0, 4, world); err != nil {
		t.Fatal(err)
	}
	st, found, err := mpi.Iprobe(mpi.AnySource, mpi.AnyTag, world)
	if err != nil || !found || mpi.GetCount[int32](st) != 2 {
		t.Fatalf("iprobe %+v %v %v", st, found, err)
	}
	got := make([]int32, mpi.GetCount[int32](st))
	if _, err := mpi.Recv(got, 0, 4, world); err != nil || got[1] != 8 {
		t.Fatalf("recv %v %v", got, err)
	}

	// An error handler is one of the two.
	if err := world.SetErrorHandler(mpi.ErrorHandler(7)); !errors.Is(err, mpi.ErrArg) || !strings.Contains(err.Error(), "want ErrorsReturn or ErrorsAreFatal") {
		t.Fatalf("SetErrorHandler(7): %v", err)
	}

	// Truncation is an error of class ErrTruncate that says what happened.
	if err := mpi.Send([]byte("hello"), 0, 5, world); err != nil {
		t.Fatal(err)
	}
	_, err = mpi.Recv(make([]byte, 2), 0, 5, world)
	if !errors.Is(err, mpi.ErrTruncate) || err.Error() != "recv from rank 0 of comm MPI_COMM_WORLD, tag 5: message of 5 bytes truncated to 2" {
		t.Fatalf("truncation: %v", err)
	}

	// WaitAny makes the completed entry inactive.
	a, _ := mpi.Irecv(make([]byte, 1), 0, 10, world)
	b, _ := mpi.Irecv(make([]byte, 1), 0, 11, world)
	_ = mpi.Send([]byte{1}, 0, 11, world)
	reqs := []mpi.Request{a, b}
	if i, _, err := mpi.WaitAny(reqs); i != 1 || err != nil || reqs[1].Active() {
		t.Fatalf("WaitAny = %d, %v; second still active: %v", i, err, reqs[1].Active())
	}
	if err := reqs[0].Cancel(); err != nil {
		t.Fatal(err)
	}
	if st, _ := reqs[0].Wait(); !st.Cancelled {
		t.Fatalf("cancelled receive: %+v", st)
	}

	// The Wait that completes a request frees it, and every copy of it:
	// a second Wait is one on MPI_REQUEST_NULL, even once the request has
	// been recycled into a new operation, which it must leave alone.
	first, _ := mpi.Irecv(make([]byte, 1), 0, 12, world)
	copied := first
	_ = mpi.Send([]byte{9}, 0, 12, world)
	if st, err := first.Wait(); err != nil || st.Tag != 12 || st.Count != 1 {
		t.Fatalf("first wait: %+v %v", st, err)
	}
	for i := range 4 { // new requests, some of them in the freed one
		buf := make([]byte, 1)
		next, _ := mpi.Irecv(buf, 0, 13, world)
		for _, stale := range []mpi.Request{first, copied} {
			if stale.Active() {
				t.Fatal("a completed request is still active")
			}
			if st, done, err := stale.Test(); !done || err != nil || st.Source != mpi.AnySource || st.Tag != mpi.AnyTag {
				t.Fatalf("test of a completed request: %+v %v %v", st, done, err)
			}
			if st, err := stale.Wait(); err != nil || st.Source != mpi.AnySource || st.Tag != mpi.AnyTag || st.Count != 0 {
				t.Fatalf("second wait: %+v %v", st, err)
			}
			if err := stale.Cancel(); err != nil {
				t.Fatalf("cancel of a completed request: %v", err)
			}
		}
		if !next.Active() {
			t.Fatal("the new request was taken by a stale handle")
		}
		_ = mpi.Send([]byte{byte(i)}, 0, 13, world)
		if st, err := next.Wait(); err != nil || st.Tag != 13 || buf[0] != byte(i) {
			t.Fatalf("new request after stale calls: %+v %v %d", st, err, buf[0])
		}
	}
	// WaitAllStatus fills the caller's statuses; too few is an error that
	// leaves the requests alone.
	two := []mpi.Request{}
	for tag := 20; tag < 22; tag++ {
		q, _ := mpi.Irecv(make([]byte, 4), 0, tag, world)
		two = append(two, q)
		_ = mpi.Send([]byte{1, 2, byte(tag)}, 0, tag, world)
	}
	if err := mpi.WaitAllStatus(two, make([]mpi.Status, 1)); !errors.Is(err, mpi.ErrArg) || !two[0].Active() || !two[1].Active() {
		t.Fatalf("WaitAllStatus with one status for two requests: %v, active %v %v", err, two[0].Active(), two[1].Active())
	}
	sts := make([]mpi.Status, 2)
	if err := mpi.WaitAllStatus(two, sts); err != nil || sts[0].Tag != 20 || sts[1].Tag != 21 || sts[1].Count != 3 {
		t.Fatalf("WaitAllStatus: %v %+v", err, sts)
	}

	// So a non-blocking receive and a send in the steady state allocate
	// nothing (the average over many rounds: a collection may empty a pool).
	rbuf, sbuf := make([]byte, 8), make([]byte, 8)
	round := func(t *testing.T) {
		q, err := mpi.Irecv(rbuf, 0, 14, world)
		if err != nil {
			t.Fatal(err)
		}
		s, err := mpi.Isend(sbuf, 0, 14, world)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Wait(); err != nil {
			t.Fatal(err)
		}
		q, _ = mpi.Irecv(rbuf, 0, 15, world)
		s, _ = mpi.Isend(sbuf, 0, 15, world)
		if err := mpi.WaitAll(q, s); err != nil {
			t.Fatal(err)
		}
	}
	round(t)
	t.Run("steady state allocates nothing", func(t *testing.T) {
		if raceBuild {
			t.Skip("the race detector's sync.Pool drops items on purpose: make test checks allocations without it")
		}
		if n := testing.AllocsPerRun(1000, func() { round(t) }); n != 0 {
			t.Fatalf("Irecv, Isend, Wait and WaitAll allocate %v times a round", n)
		}
	})

	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
	if !mpi.Finalized() || !mpi.Initialized() {
		t.Fatal("state after Finalize")
	}
	if err := mpi.Pcontrol(2); err != nil {
		t.Fatalf("Pcontrol after Finalize: %v", err)
	}
	if err := mpi.Init(); err == nil || !strings.Contains(err.Error(), "once per process") {
		t.Fatalf("Init after Finalize: %v", err)
	}
}
