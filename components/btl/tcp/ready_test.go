package tcp

import (
	"context"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// manyPeers starts n ranks and connects each of ranks 1..n-1 to rank 0,
// so that rank 0 polls through its epoll set (n-1 > pollAllMax).
func manyPeers(t testing.TB, n int) *job {
	t.Helper()
	j := newJob(t, n)
	// Once rank 0 polls, its reader goroutines step aside for good (until
	// Finalize): every frame it gets then came through Progress.
	j.mods[0].pollGrace = time.Hour
	ctx := context.Background()
	for r := 1; r < n; r++ {
		if err := j.mods[r].Send(ctx, 0, hdrFor(r, 0, 0, 8), pattern(8, r, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a frame from every peer", func() bool { return j.recvs[0].Count() == n-1 })
	waitFor(t, "rank 0 to read every connection", func() bool {
		rs := j.mods[0].readers.Load()
		return rs != nil && len(rs.list) == n-1
	})
	j.mods[0].Progress() // from here the readers leave new bytes to Progress
	// A reader that was reading when Progress came by may still read what
	// the socket has; once it lets go of the connection, it looks at the
	// poll count before it reads again.
	for _, c := range j.mods[0].readers.Load().list {
		c.rmu.Lock()
		//lint:ignore SA2001 waiting for the reader to let go is the point
		c.rmu.Unlock()
	}
	return j
}

// checkStreams verifies that rank 0 got want frames from each sender, in order.
func checkStreams(t *testing.T, rec *btltest.Receiver, want map[int]int) {
	t.Helper()
	next := map[int]int{}
	for _, f := range rec.Frames() {
		_, seq := checkFrame(t, f)
		if seq != next[f.From] {
			t.Fatalf("from rank %d: frame %d arrived when %d was due", f.From, seq, next[f.From])
		}
		next[f.From]++
	}
	for from, n := range want {
		if next[from] != n {
			t.Fatalf("from rank %d: %d frames arrived, want %d", from, next[from], n)
		}
	}
}

// TestManyPeersOneActive: with many connections of which one carries
// traffic, a rank that polls gets every frame once and in order, and a
// peer that was idle all along is heard when it finally sends.
func TestManyPeersOneActive(t *testing.T) {
	const n = 8
	j := manyPeers(t, n)
	if j.mods[0].ready.fd < 0 {
		t.Skip("no epoll instance")
	}
	ctx := context.Background()
	polled := 0
	await := func(total int) {
		deadline := time.Now().Add(30 * time.Second)
		for j.recvs[0].Count() < total {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d frames arrived", j.recvs[0].Count(), total)
			}
			polled += j.mods[0].Progress()
		}
	}
	total := n - 1
	for i := 1; i <= 300; i++ {
		size := []int{0, 8, 1000, 40 << 10}[i%4]
		if err := j.mods[3].Send(ctx, 0, hdrFor(3, 0, i, size), pattern(size, 3, 0, i)); err != nil {
			t.Fatal(err)
		}
		total++
		await(total)
	}
	// Every other peer, idle until now, sends once; the busy one goes on.
	for r := 1; r < n; r++ {
		if r == 3 {
			continue
		}
		if err := j.mods[r].Send(ctx, 0, hdrFor(r, 0, 1, 8), pattern(8, r, 0, 1)); err != nil {
			t.Fatal(err)
		}
		total++
		await(total)
	}
	want := map[int]int{}
	for r := 1; r < n; r++ {
		want[r] = 2
	}
	want[3] = 301
	checkStreams(t, j.recvs[0], want)
	if want := total - (n - 1); polled != want {
		t.Fatalf("Progress delivered %d frames, want all %d sent after the readers stepped aside", polled, want)
	}
}

// TestManyPeersAllSendWhilePolled: every peer streams at once (an incast);
// the polling rank must hear all of them, the hot connection must not
// starve the others, and frames stay in order per peer.
func TestManyPeersAllSendWhilePolled(t *testing.T) {
	const n, each = 6, 400
	j := manyPeers(t, n)
	ctx := context.Background()
	errs := make(chan error, n)
	for r := 1; r < n; r++ {
		go func() {
			for i := 1; i <= each; i++ {
				if err := j.mods[r].Send(ctx, 0, hdrFor(r, 0, i, 64), pattern(64, r, 0, i)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	total := (n - 1) * (each + 1)
	deadline := time.Now().Add(60 * time.Second)
	polled := 0
	for j.recvs[0].Count() < total {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d frames arrived", j.recvs[0].Count(), total)
		}
		polled += j.mods[0].Progress()
	}
	if want := total - (n - 1); polled != want {
		t.Fatalf("Progress delivered %d frames, want all %d", polled, want)
	}
	for range n - 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	want := map[int]int{}
	for r := 1; r < n; r++ {
		want[r] = each + 1
	}
	checkStreams(t, j.recvs[0], want)
}

// TestManyPeersDeliverWithoutPolls: a rank that stops polling (the engine
// sleeps after a while) still gets frames from peers that were idle, from
// the reader goroutines: no wake-up is lost to the epoll set.
func TestManyPeersDeliverWithoutPolls(t *testing.T) {
	const n = 5
	j := manyPeers(t, n)
	j.mods[0].pollGrace = pollGrace
	ctx := context.Background()
	for range 50 {
		j.mods[0].Progress() // the readers step aside while rank 0 polls
	}
	for r := 1; r < n; r++ {
		if err := j.mods[r].Send(ctx, 0, hdrFor(r, 0, 1, 100), pattern(100, r, 0, 1)); err != nil {
			t.Fatal(err)
		}
	}
	// No poll from here on: only the reader goroutines can deliver.
	waitFor(t, "frames delivered without polling", func() bool { return j.recvs[0].Count() == 2*(n-1) })
	want := map[int]int{}
	for r := 1; r < n; r++ {
		want[r] = 2
	}
	checkStreams(t, j.recvs[0], want)
}

// BenchmarkProgressManyIdle is one empty poll of a rank with 15 idle
// connections: what the epoll set saves over asking each socket.
func BenchmarkProgressManyIdle(b *testing.B) {
	j := manyPeers(b, 16)
	b.ReportAllocs()
	for b.Loop() {
		if n := j.mods[0].Progress(); n != 0 {
			b.Fatalf("an empty poll delivered %d frames", n)
		}
	}
}
