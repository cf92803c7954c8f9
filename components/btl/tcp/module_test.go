package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

func TestFramesOfEverySizeArriveInOrder(t *testing.T) {
	j := newJob(t, 2, "btl_tcp_eager_limit", "64k") // default interfaces: every one that is up
	ctx := context.Background()
	sizes := []int{0, 1, 64 << 10, 8 << 20, 0, 1}
	for _, to := range []int{1, 0} { // another rank, then itself through its own listener
		for seq, n := range sizes {
			if err := j.mods[0].Send(ctx, to, hdrFor(0, 0, seq, n), pattern(n, 0, 0, seq)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range []*btltest.Receiver{j.recvs[1], j.recvs[0]} {
		waitFor(t, fmt.Sprintf("every frame (have %d)", r.Count()), func() bool { return r.Count() == len(sizes) })
		for i, f := range r.Frames() {
			if _, seq := checkFrame(t, f); seq != i {
				t.Fatalf("frame %d arrived as number %d", seq, i)
			}
			if f.Placed {
				t.Fatal("placed without a Place")
			}
		}
	}
}

func TestConcurrentSendsBothWays(t *testing.T) {
	const ranks, streams, perStream = 3, 4, 10
	j := newJob(t, ranks, append(loopbackOnly, "btl_tcp_max_send_size", "1m")...)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, ranks*streams)
	for from := range ranks {
		for s := range streams {
			wg.Go(func() {
				for seq := range perStream {
					to := (from + 1 + seq%(ranks-1)) % ranks
					n := (seq*7919 + s*104729) % (256 << 10)
					if seq%5 == 0 {
						n = 2<<20 + seq // beyond max_send_size: the unpooled path
					}
					if err := j.mods[from].Send(ctx, to, hdrFor(from, s, seq, n), pattern(n, from, s, seq)); err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	waitFor(t, "every frame", func() bool {
		n := 0
		for _, r := range j.recvs {
			n += r.Count()
		}
		return n == ranks*streams*perStream
	})
	for to, r := range j.recvs {
		last := map[[2]int]int{}
		for _, f := range r.Frames() {
			s, seq := checkFrame(t, f)
			k := [2]int{f.From, s}
			if prev, ok := last[k]; ok && seq <= prev {
				t.Fatalf("rank %d: stream %v: frame %d after %d", to, k, seq, prev)
			}
			last[k] = seq
		}
	}
}

// connPairs checks that every pair of ranks shares exactly one connection.
func connPairs(t *testing.T, j *job) {
	t.Helper()
	n := len(j.mods)
	for _, m := range j.mods {
		waitFor(t, "losing connections to close", func() bool {
			m.mu.Lock()
			defer m.mu.Unlock()
			return len(m.conns) == n-1
		})
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			ca, cb := j.mods[a].peers[b].conn.Load(), j.mods[b].peers[a].conn.Load()
			if ca == nil || cb == nil {
				t.Fatalf("ranks %d and %d are not connected", a, b)
			}
			if ca.nc.LocalAddr().String() != cb.nc.RemoteAddr().String() {
				t.Fatalf("ranks %d and %d use different connections: %s-%s and %s-%s", a, b,
					ca.nc.LocalAddr(), ca.nc.RemoteAddr(), cb.nc.LocalAddr(), cb.nc.RemoteAddr())
			}
		}
	}
}

func TestSimultaneousFirstSends(t *testing.T) {
	const ranks, rounds = 4, 5
	for round := range rounds {
		j := newJob(t, ranks)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for from := range ranks {
			for to := range ranks {
				if to == from {
					continue
				}
				wg.Go(func() {
					<-start
					for seq := range 3 {
						if err := j.mods[from].Send(context.Background(), to, hdrFor(from, to, seq, 100), pattern(100, from, to, seq)); err != nil {
							t.Error(err)
						}
					}
				})
			}
		}
		close(start)
		wg.Wait()
		for to, r := range j.recvs {
			waitFor(t, "every frame", func() bool { return r.Count() == 3*(ranks-1) })
			for _, f := range r.Frames() {
				checkFrame(t, f)
			}
			if len(r.FailedPeers()) != 0 {
				t.Fatalf("round %d: rank %d saw failures", round, to)
			}
		}
		connPairs(t, j)
		for _, m := range j.mods {
			m.Finalize()
		}
	}
}

func TestPlaceReadsInPlace(t *testing.T) {
	j := newJob(t, 2)
	dst := make([]byte, 5000)
	j.recvs[1].PlaceFunc = func(from int, hdr []byte, size int) []byte {
		switch string(hdr[:1]) {
		case "p":
			return dst[:size]
		case "w":
			return dst[:size-1] // the wrong size: the module must use its own buffer
		}
		return nil
	}
	ctx := context.Background()
	for _, h := range []string{"p", "w", "n"} {
		if err := j.mods[0].Send(ctx, 1, []byte(h), pattern(5000, 0, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	r := j.recvs[1]
	waitFor(t, "three frames", func() bool { return r.Count() == 3 })
	want := map[string]bool{"p": true, "w": false, "n": false}
	for _, f := range r.Frames() {
		if f.Placed != want[string(f.Hdr)] {
			t.Errorf("frame %q: placed %v", f.Hdr, f.Placed)
		}
		if string(f.Payload) != string(pattern(5000, 0, 0, 0)) {
			t.Errorf("frame %q: corrupt payload", f.Hdr)
		}
	}
	if string(dst) != string(pattern(5000, 0, 0, 0)) {
		t.Error("the placed payload is not in the Place buffer")
	}
}

func TestStrangersAreRefused(t *testing.T) {
	// The timeout bounds every handshake below, the real ranks' included:
	// long enough for a loaded machine, short enough to wait out once.
	j := newJob(t, 2, "btl_tcp_if_include", "127.0.0.0/8", "btl_tcp_handshake_timeout", "3")
	addr := j.mods[1].listeners[0].Addr().String()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// A silent stranger holds a connection open during everything below.
	// start is taken before the dial: the acceptor's deadline counts from
	// its accept, which a loaded machine may run before Dial returns.
	start := time.Now()
	silent := dial()
	// Junk bytes, then a hello of the right shape but an absurd rank.
	junk := dial()
	junk.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n" + strings.Repeat("\x00", 100)))
	bad := dial()
	bad.Write(handshakeMsg{Type: msgHello, From: 99, To: 1}.Append(nil))
	// A dialer with the wrong secret, and one with the right secret but another job.
	for _, a := range []authority{
		{secret: []byte("wrong"), job: "job-1", rank: 0, size: 2},
		{secret: []byte("the job's secret"), job: "job-2", rank: 0, size: 2},
	} {
		c := dial()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if v, err := a.dial(c, c, 1); !errors.Is(err, errHandshake) {
			t.Fatalf("dialer %q/%q: verdict %v, error %v; want a handshake failure", a.secret, a.job, v, err)
		}
	}
	for _, c := range []net.Conn{junk, bad} {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			// The challenge to the bad hello would be an error too: its rank is out of range.
			t.Fatalf("a stranger got an answer")
		}
	}
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the silent stranger was not dropped: %v", err)
	}
	if d := time.Since(start); d < 2900*time.Millisecond {
		t.Fatalf("the silent stranger was dropped after %v, before the handshake timeout", d)
	}
	// The real ranks still talk, both ways.
	ctx := context.Background()
	for from := range 2 {
		if err := j.mods[from].Send(ctx, 1-from, hdrFor(from, 0, 0, 10), pattern(10, from, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range j.recvs {
		waitFor(t, "a frame", func() bool { return r.Count() == 1 })
		checkFrame(t, r.Frames()[0])
		if len(r.FailedPeers()) != 0 {
			t.Fatal("a stranger made a rank fail")
		}
	}
}

func TestCrashedPeerFails(t *testing.T) {
	j := newJob(t, 3)
	ctx := context.Background()
	for _, to := range []int{1, 2} {
		if err := j.mods[0].Send(ctx, to, []byte("h"), nil); err != nil {
			t.Fatal(err)
		}
	}
	j.mods[1].shutdown(false) // rank 1 dies: its sockets close with no goodbye
	j.mods[2].Finalize()      // rank 2 finalizes properly
	r := j.recvs[0]
	waitFor(t, "rank 1's failure", func() bool { return firstFailure(r, 1) != nil })
	if err := firstFailure(r, 1); !errors.Is(err, btl.ErrPeerFailed) || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("PeerFailed(1, %v): want ErrPeerFailed naming rank 1", err)
	}
	err := j.mods[0].Send(ctx, 1, []byte("h"), nil)
	if !errors.Is(err, btl.ErrPeerFailed) || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("Send to the dead rank: %v; want ErrPeerFailed naming rank 1", err)
	}
	waitFor(t, "rank 2's goodbye", func() bool { return j.mods[0].peers[2].conn.Load() == nil })
	if err := j.mods[0].Send(ctx, 2, []byte("h"), nil); !errors.Is(err, btl.ErrPeerFailed) {
		t.Fatalf("Send to a finalized rank: %v; want ErrPeerFailed", err)
	}
	if err := firstFailure(r, 2); err != nil {
		t.Fatalf("a finalized rank was reported failed: %v", err)
	}
	// A rank that never connected and is now gone fails on the first send.
	j2 := newJob(t, 2)
	j2.mods[1].shutdown(false)
	if err := j2.mods[0].Send(ctx, 1, []byte("h"), nil); !errors.Is(err, btl.ErrPeerFailed) {
		t.Fatalf("Send to a rank that is gone: %v; want ErrPeerFailed", err)
	}
}

func TestSendChecksArguments(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	for _, tc := range []struct {
		peer int
		hdr  []byte
	}{{-1, []byte("h")}, {2, []byte("h")}, {1, nil}, {1, make([]byte, btl.MaxHeaderSize+1)}} {
		if err := j.mods[0].Send(ctx, tc.peer, tc.hdr, nil); err == nil {
			t.Errorf("Send(%d, %d-byte header) succeeded", tc.peer, len(tc.hdr))
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := j.mods[0].Send(cancelled, 1, []byte("h"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Send with a cancelled context, not connected: %v", err)
	}
	// Connected, the fast path must look at ctx too.
	if err := j.mods[0].Send(ctx, 1, []byte("h"), nil); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if err := j.mods[0].Send(cancelled, 1, []byte("h"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Send with a cancelled context, connected: %v", err)
	}
	j.mods[0].Finalize()
	if err := j.mods[0].Send(ctx, 1, []byte("h"), nil); err == nil || !strings.Contains(err.Error(), "finalized") {
		t.Errorf("Send after Finalize: %v", err)
	}
}

func TestModuleProperties(t *testing.T) {
	j := newJob(t, 1, "btl_tcp_if_include", "127.0.0.0/8", "btl_tcp_exclusivity", "7", "btl_tcp_max_send_size", "256k")
	m := j.mods[0]
	got := fmt.Sprint(m.Name(), m.Exclusivity(), m.Bandwidth(), m.EagerLimit(), m.MaxSendSize(), m.Progress())
	if want := fmt.Sprint("tcp", 7, 10000, 128<<10, 256<<10, 0); got != want {
		t.Fatalf("properties %s, want %s", got, want)
	}
}

// pair starts two ranks, rank 1's receiver only counting (it allocates
// nothing, so AllocsPerRun sees only the sender), and returns their modules.
func pair(t testing.TB) ([]*Module, *btltest.Counter) {
	t.Helper()
	rc := &btltest.Counter{}
	j := newJobWith(t, 2, func(rank int) btl.Receiver {
		if rank == 1 {
			return rc
		}
		return nil
	})
	return j.mods, rc
}

func TestSendDoesNotAllocate(t *testing.T) {
	mods, rc := pair(t)
	m := mods[0]
	ctx := context.Background()
	hdr, payload := make([]byte, 32), make([]byte, 2000)
	for range 100 { // connect and warm the pools
		if err := m.Send(ctx, 1, hdr, payload); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "warm-up frames", func() bool { return rc.Count() == 100 })
	allocs := testing.AllocsPerRun(1000, func() {
		if err := m.Send(ctx, 1, hdr, payload); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Send allocates %.2f times per call", allocs)
	}
}

func BenchmarkSend(b *testing.B) {
	for _, n := range []int{1, 64 << 10} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			mods, rc := pair(b)
			m := mods[0]
			ctx := context.Background()
			hdr, payload := make([]byte, 32), make([]byte, n)
			if err := m.Send(ctx, 1, hdr, payload); err != nil {
				b.Fatal(err)
			}
			waitFor(b, "the first frame", func() bool { return rc.Count() == 1 })
			b.SetBytes(int64(n))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := m.Send(ctx, 1, hdr, payload); err != nil {
					b.Fatal(err)
				}
			}
			waitFor(b, "every frame", func() bool { return rc.Count() == b.N+1 })
		})
	}
}

// BenchmarkProgressIdle is one poll that finds every connection empty:
// what a waiting rank pays per turn of its loop, and so half the delay
// before it sees a message that arrives meanwhile.
func BenchmarkProgressIdle(b *testing.B) {
	mods, rc := pair(b)
	if err := mods[0].Send(context.Background(), 1, make([]byte, 32), nil); err != nil {
		b.Fatal(err)
	}
	waitFor(b, "the first frame", func() bool { return rc.Count() == 1 })
	b.ReportAllocs()
	for b.Loop() {
		if n := mods[1].Progress(); n != 0 {
			b.Fatalf("an empty poll delivered %d frames", n)
		}
	}
}
