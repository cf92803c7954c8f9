package tcp

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// pieces cuts b into slices of the lengths in sizes, repeated until b
// is used up.
func pieces(b []byte, sizes ...int) [][]byte {
	var parts [][]byte
	for i := 0; len(b) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(b))
		parts = append(parts, b[:n:n])
		b = b[n:]
	}
	return parts
}

// TestSendVectorWritesWholeFrames sends payloads in more pieces than a
// writev takes, empty ones among them, and far larger than the socket's
// buffers, to a reader that starts late: every write is partial and
// most would block, yet the bytes must arrive whole and in order, after
// the frames held back.
func TestSendVectorWritesWholeFrames(t *testing.T) {
	nc, peer := connectedPair(t)
	c := newConn(&Module{cfg: config{coalesceLimit: 1024}}, nc.(*net.TCPConn))
	c.m.kick = make(chan struct{}, 1)
	payloads := [][][]byte{
		pieces(bytes.Repeat([]byte("abcdefg"), 9<<20/7), 4093, 0, 1, 65536, 3), // 9 MiB in 2600 pieces
		{nil, {1}, nil},
		pieces(bytes.Repeat([]byte{9, 8, 7}, 100<<10), 1), // 300 KiB a byte at a time: 300 writev batches
		nil,
	}
	got := lateReader(peer)
	var want []byte
	frame := func(hdr []byte, payload ...[]byte) {
		fh := make([]byte, frameHeaderSize)
		frameHeader{HeaderLen: len(hdr), PayloadLen: len(bytes.Join(payload, nil))}.Put(fh)
		want = append(append(want, fh...), hdr...)
		for _, p := range payload {
			want = append(want, p...)
		}
	}
	for i, parts := range payloads {
		held := []byte{'p', byte(i)}
		if err := c.send(held, []byte("held"), true); err != nil {
			t.Fatal(err)
		}
		if c.held.Load() == 0 {
			t.Fatal("a small post was not held back")
		}
		frame(held, []byte("held"))
		hdr := []byte{byte(i), 'h'}
		n := len(bytes.Join(parts, nil))
		if err := c.sendVector(hdr, parts, n); err != nil {
			t.Fatal(err)
		}
		frame(hdr, parts...)
	}
	nc.Close()
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("received %d bytes that differ from the %d sent", len(b), len(want))
	}
	if c.out.dirty != 0 || c.out.rest != nil {
		t.Fatal("the connection keeps references to the caller's parts")
	}
}

// TestSendVectorAfterHeldPosts: a SendVector writes the frames that
// Posts held back before its own, as Send does.
func TestSendVectorAfterHeldPosts(t *testing.T) {
	j := newJob(t, 2)
	ctx := context.Background()
	m, rec := j.mods[0], j.recvs[1]
	m.flushDelay = time.Hour // the flusher must not interfere
	if err := m.Send(ctx, 1, hdrFor(0, 0, 0, 3), pattern(3, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	c := m.peers[1].conn.Load()
	for seq := 1; seq <= 10; seq++ {
		if err := m.Post(ctx, 1, hdrFor(0, 0, seq, 100), pattern(100, 0, 0, seq)); err != nil {
			t.Fatal(err)
		}
	}
	if c.held.Load() == 0 {
		t.Fatal("posts held nothing back")
	}
	if err := m.SendVector(ctx, 1, hdrFor(0, 0, 11, 50000), pieces(pattern(50000, 0, 0, 11), 3000, 1)); err != nil {
		t.Fatal(err)
	}
	if n := c.held.Load(); n != 0 {
		t.Fatalf("%d bytes still held after a SendVector", n)
	}
	waitFor(t, "every frame", func() bool { return rec.Count() == 12 })
	inOrder(t, rec, 12)
}

// TestSendVectorChecksSize: more than MaxSendSize bytes in all is
// refused with an error that gives both sizes.
func TestSendVectorChecksSize(t *testing.T) {
	j := newJob(t, 2, "btl_tcp_if_include", "127.0.0.0/8", "btl_tcp_max_send_size", "64k")
	err := j.mods[0].SendVector(context.Background(), 1, []byte("h"), [][]byte{make([]byte, 40<<10), make([]byte, 30<<10)})
	if err == nil {
		t.Fatal("SendVector of 70 KiB succeeded; MaxSendSize is 64 KiB")
	}
	for _, want := range []string{"world rank 1", "71680 bytes in 2 parts", "MaxSendSize", "65536"} {
		if !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// placing is a VectorReceiver whose PlaceVector cuts each payload into
// slices of one length, in one buffer per frame: the frames' headers
// say the length (hdrFor's stream field), 0 leaving the payload to
// Place. Its Place gives a buffer of the right size.
func placing(t *testing.T) *btltest.VectorReceiver {
	r := btltest.NewVectorReceiver()
	r.PlaceVectorFunc = func(from int, hdr []byte, size int, parts [][]byte) [][]byte {
		_, stride, _, _ := parseHdr(t, hdr)
		switch {
		case stride == 0:
			return parts
		case stride < 0: // slices a byte short of the payload
			return append(parts, pieces(make([]byte, size-1), -stride)...)
		}
		return append(parts, pieces(make([]byte, size), stride)...)
	}
	r.PlaceFunc = func(from int, hdr []byte, size int) []byte { return make([]byte, size) }
	return r
}

// TestPlaceVectorReadsInPlace: a receiver that places payloads in slices
// gets them there, with readv of more slices than one call takes and
// slices that reads end in the middle of, and one DeliverVector per
// frame with its size; slices that do not add up to the payload are not
// used (Place is); a receiver that places no vectors is asked Place as
// before.
func TestPlaceVectorReadsInPlace(t *testing.T) {
	recvs := []btl.Receiver{nil, placing(t), btltest.NewReceiver()}
	recvs[2].(*btltest.Receiver).PlaceFunc = func(from int, hdr []byte, size int) []byte { return make([]byte, size) }
	j := newJobWith(t, 3, func(rank int) btl.Receiver { return recvs[rank] })
	ctx := context.Background()
	type frame struct{ stride, size int }
	frames := []frame{
		{1000, 4 << 20}, // 4195 slices, in 5 readv batches
		{997, 3 << 20},
		{1, 64 << 10}, // a byte each: 64 batches
		{7, 300},      // small: from the read buffer
		{4093, 20000},
		{0, 100 << 10},   // left to Place
		{-999, 70 << 10}, // a byte short: left to Place
		{65536, 1 << 20},
	}
	for to := 1; to <= 2; to++ {
		for seq, f := range frames {
			p := pattern(f.size, 0, f.stride, seq)
			var err error
			if seq%2 == 0 {
				err = j.mods[0].SendVector(ctx, to, hdrFor(0, f.stride, seq, f.size), pieces(p, 5000, 1, 0, 70000))
			} else {
				err = j.mods[0].Send(ctx, to, hdrFor(0, f.stride, seq, f.size), p)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for to := 1; to <= 2; to++ {
		r := recvs[to].(interface {
			WaitCount(testing.TB, int, func()) []btltest.Frame
		})
		fs := r.WaitCount(t, len(frames), nil)
		if len(fs) != len(frames) {
			t.Fatalf("rank %d: %d frames, sent %d", to, len(fs), len(frames))
		}
		for seq, f := range fs {
			if _, got := checkFrame(t, f); got != seq {
				t.Fatalf("rank %d: frame %d arrived as number %d", to, got, seq)
			}
			stride := frames[seq].stride
			vectored := to == 1 && stride > 0
			if f.Vectored != vectored || !f.Placed {
				t.Errorf("rank %d: frame %d (slices of %d bytes): vectored %v, placed %v; want vectored %v, placed", to, seq, stride, f.Vectored, f.Placed, vectored)
			}
			if f.Size != frames[seq].size {
				t.Errorf("rank %d: frame %d delivered as %d bytes, sent %d", to, seq, f.Size, frames[seq].size)
			}
		}
	}
	if n, want := recvs[1].(*btltest.VectorReceiver).Placements(0), 7; n != want {
		t.Errorf("PlaceVector gave slices %d times, want %d", n, want)
	}
}

// vectorCounter places every payload in the same slices and counts
// deliveries, keeping nothing: allocation counts then see only the module.
type vectorCounter struct {
	btltest.Counter
	parts   [][]byte
	vectors atomic.Int64
}

func (r *vectorCounter) PlaceVector(_ int, _ []byte, size int, parts [][]byte) [][]byte {
	n := 0
	for _, p := range r.parts {
		n += len(p)
	}
	if n != size {
		return parts
	}
	return append(parts, r.parts...)
}

func (r *vectorCounter) DeliverVector(int, []byte, int) { r.vectors.Add(1) }

// TestSendVectorDoesNotAllocate: once warm, neither SendVector nor the
// readv of a placed payload allocates, across writev batches.
func TestSendVectorDoesNotAllocate(t *testing.T) {
	const size = 200 << 10
	rc := &vectorCounter{parts: pieces(make([]byte, size), 100)}
	j := newJobWith(t, 2, func(rank int) btl.Receiver {
		if rank == 1 {
			return rc
		}
		return nil
	})
	m := j.mods[0]
	ctx := context.Background()
	hdr, parts := make([]byte, 32), pieces(make([]byte, size), 100) // 2048 parts
	for range 20 {                                                  // connect and grow the windows
		if err := m.SendVector(ctx, 1, hdr, parts); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "warm-up frames", func() bool { return rc.vectors.Load() == 20 })
	allocs := testing.AllocsPerRun(200, func() {
		if err := m.SendVector(ctx, 1, hdr, parts); err != nil {
			t.Fatal(err)
		}
	})
	waitFor(t, "every frame", func() bool { return rc.vectors.Load() == 20+201 })
	if allocs != 0 {
		t.Fatalf("SendVector allocates %.2f times per call", allocs)
	}
}
