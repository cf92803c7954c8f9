package pmpi_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/pmpi"
)

// TestModesSingleton runs the send modes, persistent requests and
// completion calls in this process as a singleton job of one rank, whose
// messages go to itself through btl self. MPI initialises once per
// process, so this is one test with subtests.
func TestModesSingleton(t *testing.T) {
	api := pmpi.Real()
	if api.Finalized() {
		t.Skip("an earlier run in this process (-count above 1) finalised MPI, which initialises once per process")
	}
	if pmpi.ParamValues() != nil {
		t.Error("ParamValues before Init is not nil")
	}
	if pmpi.YieldsWhenWaiting() {
		t.Error("YieldsWhenWaiting before Init")
	}
	if err := api.Init(); err != nil {
		t.Fatal(err)
	}
	// One rank never outnumbers its host's CPUs: only the parameter makes it yield.
	if v, _ := pmpi.ParamValues().Lookup("mpi_yield_when_idle"); pmpi.YieldsWhenWaiting() != (v.Raw == "yes") {
		t.Errorf("YieldsWhenWaiting %v with mpi_yield_when_idle %q in a singleton", pmpi.YieldsWhenWaiting(), v.Raw)
	}
	if v, ok := pmpi.ParamValues().Lookup("btl_sm_eager_limit"); !ok || v.Raw == "" {
		t.Errorf("ParamValues after Init: btl_sm_eager_limit %+v, found %v", v, ok)
	}
	w := api.CommWorld()
	w.SetErrorHandler(pmpi.ErrorsReturn)
	for _, tc := range []struct {
		name string
		f    func(*testing.T, pmpi.API, *pmpi.Comm)
	}{
		{"persistent", testPersistent},
		{"persistent-errors", testPersistentErrors},
		{"persistent-allocs", testPersistentAllocs},
		{"bsend", testBsend},
		{"bsend-errors", testBsendErrors},
		{"bsend-scope", testBsendScope},
		{"queue-levels", testQueueLevels},
		{"rsend", testRsend},
		{"sendrecv", testSendrecv},
		{"completion", testCompletion},
		{"cancel-own", testCancelOwn},
		{"free", testFree},
		{"status", testStatusSetters},
		{"derived-direct", testDerivedDirect},
		{"collective-args", testCollectiveArgs},
		{"in-place-allocs", testInPlaceAllocs},
		{"aside", testAside},
		{"gate", testGate},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, api, w) })
	}
	if err := api.Finalize(); err != nil {
		t.Fatal(err)
	}
	if pmpi.ParamValues() != nil {
		t.Error("ParamValues after Finalize is not nil")
	}
}

func classOf(err error) pmpi.ErrorClass {
	var e *pmpi.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return 0
}

func wantClass(t *testing.T, what string, err error, class pmpi.ErrorClass, says string) {
	t.Helper()
	if classOf(err) != class || !strings.Contains(fmt2(err), says) {
		t.Fatalf("%s: got %v, want %v saying %q", what, err, class, says)
	}
}

func fmt2(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// A persistent send and receive restarted many times carry fresh data each
// time, eager and rendezvous alike; Wait on them when inactive returns the
// empty status at once.
func testPersistent(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	for _, size := range []int{8, 64 << 10} {
		out, in := make([]byte, size), make([]byte, size)
		for _, initSend := range []func([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error){
			api.SendInit, api.SsendInit, api.RsendInit,
		} {
			s, err := initSend(out, size, pmpi.Byte, 0, 5, w)
			if err != nil {
				t.Fatal(err)
			}
			r, err := api.RecvInit(in, size, pmpi.Byte, 0, 5, w)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := api.Wait(r); err != nil || st != pmpi.EmptyStatus() {
				t.Fatalf("Wait on an inactive persistent receive: %+v, %v", st, err)
			}
			for i := range 20 {
				for j := range out {
					out[j] = byte(i + j)
				}
				if err := api.Startall([]*pmpi.Request{r, s}); err != nil {
					t.Fatal(err)
				}
				if err := api.WaitAll([]*pmpi.Request{s, r}, nil); err != nil {
					t.Fatalf("size %d start %d: %v", size, i, err)
				}
				if !bytes.Equal(in, out) {
					t.Fatalf("size %d start %d: received data of another start", size, i)
				}
			}
			for _, q := range []*pmpi.Request{s, r} {
				if err := api.RequestFree(q); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func testPersistentErrors(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	buf := make([]byte, 8)
	wantClass(t, "Start(nil)", api.Start(nil), pmpi.ClassRequest, "nil")
	q, err := api.Irecv(buf, 8, pmpi.Byte, 0, 9, w)
	if err != nil {
		t.Fatal(err)
	}
	wantClass(t, "Start on a plain request", api.Start(q), pmpi.ClassRequest, "not persistent")
	if err := api.Cancel(q); err != nil {
		t.Fatal(err)
	}
	if st, err := api.Wait(q); err != nil || !st.Cancelled {
		t.Fatalf("cancelled receive: %+v, %v", st, err)
	}
	r, err := api.RecvInit(buf, 8, pmpi.Byte, 0, 9, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Start(r); err != nil {
		t.Fatal(err)
	}
	wantClass(t, "Start on an active request", api.Start(r), pmpi.ClassRequest, "is active")
	wantClass(t, "Startall with an active request", api.Startall([]*pmpi.Request{r}), pmpi.ClassRequest, "is active")
	r2, err := api.RecvInit(buf, 8, pmpi.Byte, 0, 9, w)
	if err != nil {
		t.Fatal(err)
	}
	wantClass(t, "Startall with a request twice", api.Startall([]*pmpi.Request{r2, r2}), pmpi.ClassRequest, "may appear once")
	// The refused call started nothing and left no mark.
	if err := api.Startall([]*pmpi.Request{r2}); err != nil {
		t.Fatalf("Startall after one refused for a request listed twice: %v", err)
	}
	if err := api.Cancel(r2); err != nil {
		t.Fatal(err)
	}
	if st, err := api.Wait(r2); err != nil || !st.Cancelled {
		t.Fatalf("cancelled persistent receive: %+v, %v", st, err)
	}
	if err := api.RequestFree(r2); err != nil {
		t.Fatal(err)
	}
	if err := api.Send(buf, 8, pmpi.Byte, 0, 9, w); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Wait(r); err != nil {
		t.Fatal(err)
	}
	if err := api.RequestFree(r); err != nil {
		t.Fatal(err)
	}
	wantClass(t, "Free twice", api.RequestFree(r), pmpi.ClassRequest, "freed already")
	wantClass(t, "Start after Free", api.Start(r), pmpi.ClassRequest, "was freed")
	_, err = api.SendInit(buf, 9, pmpi.Byte, 0, 1, w)
	wantClass(t, "SendInit past the buffer", err, pmpi.ClassBuffer, "too small")
	_, err = api.RecvInit(buf, 1, pmpi.Byte, 0, -5, w)
	wantClass(t, "RecvInit with a bad tag", err, pmpi.ClassTag, "")
}

// Starting and completing a persistent request allocates nothing.
func testPersistentAllocs(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	out, in := make([]byte, 64), make([]byte, 64)
	s, _ := api.SendInit(out, 64, pmpi.Byte, 0, 3, w)
	r, _ := api.RecvInit(in, 64, pmpi.Byte, 0, 3, w)
	allocs := testing.AllocsPerRun(200, func() {
		if err := api.Start(r); err != nil {
			t.Fatal(err)
		}
		if err := api.Start(s); err != nil {
			t.Fatal(err)
		}
		if _, err := api.Wait(s); err != nil {
			t.Fatal(err)
		}
		if _, err := api.Wait(r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Start and Wait of a persistent send and receive: %v allocations per round, want 0", allocs)
	}
	_ = api.RequestFree(s)
	_ = api.RequestFree(r)
}

// bigMsg is above btl self's eager limit (64 KiB): such a message waits
// for its receive.
const bigMsg = 100 << 10

// Buffered sends within the buffer's room all arrive in order, eager and
// rendezvous; the buffer comes back on Detach once they have gone.
func testBsend(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	const n, size = 8, 100
	attached := make([]byte, n*(size+pmpi.BsendOverhead)+bigMsg+pmpi.BsendOverhead)
	if err := api.BufferAttach(attached); err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, size)
	for i := range n {
		msg[0] = byte(i)
		if err := api.Bsend(msg, size, pmpi.Byte, 0, 4, w); err != nil {
			t.Fatalf("bsend %d: %v", i, err)
		}
	}
	big := bytes.Repeat([]byte{9}, bigMsg) // waits in the buffer for its receive
	r, err := api.Ibsend(big, len(big), pmpi.Byte, 0, 6, w)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := api.Wait(r); err != nil || st.Cancelled {
		t.Fatalf("ibsend's request: %+v, %v", st, err)
	}
	clear(big)
	in := make([]byte, size)
	for i := range n {
		if _, err := api.Recv(in, size, pmpi.Byte, 0, 4, w); err != nil || in[0] != byte(i) {
			t.Fatalf("buffered message %d: first byte %d, %v", i, in[0], err)
		}
	}
	got := make([]byte, len(big))
	if _, err := api.Recv(got, len(got), pmpi.Byte, 0, 6, w); err != nil || got[0] != 9 || got[len(got)-1] != 9 {
		t.Fatalf("large buffered message: %v", err)
	}
	// Iflush completes once the buffered messages have gone: not before
	// the large one's receive is posted. The last one's room is free once
	// its send has completed, which may be after its receive did.
	if err := api.BufferFlush(); err != nil {
		t.Fatal(err)
	}
	big2 := bytes.Repeat([]byte{8}, bigMsg)
	if err := api.Bsend(big2, len(big2), pmpi.Byte, 0, 7, w); err != nil {
		t.Fatal(err)
	}
	fl, err := api.BufferIflush()
	if err != nil {
		t.Fatal(err)
	}
	if _, done, err := api.RequestGetStatus(fl); done || err != nil {
		t.Fatalf("BufferIflush's request done (%v, %v) with a message waiting for its receive", done, err)
	}
	r, err = api.Irecv(got, len(got), pmpi.Byte, 0, 7, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.WaitAll([]*pmpi.Request{fl, r}, nil); err != nil || got[0] != 8 {
		t.Fatalf("BufferIflush and the receive: %v", err)
	}
	if fl, err = api.BufferIflush(); err != nil {
		t.Fatal(err)
	}
	if _, done, err := api.RequestGetStatus(fl); !done || err != nil {
		t.Fatalf("BufferIflush with nothing buffered: done %v, %v", done, err)
	}
	if _, err := api.Wait(fl); err != nil {
		t.Fatal(err)
	}
	back, err := api.BufferDetach()
	if err != nil || &back[0] != &attached[0] || len(back) != len(attached) {
		t.Fatalf("BufferDetach returned %d bytes, %v; want the attached %d", len(back), err, len(attached))
	}

	// A communicator's buffer is used before the process's.
	if err := api.CommAttachBuffer(w, make([]byte, size+pmpi.BsendOverhead)); err != nil {
		t.Fatal(err)
	}
	if err := api.Bsend(msg, size, pmpi.Byte, 0, 4, w); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Recv(in, size, pmpi.Byte, 0, 4, w); err != nil {
		t.Fatal(err)
	}
	if err := api.CommBufferFlush(w); err != nil {
		t.Fatal(err)
	}
	fl, err = api.CommBufferIflush(w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Wait(fl); err != nil {
		t.Fatal(err)
	}
	if _, err := api.CommDetachBuffer(w); err != nil {
		t.Fatal(err)
	}

	// Freeing a communicator detaches its buffer, once its messages have gone.
	dup, err := api.CommDup(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.CommAttachBuffer(dup, make([]byte, len(big)+pmpi.BsendOverhead)); err != nil {
		t.Fatal(err)
	}
	if err := api.Bsend(big, len(big), pmpi.Byte, 0, 6, dup); err != nil {
		t.Fatal(err)
	}
	r, err = api.Irecv(got, len(got), pmpi.Byte, 0, 6, dup)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.CommFree(dup); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Wait(r); err != nil {
		t.Fatal(err)
	}
	if _, err := api.CommDetachBuffer(dup); classOf(err) != pmpi.ClassComm {
		t.Fatalf("CommDetachBuffer on a freed communicator: %v, want ClassComm", err)
	}
}

func testBsendErrors(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	msg := make([]byte, 100)
	wantClass(t, "Bsend with no buffer", api.Bsend(msg, 100, pmpi.Byte, 0, 1, w), pmpi.ClassBuffer, "no buffer is attached")
	_, err := api.BufferDetach()
	wantClass(t, "BufferDetach with none", err, pmpi.ClassBuffer, "no buffer attached")
	_, err = api.CommDetachBuffer(w)
	wantClass(t, "CommDetachBuffer with none", err, pmpi.ClassBuffer, "no buffer attached")
	wantClass(t, "BufferAttach of nothing", api.BufferAttach(nil), pmpi.ClassBuffer, "empty")
	if err := api.BufferAttach(make([]byte, 2*(100+pmpi.BsendOverhead))); err != nil {
		t.Fatal(err)
	}
	wantClass(t, "BufferAttach twice", api.BufferAttach(make([]byte, 10)), pmpi.ClassBuffer, "attached already")
	// Two messages fit (nobody receives them yet, but they are eager and
	// go at once); the room is freed as each goes, so a third fits too.
	for i := range 3 {
		if err := api.Bsend(msg, 100, pmpi.Byte, 0, 1, w); err != nil {
			t.Fatalf("bsend %d: %v", i, err)
		}
	}
	big := make([]byte, 400)
	wantClass(t, "Bsend beyond the buffer", api.Bsend(big, 400, pmpi.Byte, 0, 1, w), pmpi.ClassBuffer,
		"a message of 400 bytes needs 464 bytes of the attached buffer (with BsendOverhead 64); 328 of its 328 bytes are free")
	for range 3 {
		if _, err := api.Recv(msg, 100, pmpi.Byte, 0, 1, w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := api.BufferDetach(); err != nil {
		t.Fatal(err)
	}
}

// A scope's buffer serves the communicators made from its groups and
// their duplicates, after their own buffers and before the process's.
func testBsendScope(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	msg := make([]byte, 100)
	roundTrip := func(c *pmpi.Comm, tag int) error {
		if err := api.Bsend(msg, 100, pmpi.Byte, 0, tag, c); err != nil {
			return err
		}
		_, err := api.Recv(msg, 100, pmpi.Byte, 0, tag, c)
		return err
	}
	s := pmpi.NewBufferScope("session 0x1000")
	g, err := api.CommGroup(w)
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.CommCreateGroup(w, g.WithScope(s), 7)
	if err != nil {
		t.Fatal(err)
	}
	wantClass(t, "Bsend in a scope with no buffer", api.Bsend(msg, 100, pmpi.Byte, 0, 1, c), pmpi.ClassBuffer, "no buffer is attached")
	if err := s.AttachBuffer(make([]byte, 100+pmpi.BsendOverhead)); err != nil {
		t.Fatal(err)
	}
	wantClass(t, "AttachBuffer twice", s.AttachBuffer(make([]byte, 10)), pmpi.ClassBuffer, "session 0x1000 has a buffer of 164 bytes attached already")
	wantClass(t, "Bsend on world", api.Bsend(msg, 100, pmpi.Byte, 0, 1, w), pmpi.ClassBuffer, "no buffer is attached")
	dup, err := api.CommDup(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, on := range []*pmpi.Comm{c, dup} {
		if err := roundTrip(on, 2+i); err != nil {
			t.Fatalf("through the scope's buffer on %v: %v", on, err)
		}
	}
	// dup's own buffer comes first, too small here though the scope's is not.
	if err := api.CommAttachBuffer(dup, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	wantClass(t, "Bsend beyond the communicator's buffer", api.Bsend(msg, 100, pmpi.Byte, 0, 4, dup), pmpi.ClassBuffer, "164 bytes")
	if _, err := api.CommDetachBuffer(dup); err != nil {
		t.Fatal(err)
	}
	if err := s.FlushBuffer(); err != nil {
		t.Fatal(err)
	}
	if b, err := s.DetachBuffer(); err != nil || len(b) != 100+pmpi.BsendOverhead {
		t.Fatalf("DetachBuffer: %d bytes, %v", len(b), err)
	}
	_, err = s.DetachBuffer()
	wantClass(t, "DetachBuffer with none", err, pmpi.ClassBuffer, "session 0x1000 has no buffer attached")
	// Without one, the process's serves the scope's communicators.
	if err := api.BufferAttach(make([]byte, 100+pmpi.BsendOverhead)); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(dup, 5); err != nil {
		t.Fatalf("through the process's buffer: %v", err)
	}
	if _, err := api.BufferDetach(); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachBuffer(pmpi.BufferAutomatic); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(c, 6); err != nil {
		t.Fatal(err)
	}
	s.End()
	wantClass(t, "Bsend after the scope ended", api.Bsend(msg, 100, pmpi.Byte, 0, 1, c), pmpi.ClassBuffer, "no buffer is attached")
	for _, x := range []*pmpi.Comm{dup, c} {
		if err := api.CommFree(x); err != nil {
			t.Fatal(err)
		}
	}
}

// QueueLevels counts a message that waits for its receive and a receive
// that waits for its message, and neither once they have met.
func testQueueLevels(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	base := pmpi.QueueLevels()
	msg := make([]byte, 100)
	if err := api.Send(msg, 100, pmpi.Byte, 0, 21, w); err != nil {
		t.Fatal(err)
	}
	r, err := api.Irecv(msg, 100, pmpi.Byte, 0, 22, w)
	if err != nil {
		t.Fatal(err)
	}
	l := pmpi.QueueLevels()
	if l.Unexpected != base.Unexpected+1 || l.UnexpectedBytes != base.UnexpectedBytes+100 || l.Posted != base.Posted+1 {
		t.Errorf("with a message and a receive waiting: %+v, before %+v", l, base)
	}
	if _, err := api.Recv(msg, 100, pmpi.Byte, 0, 21, w); err != nil {
		t.Fatal(err)
	}
	if err := api.Send(msg, 100, pmpi.Byte, 0, 22, w); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Wait(r); err != nil {
		t.Fatal(err)
	}
	if l := pmpi.QueueLevels(); l != base {
		t.Errorf("once they met: %+v, before %+v", l, base)
	}
}

// A ready send whose receive is posted is a plain message; one that comes
// first is delivered to the later receive with an error saying so.
func testRsend(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	for _, size := range []int{16, 64 << 10} {
		out, in := bytes.Repeat([]byte{3}, size), make([]byte, size)
		r, _ := api.Irecv(in, size, pmpi.Byte, 0, 2, w)
		if err := api.Rsend(out, size, pmpi.Byte, 0, 2, w); err != nil {
			t.Fatal(err)
		}
		if _, err := api.Wait(r); err != nil || !bytes.Equal(in, out) {
			t.Fatalf("size %d: ready send to a posted receive: %v", size, err)
		}
		clear(in)
		s, err := api.Irsend(out, size, pmpi.Byte, 0, 8, w)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, found, _ := api.Iprobe(0, 8, w); found {
				break
			}
		}
		st, err := api.Recv(in, size, pmpi.Byte, 0, 8, w)
		wantClass(t, "receive of an early ready send", err, pmpi.ClassOther, "ready send from rank 0, tag 8 arrived before its receive was posted")
		if st.Count != size || !bytes.Equal(in, out) {
			t.Fatalf("size %d: early ready message not delivered: %+v", size, st)
		}
		if _, err := api.Wait(s); err != nil {
			t.Fatal(err)
		}
	}
}

func testSendrecv(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	for _, size := range []int{8, 64 << 10} {
		out, in := bytes.Repeat([]byte{5}, size), make([]byte, size)
		r, err := api.Isendrecv(out, size, pmpi.Byte, 0, 1, in, size, pmpi.Byte, 0, 1, w)
		if err != nil {
			t.Fatal(err)
		}
		st, err := api.Wait(r)
		if err != nil || st.Count != size || st.Source != 0 || !bytes.Equal(in, out) {
			t.Fatalf("Isendrecv: %+v, %v", st, err)
		}
		buf := bytes.Repeat([]byte{6}, size)
		r, err = api.IsendrecvReplace(buf, size, pmpi.Byte, 0, 2, 0, 2, w)
		if err != nil {
			t.Fatal(err)
		}
		// Its status before it completes, without freeing it.
		for {
			_, done, err := api.RequestGetStatus(r)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
		}
		if st, err := api.Wait(r); err != nil || st.Count != size || buf[0] != 6 {
			t.Fatalf("IsendrecvReplace: %+v, %v", st, err)
		}
		if st, err := api.SendrecvReplace(buf, size, pmpi.Byte, 0, 3, 0, 3, w); err != nil || st.Count != size {
			t.Fatalf("SendrecvReplace: %+v, %v", st, err)
		}
	}
	// Cancelled: the receive has no message, the send no receive.
	r, err := api.Isendrecv(make([]byte, 8), 8, pmpi.Byte, 0, 60, make([]byte, 8), 8, pmpi.Byte, 0, 61, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Cancel(r); err != nil {
		t.Fatal(err)
	}
	if st, err := api.Wait(r); err != nil || !st.Cancelled {
		t.Fatalf("cancelled Isendrecv: %+v, %v", st, err)
	}
	if _, found, _ := api.Iprobe(0, 60, w); found {
		t.Fatal("the cancelled Isendrecv's message was delivered")
	}
	_, err = api.Isendrecv(nil, 1, pmpi.Byte, 0, 1, nil, 0, pmpi.Byte, 0, 1, w)
	wantClass(t, "Isendrecv with a short send buffer", err, pmpi.ClassBuffer, "too small")
	_, err = api.IsendrecvReplace(nil, 0, pmpi.Byte, 0, 1, 7, 1, w)
	wantClass(t, "IsendrecvReplace from a bad rank", err, pmpi.ClassRank, "")
	// The blocking forms' own way for predefined types checks as much.
	_, err = api.Sendrecv(make([]byte, 8), 8, pmpi.Byte, 0, 1, make([]byte, 4), 8, pmpi.Byte, 0, 1, w)
	wantClass(t, "Sendrecv with a short receive buffer", err, pmpi.ClassBuffer, "too small")
	_, err = api.Sendrecv(nil, 0, pmpi.Byte, 3, 1, nil, 0, pmpi.Byte, 0, 1, w)
	wantClass(t, "Sendrecv to a bad rank", err, pmpi.ClassRank, "")
	_, err = api.Sendrecv(nil, 0, pmpi.Datatype{}, 0, 1, nil, 0, pmpi.Byte, 0, 1, w)
	wantClass(t, "Sendrecv of MPI_DATATYPE_NULL", err, pmpi.ClassType, "MPI_DATATYPE_NULL")
	_, err = api.SendrecvReplace(nil, 0, pmpi.Datatype{}, 0, 1, 0, 1, w)
	wantClass(t, "SendrecvReplace of MPI_DATATYPE_NULL", err, pmpi.ClassType, "MPI_DATATYPE_NULL")
	_, err = api.SendrecvReplace(nil, 0, pmpi.Byte, 0, -5, 0, 1, w)
	wantClass(t, "SendrecvReplace with a negative tag", err, pmpi.ClassTag, "")
	if _, found, _ := api.Iprobe(0, pmpi.AnyTag, w); found {
		t.Fatal("a Sendrecv that failed its checks left a message")
	}
}

// TestSome and RequestGetStatus over nil, inactive persistent, completed
// and pending requests.
func testCompletion(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	buf := make([]byte, 8)
	inactive, _ := api.RecvInit(buf, 8, pmpi.Byte, 0, 30, w)
	pending, _ := api.Irecv(make([]byte, 8), 8, pmpi.Byte, 0, 31, w)
	sent, _ := api.Isend(buf, 8, pmpi.Byte, 0, 32, w)
	reqs := []*pmpi.Request{nil, inactive, pending, sent}
	idx, sts := make([]int, 4), make([]pmpi.Status, 4)

	if st, done, err := api.RequestGetStatus(inactive); !done || err != nil || st != pmpi.EmptyStatus() {
		t.Fatalf("RequestGetStatus of an inactive request: %+v, %v, %v", st, done, err)
	}
	if _, done, _ := api.RequestGetStatus(pending); done {
		t.Fatal("RequestGetStatus says a pending receive is done")
	}
	n, err := api.TestSome(reqs, idx, sts)
	if err != nil || n != 1 || idx[0] != 3 || reqs[3] != nil || reqs[1] != inactive {
		t.Fatalf("TestSome: %d %v %v, requests %v", n, idx[:max(n, 0)], err, reqs)
	}
	if n, err := api.TestSome(reqs, idx, sts); n != 0 || err != nil {
		t.Fatalf("TestSome with none complete: %d, %v", n, err)
	}
	if err := api.Send(buf, 8, pmpi.Byte, 0, 31, w); err != nil {
		t.Fatal(err)
	}
	for {
		if _, done, _ := api.RequestGetStatus(pending); done {
			break
		}
	}
	if st, done, err := api.RequestGetStatus(pending); !done || err != nil || st.Tag != 31 || st.Count != 8 {
		t.Fatalf("RequestGetStatus of a completed receive: %+v, %v, %v", st, done, err)
	}
	n, err = api.TestSome(reqs, idx, sts)
	if err != nil || n != 1 || idx[0] != 2 || sts[0].Tag != 31 {
		t.Fatalf("TestSome after the send: %d %v %+v %v", n, idx[:max(n, 0)], sts[0], err)
	}
	if n, err := api.TestSome(reqs, idx, sts); n != pmpi.Undefined || err != nil {
		t.Fatalf("TestSome over nil and inactive requests: %d, %v; want Undefined", n, err)
	}
	if i, st, err := api.WaitAny(reqs); i != pmpi.Undefined || err != nil || st != pmpi.EmptyStatus() {
		t.Fatalf("WaitAny over nil and inactive requests: %d, %+v, %v; want Undefined and the empty status", i, st, err)
	}
	if i, st, found, err := api.TestAny(reqs); i != pmpi.Undefined || !found || err != nil || st != pmpi.EmptyStatus() {
		t.Fatalf("TestAny over nil and inactive requests: %d, %+v, %v, %v; want Undefined, the empty status and true", i, st, found, err)
	}
	all := make([]pmpi.Status, len(reqs))
	if err := api.WaitAll(reqs, all); err != nil {
		t.Fatal(err)
	}
	for i, st := range all {
		if st != pmpi.EmptyStatus() {
			t.Fatalf("WaitAll over nil and inactive requests: status %d is %+v, want the empty status", i, st)
		}
	}
	if n, err := api.WaitSome(reqs, idx, sts); n != pmpi.Undefined || err != nil {
		t.Fatalf("WaitSome over nil and inactive requests: %d, %v; want Undefined", n, err)
	}
	_, err = api.TestSome(reqs, idx[:1], nil)
	wantClass(t, "TestSome with short indices", err, pmpi.ClassArg, "1 indices")
	_, err = api.WaitSome(reqs, idx, sts[:2])
	wantClass(t, "WaitSome with short statuses", err, pmpi.ClassArg, "2 statuses")

	// WaitSome waits for one, then takes every one complete: here both.
	a, _ := api.Irecv(make([]byte, 8), 8, pmpi.Byte, 0, 33, w)
	b, _ := api.Irecv(make([]byte, 8), 8, pmpi.Byte, 0, 34, w)
	if err := errors.Join(api.Send(buf, 8, pmpi.Byte, 0, 34, w), api.Send(buf, 8, pmpi.Byte, 0, 33, w)); err != nil {
		t.Fatal(err)
	}
	two := []*pmpi.Request{a, b}
	n, err = api.WaitSome(two, idx, sts)
	if err != nil || n != 2 || two[0] != nil || two[1] != nil || sts[0].Tag+sts[1].Tag != 33+34 {
		t.Fatalf("WaitSome: %d %v %v", n, idx[:max(n, 0)], err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		two[0], _ = api.Irecv(make([]byte, 0), 0, pmpi.Byte, 0, 35, w)
		_ = api.Send(nil, 0, pmpi.Byte, 0, 35, w)
		if n, err := api.WaitSome(two, idx, sts); n != 1 || err != nil {
			t.Fatalf("WaitSome: %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Irecv, Send and WaitSome: %v allocations, want 0", allocs)
	}
	_ = api.RequestFree(inactive)
}

// A freed send still delivers its message; a freed receive still receives.
func testFree(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	for _, size := range []int{8, 64 << 10} {
		out := bytes.Repeat([]byte{7}, size)
		s, err := api.Isend(out, size, pmpi.Byte, 0, 40, w)
		if err != nil {
			t.Fatal(err)
		}
		if err := api.RequestFree(s); err != nil {
			t.Fatal(err)
		}
		in := make([]byte, size)
		if _, err := api.Recv(in, size, pmpi.Byte, 0, 40, w); err != nil || !bytes.Equal(in, out) {
			t.Fatalf("size %d: message of a freed send: %v", size, err)
		}
		p, _ := api.SendInit(out, size, pmpi.Byte, 0, 41, w)
		if err := api.Start(p); err != nil {
			t.Fatal(err)
		}
		if err := api.RequestFree(p); err != nil {
			t.Fatal(err)
		}
		if _, err := api.Recv(in, size, pmpi.Byte, 0, 41, w); err != nil || !bytes.Equal(in, out) {
			t.Fatalf("size %d: message of a freed persistent send: %v", size, err)
		}
	}
	wantClass(t, "RequestFree(nil)", api.RequestFree(nil), pmpi.ClassRequest, "nil")

	// A collective's request is neither freed nor cancelled while active
	// (MPI 4.1, 6.12): both fail, and the call still completes.
	send, recv := []byte{1, 0, 0, 0}, make([]byte, 4)
	r, err := api.Iallreduce(send, recv, 1, pmpi.Int32, pmpi.OpSum, w)
	if err != nil {
		t.Fatal(err)
	}
	wantClass(t, "RequestFree of an active Iallreduce", api.RequestFree(r), pmpi.ClassRequest, "MPI frees no active collective's request")
	wantClass(t, "Cancel of an active Iallreduce", api.Cancel(r), pmpi.ClassRequest, "a collective cannot be cancelled")
	if _, err := api.Wait(r); err != nil || recv[0] != 1 {
		t.Fatalf("Wait of the Iallreduce a free and a cancel were refused: %v, %v", recv, err)
	}
	p, err := api.AllreduceInit(send, recv, 1, pmpi.Int32, pmpi.OpSum, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Start(p); err != nil {
		t.Fatal(err)
	}
	wantClass(t, "RequestFree of an active AllreduceInit", api.RequestFree(p), pmpi.ClassRequest, "MPI frees no active collective's request")
	wantClass(t, "Cancel of an active AllreduceInit", api.Cancel(p), pmpi.ClassRequest, "a collective cannot be cancelled")
	if _, err := api.Wait(p); err != nil {
		t.Fatal(err)
	}
	if err := api.RequestFree(p); err != nil {
		t.Fatalf("RequestFree of an inactive persistent collective: %v", err)
	}
}

func testStatusSetters(t *testing.T, api pmpi.API, _ *pmpi.Comm) {
	var st pmpi.Status
	if err := api.StatusSetElements(&st, pmpi.Int32, 5); err != nil || st.Count != 5 || st.CountOf(pmpi.Byte) != 20 {
		t.Fatalf("StatusSetElements: %+v, %v", st, err)
	}
	// Counts are basic elements: 4 ints are one element of four, 6 end
	// inside the second; 3 basic elements of {double, int} are a whole
	// record and a double (20 bytes).
	four, err := pmpi.Real().TypeContiguous(4, pmpi.Int32)
	if err == nil {
		err = pmpi.Real().TypeCommit(four)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ k, count, bytes int }{{4, 1, 16}, {6, pmpi.Undefined, 24}, {0, 0, 0}} {
		if err := api.StatusSetElements(&st, four, tc.k); err != nil || st.GetElements(four) != tc.k ||
			st.Count != tc.count || st.CountOf(four) != tc.count || st.CountOf(pmpi.Byte) != tc.bytes {
			t.Errorf("StatusSetElements(4 x MPI_INT, %d): %+v, %d elements, %v; want count %d of %d bytes",
				tc.k, st, st.GetElements(four), err, tc.count, tc.bytes)
		}
	}
	if err := api.StatusSetElements(&st, pmpi.Float64Int, 3); err != nil || st.GetElements(pmpi.Float64Int) != 3 || st.CountOf(pmpi.Byte) != 20 {
		t.Errorf("StatusSetElements(MPI_DOUBLE_INT, 3): %+v, %v; want 3 elements in 20 bytes", st, err)
	}
	if err := api.StatusSetCancelled(&st, true); err != nil {
		t.Fatal(err)
	}
	if c, err := api.TestCancelled(&st); !c || err != nil {
		t.Fatalf("TestCancelled: %v, %v", c, err)
	}
	wantClass(t, "StatusSetElements negative", api.StatusSetElements(&st, pmpi.Int32, -1), pmpi.ClassCount, "negative")
	wantClass(t, "StatusSetElements nil", api.StatusSetElements(nil, pmpi.Int32, 1), pmpi.ClassArg, "nil")
	wantClass(t, "StatusSetElements bad type", api.StatusSetElements(&st, pmpi.Datatype{}, 1), pmpi.ClassType, "datatype")
	wantClass(t, "StatusSetCancelled nil", api.StatusSetCancelled(nil, true), pmpi.ClassArg, "nil")
	_, err = api.TestCancelled(nil)
	wantClass(t, "TestCancelled nil", err, pmpi.ClassArg, "nil")
}

// A send of a rank to itself that nothing received is cancelled before
// Cancel returns, in each mode and at a rendezvous size: the request's
// status says so at once, and its message is gone.
func testCancelOwn(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	for _, size := range []int{8, 1 << 20} {
		for _, mode := range []struct {
			name  string
			start func(buf []byte, n, tag int) (*pmpi.Request, error)
		}{
			{"Isend", func(buf []byte, n, tag int) (*pmpi.Request, error) { return api.Isend(buf, n, pmpi.Byte, 0, tag, w) }},
			{"Issend", func(buf []byte, n, tag int) (*pmpi.Request, error) { return api.Issend(buf, n, pmpi.Byte, 0, tag, w) }},
		} {
			r, err := mode.start(make([]byte, size), size, 70)
			if err != nil {
				t.Fatal(err)
			}
			if err := api.Cancel(r); err != nil {
				t.Fatal(err)
			}
			st, done, err := api.RequestGetStatus(r)
			if err != nil || !done || !st.Cancelled {
				t.Errorf("%s of %d bytes to itself, cancelled: status %+v, done %v, %v; want done and cancelled", mode.name, size, st, done, err)
			}
			if _, err := api.Wait(r); err != nil {
				t.Fatal(err)
			}
			if _, found, _ := api.Iprobe(0, 70, w); found {
				t.Fatalf("%s of %d bytes: the cancelled message is still there", mode.name, size)
			}
		}
		// Received before the cancel: the send completes, not cancelled.
		in := make([]byte, size)
		q, err := api.Irecv(in, size, pmpi.Byte, 0, 71, w)
		if err != nil {
			t.Fatal(err)
		}
		r, err := api.Isend(make([]byte, size), size, pmpi.Byte, 0, 71, w)
		if err != nil {
			t.Fatal(err)
		}
		if err := api.Cancel(r); err != nil {
			t.Fatal(err)
		}
		if st, err := api.Wait(q); err != nil || st.Cancelled || st.Count != size {
			t.Fatalf("the receive of a send cancelled too late (%d bytes): %+v, %v", size, st, err)
		}
		if st, err := api.Wait(r); err != nil || st.Cancelled {
			t.Fatalf("a send cancelled after its receive matched it (%d bytes): %+v, %v", size, st, err)
		}
	}
}
