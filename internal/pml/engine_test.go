package pml

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

const world = 0 // the context the tests use

func fill(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

func TestEagerAndRendezvousRoundTrip(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	for _, size := range []int{0, 1, 64, 65, 1000, 100_000} {
		for _, posted := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d bytes posted=%v", size, posted), func(t *testing.T) {
				msg := fill(size, byte(size))
				buf := make([]byte, size)
				var r *Request
				if posted {
					r = nt.engines[1].Irecv(world, 0, 5, buf)
				}
				s := nt.engines[0].Isend(world, 1, 5, msg, false)
				if !posted {
					// Wait until it is unexpected, then receive.
					if _, err := nt.engines[1].Probe(world, 0, 5); err != nil {
						t.Fatal(err)
					}
					r = nt.engines[1].Irecv(world, 0, 5, buf)
				}
				if st := nt.engines[0].Wait(s); st.Err != nil {
					t.Fatalf("send: %v", st.Err)
				}
				st := nt.engines[1].Wait(r)
				if st.Err != nil || st.Source != 0 || st.Tag != 5 || st.Bytes != size || st.Truncated() {
					t.Fatalf("status %+v", st)
				}
				if !bytes.Equal(buf, msg) {
					t.Fatal("payload differs")
				}
			})
		}
	}
}

// TestNonOvertaking sends many messages with the same tag, mixing eager and
// rendezvous sizes; they must be received in the order sent.
func TestNonOvertaking(t *testing.T) {
	nt := newNet(t, 2, 64, 50)
	const n = 200
	var sends []*Request
	for i := range n {
		size := 8 + (i%3)*100 // eager, rendezvous, rendezvous
		msg := make([]byte, size)
		msg[0] = byte(i)
		sends = append(sends, nt.engines[0].Isend(world, 1, 9, msg, false))
	}
	for i := range n {
		buf := make([]byte, 300)
		st := nt.engines[1].Wait(nt.engines[1].Irecv(world, 0, 9, buf))
		if st.Err != nil || buf[0] != byte(i) {
			t.Fatalf("message %d: got first byte %d (%+v)", i, buf[0], st)
		}
	}
	for _, s := range sends {
		nt.engines[0].Wait(s)
	}
}

func TestAnySourceAnyTag(t *testing.T) {
	nt := newNet(t, 4, 64, 64)
	for src := 1; src < 4; src++ {
		go func() {
			nt.engines[src].Wait(nt.engines[src].Isend(world, 0, 10+src, []byte{byte(src)}, false))
		}()
	}
	seen := map[int]bool{}
	for range 3 {
		buf := make([]byte, 1)
		st := nt.engines[0].Wait(nt.engines[0].Irecv(world, AnySource, AnyTag, buf))
		if st.Err != nil || int(buf[0]) != st.Source || st.Tag != 10+st.Source {
			t.Fatalf("status %+v payload %d", st, buf[0])
		}
		seen[st.Source] = true
	}
	if len(seen) != 3 {
		t.Fatalf("sources %v", seen)
	}
}

func TestTruncation(t *testing.T) {
	nt := newNet(t, 2, 64, 64)
	for _, size := range []int{40, 4096} { // eager, rendezvous
		buf := make([]byte, 33)
		guard := append(buf[:len(buf):len(buf)], 0xEE) // a byte past the buffer's end
		r := nt.engines[1].Irecv(world, 0, 1, buf)
		s := nt.engines[0].Isend(world, 1, 1, fill(size, 1), false)
		st := nt.engines[1].Wait(r)
		if !st.Truncated() || st.Total != size || st.Bytes != 33 {
			t.Fatalf("size %d: status %+v", size, st)
		}
		if !bytes.Equal(buf, fill(size, 1)[:33]) || guard[33] != 0xEE {
			t.Fatalf("size %d: wrong bytes or wrote past the buffer", size)
		}
		if st := nt.engines[0].Wait(s); st.Err != nil {
			t.Fatalf("sender of a truncated message: %v", st.Err)
		}
	}
}

func TestSynchronousSendWaitsForMatch(t *testing.T) {
	nt := newNet(t, 2, 1<<20, 1<<20)
	s := nt.engines[0].Isend(world, 1, 3, []byte("hi"), true)
	// Let the RTS arrive and sit unexpected: the send must not complete.
	if _, err := nt.engines[1].Probe(world, 0, 3); err != nil {
		t.Fatal(err)
	}
	if s.Done() {
		t.Fatal("synchronous send completed before any receive was posted")
	}
	buf := make([]byte, 2)
	nt.engines[1].Wait(nt.engines[1].Irecv(world, 0, 3, buf))
	if st := nt.engines[0].Wait(s); st.Err != nil || string(buf) != "hi" {
		t.Fatalf("status %+v buf %q", st, buf)
	}
}

func TestCancel(t *testing.T) {
	nt := newNet(t, 2, 64, 64)
	r := nt.engines[1].Irecv(world, 0, 4, make([]byte, 8))
	ok, err := nt.engines[1].Cancel(r)
	if !ok || err != nil {
		t.Fatalf("cancel: %v %v", ok, err)
	}
	if st := nt.engines[1].Wait(r); !st.Cancelled {
		t.Fatalf("status %+v", st)
	}
	// A cancelled receive does not steal a later message.
	buf := make([]byte, 1)
	r2 := nt.engines[1].Irecv(world, 0, 4, buf)
	nt.engines[0].Wait(nt.engines[0].Isend(world, 1, 4, []byte{7}, false))
	if st := nt.engines[1].Wait(r2); st.Err != nil || buf[0] != 7 {
		t.Fatalf("status %+v", st)
	}
	if ok, _ := nt.engines[1].Cancel(r2); ok {
		t.Fatal("cancelled a completed receive")
	}
}

func TestContextsAreSeparate(t *testing.T) {
	nt := newNet(t, 2, 64, 64)
	a, b := make([]byte, 1), make([]byte, 1)
	ra := nt.engines[1].Irecv(7, 0, 0, a)
	nt.engines[0].Wait(nt.engines[0].Isend(8, 1, 0, []byte{8}, false))
	nt.engines[0].Wait(nt.engines[0].Isend(7, 1, 0, []byte{7}, false))
	nt.engines[1].Wait(ra)
	nt.engines[1].Wait(nt.engines[1].Irecv(8, 0, 0, b))
	if a[0] != 7 || b[0] != 8 {
		t.Fatalf("context 7 got %d, context 8 got %d", a[0], b[0])
	}
}

func TestPeerFailureFailsPendingRequests(t *testing.T) {
	nt := newNet(t, 3, 16, 16)
	recv := nt.engines[0].Irecv(world, 2, 0, make([]byte, 4))
	any := nt.engines[0].Irecv(world, AnySource, 1, make([]byte, 4))
	send := nt.engines[0].Isend(world, 2, 0, make([]byte, 100), false) // rendezvous: waits for a CTS
	nt.kill(2)
	for name, r := range map[string]*Request{"recv": recv, "any-source recv": any, "send": send} {
		done := make(chan Status, 1)
		go func() { done <- nt.engines[0].Wait(r) }()
		select {
		case st := <-done:
			if !errors.Is(st.Err, btl.ErrPeerFailed) {
				t.Errorf("%s: status %+v, want ErrPeerFailed", name, st)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s hangs after its peer died", name)
		}
	}
	if st := nt.engines[0].Wait(nt.engines[0].Isend(world, 2, 0, []byte{1}, false)); !errors.Is(st.Err, btl.ErrPeerFailed) {
		t.Errorf("send to a dead peer: %+v", st)
	}
	// The surviving pair still works.
	buf := make([]byte, 1)
	r := nt.engines[0].Irecv(world, 1, 0, buf)
	nt.engines[1].Wait(nt.engines[1].Isend(world, 0, 0, []byte{9}, false))
	if st := nt.engines[0].Wait(r); st.Err != nil || buf[0] != 9 {
		t.Fatalf("status %+v", st)
	}
}

// TestRandomTraffic sends many messages of random sizes and tags between
// every pair at once and checks every payload's checksum.
func TestRandomTraffic(t *testing.T) {
	const ranks, perPair = 4, 150
	nt := newNet(t, ranks, 256, 1000)
	type msg struct {
		tag  int
		data []byte
	}
	plan := map[[2]int][]msg{}
	rng := rand.New(rand.NewPCG(1, 2))
	for s := range ranks {
		for d := range ranks {
			for range perPair {
				size := rng.IntN(5000)
				if rng.IntN(4) == 0 {
					size = rng.IntN(300)
				}
				data := make([]byte, size)
				for i := range data {
					data[i] = byte(rng.Uint32())
				}
				plan[[2]int{s, d}] = append(plan[[2]int{s, d}], msg{rng.IntN(3), data})
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, ranks*ranks)
	for s := range ranks {
		for d := range ranks {
			wg.Add(2)
			go func() { // sender s -> d
				defer wg.Done()
				for _, m := range plan[[2]int{s, d}] {
					if st := nt.engines[s].Wait(nt.engines[s].Isend(world, d, m.tag, m.data, m.tag == 2)); st.Err != nil {
						errs <- st.Err
						return
					}
				}
			}()
			go func() { // receiver d <- s, in the order sent, each by its tag
				defer wg.Done()
				for _, m := range plan[[2]int{s, d}] {
					buf := make([]byte, 5000)
					st := nt.engines[d].Wait(nt.engines[d].Irecv(world, s, m.tag, buf))
					if st.Err != nil || st.Bytes != len(m.data) ||
						crc32.ChecksumIEEE(buf[:st.Bytes]) != crc32.ChecksumIEEE(m.data) {
						errs <- fmt.Errorf("%d->%d tag %d: status %+v, checksum mismatch", s, d, m.tag, st)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestWaitAny(t *testing.T) {
	nt := newNet(t, 2, 64, 64)
	reqs := []*Request{nil, nt.engines[1].Irecv(world, 0, 1, make([]byte, 1)), nt.engines[1].Irecv(world, 0, 2, make([]byte, 1))}
	nt.engines[0].Wait(nt.engines[0].Isend(world, 1, 2, []byte{2}, false))
	if i := nt.engines[1].WaitAny(reqs); i != 2 {
		t.Fatalf("WaitAny = %d, want 2", i)
	}
	if i := nt.engines[1].WaitAny([]*Request{nil}); i != -1 {
		t.Fatalf("WaitAny of nothing = %d", i)
	}
}

// TestUnexpectedReused receives messages of changing sizes that all arrive
// before their receive: their pooled buffers are reused, larger ones for
// smaller messages, and each receive must still get exactly its own bytes.
func TestUnexpectedReused(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	for i, size := range []int{60, 3, 0, 64, 1, 40, 64, 2, 200, 5} { // 200: a rendezvous's first fragment
		msg := fill(size, byte(i+1))
		s := nt.engines[0].Isend(world, 1, i, msg, false)
		if _, err := nt.engines[1].Probe(world, 0, i); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, size+8)
		st := nt.engines[1].Wait(nt.engines[1].Irecv(world, 0, i, buf))
		if st.Err != nil || st.Bytes != size || st.Total != size {
			t.Fatalf("message %d of %d bytes: status %+v", i, size, st)
		}
		if !bytes.Equal(buf[:size], msg) || !bytes.Equal(buf[size:], make([]byte, 8)) {
			t.Fatalf("message %d of %d bytes: got %v", i, size, buf)
		}
		if st := nt.engines[0].Wait(s); st.Err != nil {
			t.Fatalf("send %d: %v", i, st.Err)
		}
	}
}

// TestFifoKeepsOrderAndArray takes entries from the front and the middle
// while pushing, and checks the order and that a steady queue stops
// allocating.
func TestFifoKeepsOrderAndArray(t *testing.T) {
	var q fifo[int]
	var want []int
	next := 0
	step := func(i int) {
		q.push(next)
		want = append(want, next)
		next++
		if len(want) > 40 {
			j := 0
			if i%5 == 0 {
				j = len(want) / 2
			}
			q.remove(j)
			want = slices.Delete(want, j, j+1)
		}
		if !slices.Equal(q.all(), want) {
			t.Fatalf("step %d: queue %v, want %v", i, q.all(), want)
		}
	}
	for i := range 1000 {
		step(i)
	}
	q.removeFunc(func(v int) bool { return v%2 == 0 })
	want = slices.DeleteFunc(want, func(v int) bool { return v%2 == 0 })
	if !slices.Equal(q.all(), want) {
		t.Fatalf("after removeFunc: %v, want %v", q.all(), want)
	}
	// A steady queue of hundreds, as in an incast: one in at the back, one
	// out at the front.
	for range 300 {
		q.push(next)
		next++
	}
	if n := testing.AllocsPerRun(10000, func() { q.push(next); next++; q.remove(0) }); n != 0 {
		t.Fatalf("%v allocations per step in a steady queue", n)
	}
}

// Work that deliveries queue for the pollers runs whatever the waiter is
// doing when it is queued: polling (it counts among the pollers between
// polls, and runs it after its next), or asleep (it counted itself out,
// and the work runs in the background). A lost piece of work would leave
// the wait hanging.
func TestWorkQueuedForPollersRuns(t *testing.T) {
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(btltest.Discard{})
	const n = 2000
	r := e.StartGeneral(new(Request))
	var ran atomic.Int32
	go func() {
		for range n {
			e.later(func() {
				if ran.Add(1) == n {
					e.CompleteGeneral(r, Status{})
				}
			})
			runtime.Gosched()
		}
	}()
	e.Wait(r)
	e.Drain()
	if got := ran.Load(); got != n {
		t.Fatalf("%d of %d pieces of work ran", got, n)
	}
	if p := e.pollers.Load(); p != 0 {
		t.Fatalf("%d pollers counted after the wait", p)
	}
}

// A probe of any source that waits when a peer fails fails as a receive
// of any source does; one made after waits for the living peers.
func TestAnySourceProbeFailsWithAPeer(t *testing.T) {
	for _, kind := range []string{"Probe", "Mprobe"} {
		nt := newNet(t, 3, 16, 16)
		e := nt.engines[0]
		probe := func() (Status, error) {
			if kind == "Mprobe" {
				_, st, err := e.Mprobe(world, AnySource, 1)
				return st, err
			}
			return e.Probe(world, AnySource, 1)
		}
		done := make(chan error, 1)
		go func() {
			_, err := probe()
			done <- err
		}()
		waitRecorded(t, e, func(s State) bool { return len(s.Pending) == 1 })
		nt.kill(2)
		select {
		case err := <-done:
			if !errors.Is(err, btl.ErrPeerFailed) {
				t.Errorf("%s of any source: %v, want ErrPeerFailed", kind, err)
			}
		case <-time.After(time.Minute): // a hang guard
			t.Fatalf("%s of any source hangs after a peer died", kind)
		}
		nt.engines[1].Wait(nt.engines[1].Isend(world, 0, 1, []byte{5}, false))
		if st, err := probe(); err != nil || st.Source != 1 {
			t.Errorf("%s of any source after the death: %+v, %v, want rank 1's message", kind, st, err)
		}
	}
}
