package sm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// noise is n bytes from a generator seeded with seed: pieces copied in
// the wrong order or to the wrong place show, whatever their sizes.
func noise(n int, seed uint64) []byte {
	b := make([]byte, n)
	x := seed*0x9e3779b97f4a7c15 | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x >> 32)
	}
	return b
}

// strided is a Source whose payload is every block bytes out of stride in
// buf, as a column of a matrix lies. It counts its Packs.
type strided struct {
	buf           []byte
	block, stride int
	packs         int
}

func (s *strided) Pack(dst []byte, off int) {
	s.packs++
	for len(dst) > 0 {
		blk, in := off/s.block, off%s.block
		n := copy(dst, s.buf[blk*s.stride+in:blk*s.stride+s.block])
		dst, off = dst[n:], off+n
	}
}

// packed is what Pack writes for n bytes from off, packed in one go.
func (s *strided) packed(off, n int) []byte {
	b := make([]byte, n)
	saved := s.packs
	s.Pack(b, off)
	s.packs = saved
	return b
}

// newStrided is a Source of at least n bytes from off in blocks of block
// bytes, 3 bytes apart.
func newStrided(n, off, block int) *strided {
	blocks := (n+off)/block + 1
	return &strided{buf: noise(blocks*(block+3), uint64(n)), block: block, stride: block + 3}
}

// stagePack is the most a Writer's string copy packs at a time (shm's
// stage).
const stagePack = 16 << 10

// frag is how an inbox records a fragment.
func frag(from int, hdr, payload []byte) string {
	return fmt.Sprintf("%d:%s:%d:%x", from, hdr, len(payload), sum(payload))
}

// TestSendFromDeliversWhatSendWould: a payload packed by a Source
// straight into the ring arrives as the same bytes sent with Send would,
// for sizes about the record's first line and up to the fragment size,
// sent at once or held back (Post), in order with Sends around them.
func TestSendFromDeliversWhatSendWould(t *testing.T) {
	j := newTestJob(t, 2)
	m := j.mods[0]
	ctx := context.Background()
	var want []string
	seq := 0
	stop := j.poll(1) // the sends outgrow the ring
	defer stop()
	for _, hold := range []bool{false, true} {
		for _, n := range []int{0, 1, 8, 47, 48, 49, 100, 4096, 12345, m.MaxSendSize()} {
			for _, hlen := range []int{btl.SmallHeaderSize, 40} {
				hdr := []byte(fmt.Sprintf("%0*d", hlen, seq))
				seq++
				off := n % 7
				src := newStrided(n, off, 5)
				err := btltest.PostAgain(func() error { return m.SendFrom(ctx, 1, hdr, src, off, n, hold) })
				if err != nil {
					t.Fatalf("SendFrom of %d bytes, hold %v: %v", n, hold, err)
				}
				want = append(want, frag(0, hdr, src.packed(off, n)))
				if most := 2 + n/stagePack; src.packs > most {
					t.Errorf("SendFrom of %d bytes packed in %d calls; the ring record takes at most %d (the first line, then the rest or a stage of it at a time)", n, src.packs, most)
				}
				plain := []byte(fmt.Sprintf("%0*d", hlen, seq))
				seq++
				if err := m.Send(ctx, 1, plain, src.packed(0, n/2)); err != nil {
					t.Fatal(err)
				}
				want = append(want, frag(0, plain, src.packed(0, n/2)))
			}
		}
		m.Flush(1)
	}
	got := j.await(t, 1, len(want))
	if !slices.Equal(got, want) {
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				t.Fatalf("fragment %d of %d: got %q, want %q", i, len(want), got[min(i, len(got)-1)], want[i])
			}
		}
		t.Fatalf("got %d fragments, want %d", len(got), len(want))
	}
}

// TestSendFromEitherWay: past the record's first line a Source packs
// through the ring's Writer, straight into the ring or into the Writer's
// stage for a string copy, a stage at a time; the Writer times both ways
// (its third and fourth copies of a class, then in pairs), and either way
// the payload arrives as Send would deliver it, from Sources of short and
// long blocks.
func TestSendFromEitherWay(t *testing.T) {
	j := newTestJob(t, 2)
	m := j.mods[0]
	ctx := context.Background()
	stop := j.poll(1)
	defer stop()
	var want []string
	seq := 0
	for _, block := range []int{4096, 64} {
		for i := range 40 {
			n := []int{shm.WriterMin + 200, 12345, 40000, m.MaxSendSize()}[i%4]
			hdr := []byte(fmt.Sprintf("%0*d", btl.SmallHeaderSize, seq))
			seq++
			off := i % 11
			src := newStrided(n, off, block)
			if err := m.SendFrom(ctx, 1, hdr, src, off, n, false); err != nil {
				t.Fatalf("SendFrom of %d bytes in blocks of %d: %v", n, block, err)
			}
			want = append(want, frag(0, hdr, src.packed(off, n)))
		}
	}
	got := j.await(t, 1, len(want))
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("fragment %d of %d: got %q, want %q", i, len(want), got[min(i, len(got)-1)], want[i])
		}
	}
}

// waitingReceiver tells when a fragment reaches it.
type waitingReceiver struct{ got chan struct{} }

func (w waitingReceiver) Place(int, []byte, int) []byte { return nil }
func (w waitingReceiver) Deliver(int, []byte, []byte, bool) {
	select {
	case w.got <- struct{}{}:
	default:
	}
}
func (w waitingReceiver) PeerFailed(int, error) {}

// TestSendFromWaitsForRoom: SendFrom into a full ring waits until the
// receiver makes room, then delivers its payload whole. Rank 0 polls only
// while it waits for room, so the fragment rank 1 sent it before reaches
// it only then: that is when rank 1 drains.
func TestSendFromWaitsForRoom(t *testing.T) {
	j := newTestJob(t, 2)
	m := j.mods[0]
	waiting := waitingReceiver{got: make(chan struct{}, 1)}
	m.recv = waiting
	ctx := context.Background()
	full := fillRing(t, m, 1)
	if err := j.mods[1].Send(ctx, 0, []byte("go"), nil); err != nil {
		t.Fatal(err)
	}
	n := m.MaxSendSize()
	src := newStrided(n, 3, 64)
	hdr := []byte("from a source")
	drained := make(chan error, 1)
	go func() {
		select {
		case <-waiting.got:
		case <-time.After(time.Minute): // a hang guard, not a measurement
			drained <- errors.New("rank 0 never polled: it did not wait for room")
			return
		}
		drained <- j.drain(1, full+1)
	}()
	if err := m.SendFrom(ctx, 1, hdr, src, 3, n, false); err != nil {
		t.Fatal(err)
	}
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
	got := j.boxes[1].snapshot()
	if last, want := got[len(got)-1], frag(0, hdr, src.packed(3, n)); last != want {
		t.Fatalf("the fragment sent into a full ring arrived as %q, want %q", last, want)
	}
}

// A Post, a PostSmall or a held SendFrom into a full ring returns
// btl.ErrFull at once (a TrySend false) and leaves the ring as it was; once the receiver
// has made room, the same call goes, and its fragment arrives last and
// whole. Rank 1 never polls before that: a non-blocking send must not
// wait for it.
func TestPostIntoAFullRingReturnsErrFull(t *testing.T) {
	hdr := []byte("posted")
	src := newStrided(1000, 3, 64)
	posts := map[string]func(m *Module) (string, error){
		"Post": func(m *Module) (string, error) {
			pl := bytes.Repeat([]byte{7}, 1000)
			return frag(0, hdr, pl), m.Post(context.Background(), 1, hdr, pl)
		},
		"PostSmall": func(m *Module) (string, error) {
			h := btl.SmallHeader{Lo: 0x0102030405060708, Hi: 0x1112131415161718}
			var hb [btl.SmallHeaderSize]byte
			h.Put(hb[:])
			return frag(0, hb[:], []byte("small")), m.PostSmall(1, h, []byte("small"))
		},
		"SendFrom": func(m *Module) (string, error) {
			return frag(0, hdr, src.packed(3, 1000)), m.SendFrom(context.Background(), 1, hdr, src, 3, 1000, true)
		},
		"TrySend": func(m *Module) (string, error) {
			pl := bytes.Repeat([]byte{9}, 1000)
			if !m.TrySend(1, hdr, pl) {
				return "", btl.ErrFull
			}
			return frag(0, hdr, pl), nil
		},
	}
	for name, post := range posts {
		t.Run(name, func(t *testing.T) {
			j := newTestJob(t, 2)
			m := j.mods[0]
			full := fillRing(t, m, 1)
			if _, err := post(m); err != btl.ErrFull {
				t.Fatalf("%s into a full ring: %v, want btl.ErrFull", name, err)
			}
			if err := j.drain(1, full); err != nil {
				t.Fatal(err)
			}
			if got := len(j.boxes[1].snapshot()); got != full {
				t.Fatalf("rank 1 got %d fragments, want the %d that filled the ring", got, full)
			}
			want, err := post(m)
			if err != nil {
				t.Fatalf("%s once rank 1 made room: %v", name, err)
			}
			m.Flush(1)
			if err := j.drain(1, full+1); err != nil {
				t.Fatal(err)
			}
			if got := j.boxes[1].snapshot(); got[len(got)-1] != want {
				t.Fatalf("the fragment posted again arrived as %q, want %q", got[len(got)-1], want)
			}
		})
	}
}

// TestTrySendWhileTheRingIsTaken: a TrySend to a peer whose ring another
// writer holds (or a Send up the caller's own stack, waiting for room)
// returns false at once and sends nothing; once the ring is free it goes.
func TestTrySendWhileTheRingIsTaken(t *testing.T) {
	j := newTestJob(t, 2)
	m := j.mods[0]
	p := m.peers[1]
	if !m.lock(p) {
		t.Fatal("the module is finalized")
	}
	hdr, pl := []byte("try"), []byte("payload")
	ok := m.TrySend(1, hdr, pl)
	p.sending.Store(false)
	if ok {
		t.Fatal("TrySend went while the ring was taken")
	}
	if !m.TrySend(1, hdr, pl) {
		t.Fatal("TrySend to a free ring with room did not go")
	}
	if err := j.drain(1, 1); err != nil {
		t.Fatal(err)
	}
	if got := j.boxes[1].snapshot(); len(got) != 1 || got[0] != frag(0, hdr, pl) {
		t.Fatalf("rank 1 got %q, want only %q", got, frag(0, hdr, pl))
	}
	if m.TrySend(1, nil, pl) || m.TrySend(1, hdr, make([]byte, m.MaxSendSize()+1)) || m.TrySend(5, hdr, pl) {
		t.Fatal("TrySend went with a header, payload or peer that Send refuses")
	}
}

// drain polls rank until it has got n fragments in all.
func (j *testJob) drain(rank, n int) error {
	deadline := time.Now().Add(time.Minute) // a hang guard, not a measurement
	for len(j.boxes[rank].snapshot()) < n {
		j.mods[rank].Progress()
		if time.Now().After(deadline) {
			return fmt.Errorf("rank %d got %d fragments, want %d", rank, len(j.boxes[rank].snapshot()), n)
		}
	}
	return nil
}

// fillRing writes fragments of the largest size into m's ring to rank,
// then of the smallest, until it has no room; publishes them, and returns how many it wrote.
func fillRing(t *testing.T, m *Module, rank int) int {
	t.Helper()
	p := m.peers[rank]
	if !m.lock(p) {
		t.Fatal("the module is finalized")
	}
	defer func() { p.sending.Store(false) }()
	n := 0
	for p.out.put([]byte("filler"), make([]byte, m.MaxSendSize()), false) {
		n++
	}
	for p.out.put([]byte("filler"), nil, false) { // no room for the smallest either
		n++
	}
	m.publish(p)
	return n
}

// TestSendFromRefuses: what Send refuses, SendFrom refuses, and a Source
// it cannot use, each with an error that names the peer and the fault.
func TestSendFromRefuses(t *testing.T) {
	j := newTestJob(t, 2)
	m := j.mods[0]
	ctx := context.Background()
	src := newStrided(1<<20, 0, 8)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		what   string
		ctx    context.Context
		hdr    []byte
		src    btl.Source
		off, n int
		want   string
	}{
		{"no header", ctx, nil, src, 0, 8, "header of 0 bytes"},
		{"a long header", ctx, make([]byte, btl.MaxHeaderSize+1), src, 0, 8, "must be 1-"},
		{"too large", ctx, []byte("h"), src, 0, m.MaxSendSize() + 1, "exceeds the fragment size"},
		{"no source", ctx, []byte("h"), nil, 0, 8, "no source"},
		{"a negative offset", ctx, []byte("h"), src, -1, 8, "offset -1"},
		{"a negative size", ctx, []byte("h"), src, 0, -8, "-8 bytes"},
		{"a cancelled context", cancelled, []byte("h"), src, 0, 8, "context canceled"},
		{"a rank not on this host", ctx, []byte("h"), src, 0, 8, ""},
	} {
		rank := 1
		if c.want == "" {
			rank = 5
		}
		err := m.SendFrom(c.ctx, rank, c.hdr, c.src, c.off, c.n, false)
		if err == nil {
			t.Errorf("SendFrom with %s succeeded", c.what)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("world rank %d", rank)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SendFrom with %s: %q; want it to name world rank %d and say %q", c.what, err, rank, c.want)
		}
	}
	if err := m.Finalize(); err != nil {
		t.Fatal(err)
	}
	if err := m.SendFrom(ctx, 1, []byte("h"), src, 0, 8, false); err == nil || !strings.Contains(err.Error(), "finalized") {
		t.Errorf("SendFrom after Finalize: %v; want an error saying the module is finalized", err)
	}
	if got := j.boxes[1].snapshot(); len(got) != 0 {
		t.Errorf("refused sends delivered %d fragments", len(got))
	}
}
