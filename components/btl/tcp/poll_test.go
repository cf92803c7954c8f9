package tcp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// TestPollingPingPong waits the way a rank does: by polling Progress, with
// pauses long enough for the reader goroutines to go back to waiting for
// their sockets. Polling and reader goroutine must share the socket: a
// poll must never block behind a parked reader, and every frame must
// arrive exactly once and in order.
func TestPollingPingPong(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	// await polls m until its receiver holds n frames.
	await := func(m *Module, r *btltest.Receiver, n int) {
		for r.Count() < n {
			if time.Now().After(deadline) {
				t.Fatalf("rank %d: frame %d never arrived", m.rank, n)
			}
			m.Progress()
		}
	}
	const rounds = 600
	for i := range rounds {
		if i%7 == 0 {
			time.Sleep(1500 * time.Microsecond) // nobody polls: the readers take over again
		}
		size := []int{0, 1, 100, 40 << 10}[i%4]
		if err := j.mods[0].Send(ctx, 1, hdrFor(0, 0, i, size), pattern(size, 0, 0, i)); err != nil {
			t.Fatal(err)
		}
		await(j.mods[1], j.recvs[1], i+1)
		if err := j.mods[1].Send(ctx, 0, hdrFor(1, 0, i, size), pattern(size, 1, 0, i)); err != nil {
			t.Fatal(err)
		}
		await(j.mods[0], j.recvs[0], i+1)
	}
	for r := range 2 {
		for i, f := range j.recvs[r].Frames() {
			if _, seq := checkFrame(t, f); seq != i {
				t.Fatalf("rank %d: frame %d arrived as number %d", r, seq, i)
			}
		}
	}
}

// TestDelProcs: after DelProcs a send is refused as unreachable, and the
// peer sees the link end as a finalize, not a failure.
func TestDelProcs(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	if err := j.mods[0].Send(ctx, 1, hdrFor(0, 0, 0, 1), pattern(1, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first frame", func() bool { return j.recvs[1].Count() == 1 })
	if err := j.mods[0].DelProcs(ctx, []btl.Proc{{Rank: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := j.mods[0].Send(ctx, 1, hdrFor(0, 0, 1, 1), pattern(1, 0, 0, 1)); !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("send after DelProcs: %v, want ErrUnreachable", err)
	}
	p := &j.mods[1].peers[0]
	waitFor(t, "rank 1 to see the goodbye", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.state == peerClosed
	})
	if n := len(j.recvs[0].FailedPeers()) + len(j.recvs[1].FailedPeers()); n != 0 {
		t.Fatalf("%d peers reported failed after DelProcs", n)
	}
	if err := j.mods[0].DelProcs(ctx, []btl.Proc{{Rank: 7}}); err == nil {
		t.Fatal("DelProcs of an out-of-range rank succeeded")
	}
}
