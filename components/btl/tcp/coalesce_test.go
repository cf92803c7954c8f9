package tcp

import (
	"context"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// inOrder checks that rank r's receiver holds frames 0..n-1 of rank 0's
// stream 0, whole and in order.
func inOrder(t *testing.T, rec *btltest.Receiver, n int) {
	t.Helper()
	fs := rec.Frames()
	if len(fs) != n {
		t.Fatalf("%d frames delivered, want %d", len(fs), n)
	}
	for i, f := range fs {
		if _, seq := checkFrame(t, f); seq != i {
			t.Fatalf("frame %d arrived as number %d", seq, i)
		}
	}
}

// TestPostHoldsBack: posted frames wait in the stage, and whatever comes
// next (a Send, a Progress, a Flush) writes them first, so frames keep
// their order.
func TestPostHoldsBack(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
	m.flushDelay = time.Hour // the flusher must not interfere
	seq := 0
	send := func(post bool, size int) {
		t.Helper()
		f := m.Send
		if post {
			f = m.Post
		}
		if err := f(ctx, 1, hdrFor(0, 0, seq, size), pattern(size, 0, 0, seq)); err != nil {
			t.Fatal(err)
		}
		seq++
	}
	send(false, 10) // connects
	c := m.peers[1].conn.Load()
	held := func() int { return int(c.held.Load()) }
	for range 10 {
		send(true, 100)
	}
	if held() == 0 {
		t.Fatal("posts held nothing back")
	}
	send(false, 5) // a Send writes the held frames first
	if held() != 0 {
		t.Fatalf("%d bytes still held after a Send", held())
	}
	waitFor(t, "the frames before the Send", func() bool { return rec.Count() == seq })

	send(true, 0)
	send(true, 8<<10) // at the limit
	// Progress flushes the connections it reads, and the reader goroutine
	// registers this one when the scheduler runs it: wait for that, not
	// for a first poll to find it. Nothing else flushes (flushDelay).
	waitFor(t, "a Progress to write the held frames", func() bool {
		m.Progress()
		return held() == 0
	})
	send(true, 1)
	m.Flush(1)
	if held() != 0 {
		t.Fatalf("%d bytes still held after Flush", held())
	}
	send(true, 8<<10+1) // above the limit: never held
	if held() != 0 {
		t.Fatalf("a post above btl_tcp_coalesce_limit was held back (%d bytes)", held())
	}
	for range 2000 { // more than the stage holds: it is written when full
		send(true, 100)
	}
	waitFor(t, "every frame", func() bool {
		m.Progress()
		return rec.Count() == seq
	})
	inOrder(t, rec, seq)
}

// TestPostedFramesLeaveWithoutPolls: a held frame goes out with no
// further call from the sender: the flusher writes it.
func TestPostedFramesLeaveWithoutPolls(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
	for i := range 3 {
		if err := m.Post(ctx, 1, hdrFor(0, 0, i, 3), pattern(3, 0, 0, i)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the held frames", func() bool { return rec.Count() == 3 })
	inOrder(t, rec, 3)
}

// TestPostsWithCoalescingOff: btl_tcp_coalesce_limit 0 writes every frame at once.
func TestPostsWithCoalescingOff(t *testing.T) {
	j := newJob(t, 2, append([]string{"btl_tcp_coalesce_limit", "0"}, loopbackOnly...)...)
	ctx := context.Background()
	m := j.mods[0]
	for i := range 3 {
		if err := m.Post(ctx, 1, hdrFor(0, 0, i, 3), pattern(3, 0, 0, i)); err != nil {
			t.Fatal(err)
		}
		if n := m.peers[1].conn.Load().held.Load(); n != 0 {
			t.Fatalf("%d bytes held back with coalescing off", n)
		}
	}
	waitFor(t, "the frames", func() bool { return j.recvs[1].Count() == 3 })
	inOrder(t, j.recvs[1], 3)
}

// TestGoodbyeAfterHeldFrames: DelProcs writes the held frames before its
// goodbye, so none is lost and the peer sees a finalize, not a failure.
func TestGoodbyeAfterHeldFrames(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
	m.flushDelay = time.Hour
	for i := range 6 {
		if err := m.Post(ctx, 1, hdrFor(0, 0, i, 20), pattern(20, 0, 0, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.DelProcs(ctx, []btl.Proc{{Rank: 1}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every frame", func() bool { return rec.Count() == 6 })
	inOrder(t, rec, 6)
	if n := len(rec.FailedPeers()); n != 0 {
		t.Fatalf("rank 1 saw %d failures", n)
	}
}
