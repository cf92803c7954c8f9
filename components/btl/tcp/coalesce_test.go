package tcp

import (
	"context"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// inOrder checks that rank r's receiver holds frames 0..n-1 of rank 0's
// stream 0, whole and in order.
func inOrder(t *testing.T, rec *recorder, n int) {
	t.Helper()
	fs := rec.get()
	if len(fs) != n {
		t.Fatalf("%d frames delivered, want %d", len(fs), n)
	}
	for i, f := range fs {
		if _, seq := checkFrame(t, f); seq != i {
			t.Fatalf("frame %d arrived as number %d", seq, i)
		}
	}
}

// TestPostHoldsBackWhilePolled: while the rank polls, posted frames wait
// in the stage, and whatever comes next (a Send, a Progress, a Flush)
// writes them first, so frames keep their order.
func TestPostHoldsBackWhilePolled(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
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
	waitFor(t, "the first frame", func() bool { return rec.count() == 1 })
	c := m.peers[1].conn.Load()
	held := func() int { return int(c.held.Load()) }

	send(true, 10) // nobody polls: written at once
	if held() != 0 {
		t.Fatalf("a post held %d bytes back while nobody polls", held())
	}
	c.napping.Store(true) // as when the rank polls
	for range 10 {
		send(true, 100)
	}
	if held() == 0 {
		t.Fatal("posts while the rank polls held nothing back")
	}
	send(false, 5) // a Send writes the held frames first
	if held() != 0 {
		t.Fatalf("%d bytes still held after a Send", held())
	}
	waitFor(t, "the frames before the Send", func() bool { return rec.count() == seq })

	send(true, 0)
	send(true, 8<<10) // at the limit
	m.Progress()
	if held() != 0 {
		t.Fatalf("%d bytes still held after Progress", held())
	}
	send(true, 1)
	m.Flush(1)
	if held() != 0 {
		t.Fatalf("%d bytes still held after Flush", held())
	}
	send(true, 8<<10+1) // above the limit: never held
	if held() != 0 {
		t.Fatalf("a post above btl_tcp_coalesce_limit was held back (%d bytes)", held())
	}
	waitFor(t, "every frame", func() bool { return rec.count() == seq })
	inOrder(t, rec, seq)
}

// TestPostedFramesLeaveWhenPollingStops: a frame held back while the rank
// polled goes out once polling stops, with no further call from the
// sender: the reader goroutine flushes when its nap ends.
func TestPostedFramesLeaveWhenPollingStops(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
	if err := m.Send(ctx, 1, hdrFor(0, 0, 0, 1), pattern(1, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	c := m.peers[1].conn.Load()
	// Poll while the peer answers, until the reader goroutine notices and naps.
	back := 0
	waitFor(t, "rank 0's reader to nap", func() bool {
		if err := j.mods[1].Send(ctx, 0, hdrFor(1, 0, back, 1), pattern(1, 1, 0, back)); err != nil {
			t.Fatal(err)
		}
		back++
		for range 100 {
			m.Progress()
		}
		return c.napping.Load()
	})
	if err := m.Post(ctx, 1, hdrFor(0, 0, 1, 3), pattern(3, 0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	// No poll, no send: only the end of the nap can write it.
	waitFor(t, "the held frame", func() bool { return rec.count() == 2 })
	inOrder(t, rec, 2)
}

// TestGoodbyeAfterHeldFrames: DelProcs writes the held frames before its
// goodbye, so none is lost and the peer sees a finalize, not a failure.
func TestGoodbyeAfterHeldFrames(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
	if err := m.Send(ctx, 1, hdrFor(0, 0, 0, 1), pattern(1, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	m.peers[1].conn.Load().napping.Store(true)
	for i := 1; i <= 5; i++ {
		if err := m.Post(ctx, 1, hdrFor(0, 0, i, 20), pattern(20, 0, 0, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.DelProcs(ctx, []btl.Proc{{Rank: 1}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every frame", func() bool { return rec.count() == 6 })
	inOrder(t, rec, 6)
	if n := rec.failures(); n != 0 {
		t.Fatalf("rank 1 saw %d failures", n)
	}
}
