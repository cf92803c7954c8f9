package sm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
	"github.com/gompi/gompi/params"
)

// inbox is a Receiver that keeps copies of what it is given and signals
// each delivery.
type inbox struct {
	mu     sync.Mutex
	frags  []string
	failed []int
	got    chan struct{}
}

func newInbox() *inbox { return &inbox{got: make(chan struct{}, 1<<16)} }

func (b *inbox) Place(int, []byte, int) []byte { return nil }
func (b *inbox) Deliver(from int, hdr, payload []byte, _ bool) {
	b.mu.Lock()
	b.frags = append(b.frags, fmt.Sprintf("%d:%s:%d:%x", from, hdr, len(payload), sum(payload)))
	b.mu.Unlock()
	b.got <- struct{}{}
}
func (b *inbox) PeerFailed(peer int, _ error) {
	b.mu.Lock()
	b.failed = append(b.failed, peer)
	b.mu.Unlock()
	b.got <- struct{}{}
}

func (b *inbox) snapshot() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.frags)
}

func sum(p []byte) uint32 {
	var s uint32 = 2166136261
	for _, c := range p {
		s = (s ^ uint32(c)) * 16777619
	}
	return s
}

func openComponent(t testing.TB, settings ...string) (*Component, error) {
	t.Helper()
	c := info.Instantiate().(*Component)
	return c, btltest.Open(t, c, nil, settings...)
}

type testJob struct {
	mods  []*Module
	boxes []*inbox
	dir   string
}

// newTestJob starts n ranks of one host in this process, with their
// segment in a directory of the test's own.
func newTestJob(t testing.TB, n int, settings ...string) *testJob {
	t.Helper()
	dir := t.TempDir()
	settings = append([]string{"btl_sm_backing_directory", dir}, settings...)
	mx := btltest.NewModex()
	j := &testJob{dir: dir}
	procs := make([]btl.Proc, n)
	for rank := range n {
		c, err := openComponent(t, settings...)
		if err != nil {
			t.Fatal(err)
		}
		box := newInbox()
		mods, err := c.Init(context.Background(), btl.InitEnv{
			Rank: rank, Size: n, Hostname: "host", JobID: "job1", Modex: mx.For(rank),
			Receiver: box, LocalRank: rank, LocalSize: n, SessionDir: dir,
		})
		if err != nil {
			t.Fatal(err)
		}
		m := mods[0].(*Module)
		t.Cleanup(func() { m.Finalize() })
		j.mods, j.boxes = append(j.mods, m), append(j.boxes, box)
		procs[rank] = btl.Proc{Rank: rank, Hostname: "host"}
	}
	for _, m := range j.mods {
		reach, err := m.AddProcs(context.Background(), procs)
		if err != nil {
			t.Fatal(err)
		}
		for i, ok := range reach {
			if ok != (i != m.rank) {
				t.Fatalf("rank %d reaches rank %d: %v", m.rank, i, ok)
			}
		}
	}
	return j
}

// await polls rank's module until its inbox holds n fragments.
func (j *testJob) await(t *testing.T, rank, n int) []string {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a hang guard, not a measurement
	for len(j.boxes[rank].snapshot()) < n {
		j.mods[rank].Progress()
		if time.Now().After(deadline) {
			t.Fatalf("rank %d got %d fragments, want %d", rank, len(j.boxes[rank].snapshot()), n)
		}
	}
	return j.boxes[rank].snapshot()
}

// checkFromRank1 waits until rank 0 holds total fragments and its two
// senders are done, then checks that rank 1's arrived whole and in order.
func (j *testJob) checkFromRank1(t *testing.T, total int, errs <-chan error, want []string) {
	t.Helper()
	var got []string
	for _, f := range j.await(t, 0, total) {
		if strings.HasPrefix(f, "1:") {
			got = append(got, f)
		}
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rank 1's fragments arrived out of order or changed")
	}
}

func TestSegmentNameGoesOnceEveryRankMapsIt(t *testing.T) {
	j := newTestJob(t, 3)
	left, _ := filepath.Glob(filepath.Join(j.dir, "gompi.*"))
	if len(left) != 0 {
		t.Fatalf("segment still named after every rank mapped it: %v", left)
	}
}

func TestDeliversInOrderPerPeer(t *testing.T) {
	j := newTestJob(t, 3)
	ctx := context.Background()
	var want []string
	for i := range 500 {
		payload := bytes.Repeat([]byte{byte(i)}, (i*37)%(32<<10))
		want = append(want, fmt.Sprintf("1:m%d:%d:%x", i, len(payload), sum(payload)))
	}
	errs := make(chan error, 2)
	for from := 1; from < 3; from++ {
		go func() { // the rings fill up: rank 0 must poll meanwhile
			for i := range 500 {
				payload := bytes.Repeat([]byte{byte(i)}, (i*37)%(32<<10))
				if err := j.mods[from].Send(ctx, 0, []byte(fmt.Sprintf("m%d", i)), payload); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	j.checkFromRank1(t, 1000, errs, want)
}

func TestSendChecksArguments(t *testing.T) {
	j := newTestJob(t, 2)
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name          string
		ctx           context.Context
		peer          int
		hdr, payload  []byte
		want          string
		wantErrorType error
	}{
		{"empty header", ctx, 1, nil, nil, "header of 0 bytes", nil},
		{"header too long", ctx, 1, make([]byte, btl.MaxHeaderSize+1), nil, "header of 257 bytes", nil},
		{"payload too long", ctx, 1, []byte("h"), make([]byte, 63<<10+1), "exceeds the fragment size", nil},
		{"rank out of range", ctx, 5, []byte("h"), nil, "out of range", nil},
		{"itself", ctx, 0, []byte("h"), nil, "not added", btl.ErrUnreachable},
		{"cancelled context", cancelled, 1, []byte("h"), nil, "context canceled", context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := j.mods[0].Send(tc.ctx, tc.peer, tc.hdr, tc.payload)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Send: %v, want an error with %q", err, tc.want)
			}
			if tc.wantErrorType != nil && !errors.Is(err, tc.wantErrorType) {
				t.Fatalf("Send: %v, want one that wraps %v", err, tc.wantErrorType)
			}
		})
	}
}

// Two ranks that fill each other's rings and call Progress only once done
// writing must not deadlock: a sender waiting for room drains its own
// rings, and with Post a full ring also publishes what it holds, so that
// its reader can free room.
func TestFullRingsBothWays(t *testing.T) {
	for _, post := range []bool{false, true} {
		t.Run(map[bool]string{false: "Send", true: "Post"}[post], func(t *testing.T) {
			j := newTestJob(t, 2, "btl_sm_ring_size", "32k", "btl_sm_fragment_size", "4k", "btl_sm_eager_limit", "4k")
			const n = 300
			var wg sync.WaitGroup
			errs := make(chan error, 2)
			for r := range 2 {
				write := j.mods[r].Send
				if post {
					write = j.mods[r].Post
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range n {
						err := write(context.Background(), 1-r, []byte("h"), make([]byte, 3<<10))
						for post && err == btl.ErrFull { // a poster polls before it posts again
							j.mods[r].Progress()
							err = write(context.Background(), 1-r, []byte("h"), make([]byte, 3<<10))
						}
						if err != nil {
							errs <- fmt.Errorf("rank %d write %d: %w", r, i, err)
							return
						}
					}
					for len(j.boxes[r].snapshot()) < n { // a rank keeps polling until it has everything
						j.mods[r].Progress()
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		})
	}
}

// A rank whose waiters sleep (Idle) still gets its fragments: the
// listener delivers them when a peer wakes it.
func TestIdleRankDeliversOnItsOwn(t *testing.T) {
	j := newTestJob(t, 2)
	j.mods[1].Idle()
	defer j.mods[1].Busy()
	for i := range 50 {
		if err := j.mods[0].Send(context.Background(), 1, []byte("h"), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		<-j.boxes[1].got // delivered without anyone calling Progress
	}
}

func TestSingleCopyReadsTheSendersBuffer(t *testing.T) {
	j := newTestJob(t, 2)
	if j.mods[1].SingleCopyMin(0) == 0 {
		t.Skip("cross-memory attach is not allowed here")
	}
	src := bytes.Repeat([]byte("0123456789"), 100_000)
	tok := j.mods[0].Expose(1, src)
	dst := make([]byte, len(src)-10)
	if err := j.mods[1].Read(0, tok, 10, dst); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src[10:]) {
		t.Fatal("single copy read the wrong bytes")
	}
}

// TestReadAll reads many exposed buffers at once: more than one system
// call takes (maxVector), an empty one among them, each from its start.
func TestReadAll(t *testing.T) {
	j := newTestJob(t, 2)
	if j.mods[1].SingleCopyMin(0) == 0 {
		t.Skip("cross-memory attach is not allowed here")
	}
	const n = maxVector + 6
	var tokens []uint64
	var srcs, dsts [][]byte
	for i := range n {
		src := bytes.Repeat([]byte{byte(i), byte(i >> 8), 7}, i*1000%9001)
		srcs, tokens = append(srcs, src), append(tokens, j.mods[0].Expose(1, src))
		dsts = append(dsts, make([]byte, len(src)))
	}
	if err := j.mods[1].ReadAll(0, tokens, dsts); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if !bytes.Equal(dsts[i], srcs[i]) {
			t.Fatalf("buffer %d of %d bytes read wrong", i, len(srcs[i]))
		}
	}
	if err := j.mods[1].ReadAll(0, tokens[:2], dsts[:1]); err == nil {
		t.Error("ReadAll with 2 tokens for 1 buffer succeeded")
	}
	if err := j.mods[1].ReadAll(5, tokens[:1], dsts[:1]); err == nil {
		t.Error("ReadAll from rank 5 of 2 succeeded")
	}
}

// TestSingleCopyAsksTheReader: a sender exposes its buffers only to a peer
// that may read them. Once rank 1's kernel refuses it rank 0's memory,
// rank 0 stops offering single copy to rank 1, and rank 1 still offers it
// to rank 0, which can read rank 1.
func TestSingleCopyAsksTheReader(t *testing.T) {
	j := newTestJob(t, 2)
	if j.mods[0].SingleCopyMin(1) == 0 || j.mods[1].SingleCopyMin(0) == 0 {
		t.Skip("cross-memory attach is not allowed here")
	}
	if err := j.mods[1].readErr(j.mods[1].peers[0], 0, unix.EPERM); !errors.Is(err, unix.EPERM) {
		t.Fatalf("readErr = %v, want EPERM wrapped", err)
	}
	if n := j.mods[0].SingleCopyMin(1); n != 0 {
		t.Errorf("rank 0 offers single copy from %d bytes to rank 1, which may not read it", n)
	}
	if n := j.mods[1].SingleCopyMin(0); n == 0 {
		t.Error("rank 1 stopped offering single copy to rank 0, which may still read it")
	}
}

func TestSingleCopyOff(t *testing.T) {
	j := newTestJob(t, 2, "btl_sm_single_copy_mechanism", "none")
	if n := j.mods[1].SingleCopyMin(0); n != 0 {
		t.Fatalf("SingleCopyMin = %d with single copy off", n)
	}
}

// A blocking send is read from its own threshold, whatever the timings,
// and never when told to stream below it; where ranks outnumber CPUs, it
// is always read.
func TestSingleCopyBlockingThreshold(t *testing.T) {
	for _, tt := range []struct {
		way, blocking string
		size          int
		want          bool
	}{
		{"timed", "256k", 256 << 10, true},
		{"stream", "256k", 256 << 10, true},
		{"stream", "256k", 256<<10 - 1, false},
		{"stream", "0", 16 << 20, false},
	} {
		j := newTestJob(t, 2, "btl_sm_single_copy_blocking", tt.way, "btl_sm_single_copy_blocking_threshold", tt.blocking)
		for i := range 2 * untimedEvery {
			if got := j.mods[0].SingleCopyBlocking(1, tt.size); got != tt.want {
				t.Fatalf("%s, threshold %s: blocking send %d of %d bytes read %v, want %v", tt.way, tt.blocking, i+1, tt.size, got, tt.want)
			}
		}
		j.mods[0].oversubscribed = true
		if !j.mods[0].SingleCopyBlocking(1, 64<<10) {
			t.Errorf("%s, threshold %s, oversubscribed: a blocking send streams", tt.way, tt.blocking)
		}
	}
}

// TestBlockingWayTimed: the receiver's timings choose the way of its
// sender's blocking sends, per size class, read until both ways are
// timed; two sends go the other way every 16th while a way is untimed,
// then every 256th to 1024th, the rarer the slower it was. The first
// receive that took a way after the other is not counted, a way's time
// is the less of its last two, and the way changes only for one faster
// by more than an eighth.
func TestBlockingWayTimed(t *testing.T) {
	j := newTestJob(t, 2)
	sender, receiver := j.mods[0], j.mods[1]
	const size = 1 << 20
	// ways makes n blocking sends of size bytes and returns which of them
	// were streamed if stream, else which were read.
	ways := func(size, n int, stream bool) []int {
		var got []int
		for i := range n {
			if sender.SingleCopyBlocking(1, size) != stream {
				got = append(got, i)
			}
		}
		return got
	}
	word := func() uint32 { return sender.peers[1].ways[sizeClass(size)].Load() }
	took := func(read bool, d time.Duration, times int) {
		for range times {
			receiver.Took(0, size, read, d)
		}
	}
	if got := ways(size, 2*untimedEvery, true); !slices.Equal(got, []int{0, 1, untimedEvery, untimedEvery + 1}) {
		t.Fatalf("untimed: sends %v of %d streamed, want the first two of every %d", got, 2*untimedEvery, untimedEvery)
	}
	// Read twice as fast as a stream (47 and 95 ps a byte): streams are
	// timed every 256th send. The counter stands at 32.
	took(true, 50*time.Microsecond, 2)
	took(false, 100*time.Microsecond, 1) // the first streamed: not counted
	if w := word(); w != 0 {
		t.Fatalf("ways word %#x with one way timed, want 0", w)
	}
	took(false, 100*time.Microsecond, 1)
	if w, want := word(), uint32(8<<1); w != want {
		t.Fatalf("read faster: ways word %#x, want %#x", w, want)
	}
	if got, want := ways(size, 512, true), []int{224, 225, 480, 481}; !slices.Equal(got, want) {
		t.Fatalf("read faster: sends %v of 512 streamed, want %v", got, want)
	}
	// Streams 20 times as slow, twice: every 1024th.
	took(false, time.Millisecond, 1)
	if w, want := word(), uint32(8<<1); w != want {
		t.Fatalf("one slow stream: ways word %#x, want %#x", w, want)
	}
	took(false, time.Millisecond, 1)
	if w, want := word(), uint32(maxEveryLog<<1); w != want {
		t.Fatalf("two slow streams: ways word %#x, want %#x", w, want)
	}
	// Another class is untimed still.
	if got := ways(size/4, untimedEvery, true); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("another class: sends %v of %d streamed, want the first two", got, untimedEvery)
	}
	// Reads as slow as the streams: still read, every 256th streamed.
	took(true, 50*time.Microsecond, 1) // the first read after streams: not counted
	took(true, time.Millisecond, 1)
	if w, want := word(), uint32(maxEveryLog<<1); w != want {
		t.Fatalf("one slow read: ways word %#x, want %#x", w, want)
	}
	took(true, time.Millisecond, 1)
	if w, want := word(), uint32(8<<1); w != want {
		t.Fatalf("two slow reads: ways word %#x, want %#x", w, want)
	}
	// Streams got much faster (14 ps a byte): every 1024th send read.
	took(false, 15*time.Microsecond, 2)
	if w, want := word(), uint32(maxEveryLog<<1|wayStream); w != want {
		t.Fatalf("stream faster: ways word %#x, want %#x", w, want)
	}
	if got, want := ways(size, 1024, false), []int{480, 481}; !slices.Equal(got, want) {
		t.Fatalf("stream faster: sends %v of 1024 read, want %v", got, want)
	}
	// Reads faster by less than an eighth (13 ps) leave the way; by more
	// (9 ps) they change it.
	took(true, 14*time.Microsecond, 3)
	if w := word(); w&wayStream == 0 {
		t.Fatalf("read faster by less than an eighth: ways word %#x, want streams", w)
	}
	took(true, 10*time.Microsecond, 1)
	if w := word(); w&wayStream != 0 {
		t.Fatalf("read faster by more than an eighth: ways word %#x, want reads", w)
	}
	// A rank's timings are of its receives: its own sends stay untimed.
	if w := receiver.peers[0].ways[sizeClass(size)].Load(); w != 0 {
		t.Errorf("the receiver's sends have ways word %#x, want 0", w)
	}
}

func TestSendAfterDelProcsAndFinalize(t *testing.T) {
	j := newTestJob(t, 2)
	ctx := context.Background()
	if err := j.mods[0].DelProcs(ctx, []btl.Proc{{Rank: 1, Hostname: "host"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.mods[0].Send(ctx, 1, []byte("h"), nil); !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("Send after DelProcs: %v", err)
	}
	if err := j.mods[1].Finalize(); err != nil {
		t.Fatal(err)
	}
	if err := j.mods[1].Send(ctx, 0, []byte("h"), nil); err == nil {
		t.Fatal("Send after Finalize succeeded")
	}
	if n := j.mods[1].Progress(); n != 0 {
		t.Fatalf("Progress after Finalize handled %d", n)
	}
	if err := j.mods[1].Finalize(); err != nil {
		t.Fatalf("second Finalize: %v", err)
	}
}

func TestStaleOrForeignSegmentRefused(t *testing.T) {
	dir := t.TempDir()
	path := segmentPath(dir, "job1")
	if err := os.WriteFile(path, []byte("left over"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := createSegment(path, "job1", newLayout(2, minRingSize)); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("createSegment over a stale file: %v", err)
	}
	os.Remove(path)
	seg, err := createSegment(path, "job1", newLayout(2, minRingSize))
	if err != nil {
		t.Fatal(err)
	}
	defer seg.retire()
	for _, tc := range []struct {
		job   string
		local int
		want  string
	}{
		{"job2", 2, `belongs to job "job1"`},
		{"job1", 3, "made for 2 local ranks"},
	} {
		if _, err := openSegment(path, tc.job, tc.local); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("openSegment(%s, %d): %v, want %q", tc.job, tc.local, err, tc.want)
		}
	}
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, make([]byte, 8192), 0o600)
	if _, err := openSegment(junk, "job1", 2); err == nil || !strings.Contains(err.Error(), "not a gompi shared-memory segment") {
		t.Errorf("openSegment(junk): %v", err)
	}
}

func TestParametersThatDisagree(t *testing.T) {
	_, err := openComponent(t, "btl_sm_eager_limit", "64k", "btl_sm_fragment_size", "32k")
	if want := "btl_sm_eager_limit=65536 (command line) is larger than btl_sm_fragment_size=32768 (command line)"; err == nil ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("eager limit above the fragment size: %v, want %q", err, want)
	}
	_, err = openComponent(t, "btl_sm_ring_size", "64k", "btl_sm_fragment_size", "32k", "btl_sm_eager_limit", "4k")
	if want := "btl_sm_fragment_size=32768 (command line) is too large for btl_sm_ring_size=65536 (command line): " +
		"a fragment with its headers may take at most a quarter of a ring, so at most 16112 bytes here"; err == nil ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("fragment too large for the ring: %v, want %q", err, want)
	}
	// Defaults left alone are lowered to fit a smaller ring.
	c, err := openComponent(t, "btl_sm_ring_size", "64k")
	if err != nil || c.cfg.fragmentSize != 16112 || c.cfg.eagerLimit != 16112 {
		t.Errorf("ring of 64k alone: fragment %d, eager limit %d, %v; want 16112 and 16112", c.cfg.fragmentSize, c.cfg.eagerLimit, err)
	}
	c, err = openComponent(t, "btl_sm_ring_size", "64k", "btl_sm_fragment_size", "8k")
	if err != nil || c.cfg.fragmentSize != 8192 || c.cfg.eagerLimit != 8192 {
		t.Errorf("fragment of 8k: fragment %d, eager limit %d, %v; want 8192 and 8192", c.cfg.fragmentSize, c.cfg.eagerLimit, err)
	}
	_, err = openComponent(t, "btl_sm_ring_size", "64k", "btl_sm_eager_limit", "32k")
	if want := "btl_sm_eager_limit=32768 (command line) is larger than btl_sm_fragment_size=16112 (default, lowered to fit the ring)"; err == nil ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("eager limit above a lowered fragment size: %v, want %q", err, want)
	}
}

func TestEndpointDecoding(t *testing.T) {
	e := endpoint{localRank: 3, pid: 42, probeAddr: 7, probeValue: 9, path: "/dev/shm/x"}
	got, err := decodeEndpoint(e.encode())
	if err != nil || got != e {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, b := range [][]byte{nil, {2}, e.encode()[:30]} {
		if _, err := decodeEndpoint(b); err == nil {
			t.Errorf("decodeEndpoint(%x) accepted", b)
		}
	}
}

func TestNoModuleWithoutLocalPeers(t *testing.T) {
	c, err := openComponent(t)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := c.Init(context.Background(), btl.InitEnv{Rank: 0, Size: 1, JobID: "j", LocalSize: 1,
		Modex: btltest.NewModex().For(0), Receiver: newInbox()})
	if err != nil || len(mods) != 0 {
		t.Fatalf("Init alone on its host: %d modules, %v", len(mods), err)
	}
}

// A backing directory that is unusable, or empty, gives way to the
// session directory; a relative one is refused, as each rank may run in
// another working directory.
func TestFallsBackToTheSessionDirectory(t *testing.T) {
	for _, dir := range []string{"/nonexistent/gompi-test", ""} {
		c, err := openComponent(t, "btl_sm_backing_directory", dir)
		if err != nil {
			t.Fatal(err)
		}
		session := t.TempDir()
		mods, err := c.Init(context.Background(), btl.InitEnv{Rank: 0, Size: 2, JobID: "jobfb", LocalSize: 2,
			SessionDir: session, Modex: btltest.NewModex().For(0), Receiver: newInbox()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(segmentPath(session, "jobfb")); err != nil {
			t.Errorf("backing directory %q: no segment in the session directory: %v", dir, err)
		}
		mods[0].Finalize()
	}
	reg := params.NewRegistry()
	r := reg.Scope(btl.Name, "sm")
	if err := errors.Join(info.Instantiate().(*Component).RegisterParams(r), r.Err()); err != nil {
		t.Fatal(err)
	}
	_, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: "btl_sm_backing_directory", Value: "shm"}}})
	if err == nil || !strings.Contains(err.Error(), "must be an absolute path") {
		t.Errorf("a relative backing directory: %v, want it refused", err)
	}
}

// Post may leave fragments unpublished, to go with the next ones: mixed
// with Sends, from two peers at once, through rings that fill up, every
// fragment still arrives once and in order.
func TestPostKeepsOrderWithSend(t *testing.T) {
	j := newTestJob(t, 3, "btl_sm_ring_size", "32k", "btl_sm_fragment_size", "4k", "btl_sm_eager_limit", "4k")
	ctx := context.Background()
	const n = 2000
	payloadOf := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, (i*37)%(4<<10)) }
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("1:m%d:%d:%x", i, len(payloadOf(i)), sum(payloadOf(i))))
	}
	errs := make(chan error, 2)
	for from := 1; from < 3; from++ {
		go func() {
			for i := range n {
				write := j.mods[from].Post
				if i%7 == 0 {
					write = j.mods[from].Send
				}
				err := btltest.PostAgain(func() error { return write(ctx, 0, []byte(fmt.Sprintf("m%d", i)), payloadOf(i)) })
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil // and no further call: the flusher publishes the rest
		}()
	}
	j.checkFromRank1(t, 2*n, errs, want)
}

// The first Post after a Flush is published at once, as Send is: a single
// non-blocking send and its wait gain nothing from holding it. The next
// may be held, and Flush publishes what Post held for one peer, and
// Finalize the rest, before they return: one poll of the reader then
// delivers both, without the flusher's delay (which Finalize stops), so
// nothing posted is lost to a rank that ends without waiting.
func TestFlushAndFinalizePublishPosts(t *testing.T) {
	j := newTestJob(t, 3)
	ctx := context.Background()
	visible := func(rank int) bool {
		for _, c := range j.mods[rank].consumers() {
			if c.from == 0 {
				return c.pending()
			}
		}
		return false
	}
	for to := 1; to < 3; to++ {
		for _, s := range []string{"first", "posted"} {
			if err := j.mods[0].Post(ctx, to, []byte("h"), []byte(s)); err != nil {
				t.Fatal(err)
			}
			if s == "first" && !visible(to) {
				t.Fatalf("the first Post to rank %d was not published at once", to)
			}
		}
	}
	want := []string{fmt.Sprintf("0:h:5:%x", sum([]byte("first"))), fmt.Sprintf("0:h:6:%x", sum([]byte("posted")))}
	j.mods[0].Flush(1)
	if n := j.mods[1].Progress(); n != 2 {
		t.Fatalf("a poll of rank 1 after Flush delivered %d records, want 2: Flush returned before publishing", n)
	}
	if got := j.boxes[1].snapshot(); !slices.Equal(got, want) {
		t.Fatalf("rank 1 got %q, want %q", got, want)
	}
	if err := j.mods[0].Finalize(); err != nil {
		t.Fatal(err)
	}
	if n := j.mods[2].Progress(); n != 2 {
		t.Fatalf("a poll of rank 2 after Finalize delivered %d records, want 2: Finalize returned before publishing", n)
	}
	if got := j.boxes[2].snapshot(); !slices.Equal(got, want) {
		t.Fatalf("rank 2 got %q, want %q", got, want)
	}
}

// Watch names a word per ring into the rank, and each keeps its value
// until a peer's next record arrives; it finds work while a record waits.
func TestWatchSeesTheNextRecord(t *testing.T) {
	j := newTestJob(t, 3)
	ctx := context.Background()
	type seen struct {
		w *atomic.Uint64
		v uint64
	}
	watch := func(rank int) ([]seen, bool) {
		var ws []seen
		ok := j.mods[rank].Watch(func(w *atomic.Uint64, v uint64) bool {
			ws = append(ws, seen{w, v})
			return true
		})
		return ws, ok
	}
	moved := func(ws []seen) int {
		n := 0
		for _, s := range ws {
			if s.w.Load() != s.v {
				n++
			}
		}
		return n
	}
	for round := range 3 {
		ws, ok := watch(0)
		if !ok || len(ws) != 2 {
			t.Fatalf("round %d: a quiet rank 0 watched %d words (ok %v), want one per peer, 2", round, len(ws), ok)
		}
		if err := j.mods[2].Send(ctx, 0, []byte("h"), []byte("payload")); err != nil {
			t.Fatal(err)
		}
		if n := moved(ws); n != 1 {
			t.Fatalf("round %d: a record from rank 2 moved %d watched words, want 1", round, n)
		}
		if _, ok := watch(0); ok {
			t.Fatalf("round %d: Watch found nothing to do with a record waiting", round)
		}
		j.await(t, 0, round+1)
	}
}
