package pml

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
)

// strided is a Layout of n blocks of blen bytes, stride bytes apart in
// buf: a matrix column's shape.
type strided struct {
	buf             []byte
	n, blen, stride int
	packs, unpacks  atomic.Int32
}

func newStrided(n, blen, stride int) *strided {
	return &strided{buf: make([]byte, (n-1)*stride+blen), n: n, blen: blen, stride: stride}
}

func (s *strided) Size() int { return s.n * s.blen }

// at is the byte of buf that holds packed byte i.
func (s *strided) at(i int) int { return i/s.blen*s.stride + i%s.blen }

func (s *strided) Pack(dst []byte, off int) {
	s.packs.Add(1)
	for i := range dst {
		dst[i] = s.buf[s.at(off+i)]
	}
}

func (s *strided) Unpack(src []byte, off int) {
	s.unpacks.Add(1)
	for i, b := range src {
		s.buf[s.at(off+i)] = b
	}
}

func (s *strided) MeanBlock() int { return s.blen }

func (s *strided) Blocks(parts [][]byte, off, n int) [][]byte {
	for i := off; i < off+n; {
		k, in := i/s.blen, i%s.blen
		l := min(s.blen-in, off+n-i)
		parts = append(parts, s.buf[k*s.stride+in:k*s.stride+in+l])
		i += l
	}
	return parts
}

// packed is the layout's data as one slice.
func (s *strided) packed() []byte {
	b := make([]byte, s.Size())
	for i := range b {
		b[i] = s.buf[s.at(i)]
	}
	return b
}

// gatherer is a module that packs a Source itself (btl.Gatherer), as a
// shared-memory ring does, counting the fragments it packed.
type gatherer struct {
	btl.Module
	gathered atomic.Int32
}

func (g *gatherer) SendFrom(ctx context.Context, peer int, hdr []byte, src btl.Source, off, n int, _ bool) error {
	g.gathered.Add(1)
	b := make([]byte, n)
	src.Pack(b, off)
	return g.Send(ctx, peer, hdr, b)
}

// TestLayouts sends layouts to buffers, buffers to layouts and layouts to
// layouts, eager and in many rendezvous fragments, through modules that
// pack a Source themselves and modules the engine packs for.
func TestLayouts(t *testing.T) {
	for _, gather := range []bool{false, true} {
		for _, tc := range []struct {
			name             string
			size             int
			sendLay, recvLay bool
			recvSize         int
			late, sync       bool
		}{
			{"eager layout to buffer", 48, true, false, 48, false, false},
			{"eager buffer to layout", 48, false, true, 48, false, false},
			{"eager layout to layout, unexpected", 60, true, true, 60, true, false},
			{"rendezvous layout to layout", 1000, true, true, 1000, false, false},
			{"rendezvous layout to layout, unexpected", 1000, true, true, 1000, true, false},
			{"rendezvous layout to buffer", 999, true, false, 999, false, true},
			{"rendezvous buffer to layout", 999, false, true, 999, true, false},
			{"truncated into a layout", 1000, true, true, 500, false, false},
		} {
			t.Run(fmt.Sprintf("%s, module gathers %v", tc.name, gather), func(t *testing.T) {
				var gs []*gatherer
				nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module {
					if !gather {
						return m
					}
					g := &gatherer{Module: m}
					gs = append(gs, g)
					return g
				})
				// Blocks of 3 bytes, 7 apart: fragments end inside blocks.
				src := newStrided(tc.size/3, 3, 7)
				copy(src.buf, fill(len(src.buf), 5))
				msg := src.packed()
				dst := newStrided(tc.recvSize/3, 3, 7)
				plain := make([]byte, len(dst.packed()))
				recv := func() *Request {
					if tc.recvLay {
						return nt.engines[1].StartRecvLayout(new(Request), 0, 0, 4, dst)
					}
					return nt.engines[1].Irecv(0, 0, 4, plain)
				}
				var r *Request
				if !tc.late {
					r = recv()
				}
				var s *Request
				if tc.sendLay {
					s = nt.engines[0].PostSendLayout(new(Request), 0, 1, 4, src, tc.sync, false, 0)
				} else {
					s = nt.engines[0].Isend(0, 1, 4, msg, tc.sync)
				}
				if tc.late {
					for !hasUnexpected(nt.engines[1]) {
						nt.engines[1].Progress()
					}
					r = recv()
				}
				st := nt.engines[1].Wait(r)
				want := min(len(msg), len(plain))
				if st.Err != nil || st.Total != len(msg) || st.Bytes != want {
					t.Fatalf("receive status %+v, want %d of %d bytes", st, want, len(msg))
				}
				got := plain
				if tc.recvLay {
					got = dst.packed()
				}
				if !bytes.Equal(got, msg[:want]) {
					t.Fatal("received the wrong bytes")
				}
				if st := nt.engines[0].Wait(s); st.Err != nil {
					t.Fatalf("send status %+v", st)
				}
				if tc.sendLay && gather && gs[0].gathered.Load() == 0 {
					t.Error("the module packed no fragment itself")
				}
				if tc.sendLay && !gather && src.packs.Load() < 2 && len(msg) > 64 {
					t.Errorf("a rendezvous layout packed in %d pieces", src.packs.Load())
				}
			})
		}
	}
}

// TestSingleCopyIntoLayout reads a message with the transport's single
// copy straight into a layout, in chunks, and falls back to having it
// sent when the read is refused.
func TestSingleCopyIntoLayout(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("read refused %v", fail), func(t *testing.T) {
			nt, cs := newCopierNet(t, fail)
			size := 3 * readChunk / 2 // two chunks
			msg := fill(size, 9)
			dst := newStrided(size/4, 4, 6)
			r := nt.engines[1].StartRecvLayout(new(Request), 0, 0, 3, dst)
			s := nt.engines[0].Isend(0, 1, 3, msg, false)
			if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != size {
				t.Fatalf("receive status %+v", st)
			}
			if !bytes.Equal(dst.packed(), msg) {
				t.Fatal("received the wrong bytes")
			}
			if st := nt.engines[0].Wait(s); st.Err != nil {
				t.Fatalf("send status %+v", st)
			}
			if got := cs[1].reads.Load(); (got == 2) == fail {
				t.Errorf("%d single-copy reads", got)
			}
		})
	}
}

// vectorer is a module that writes a payload from several slices
// (btl.VectorSender), as tcp's writev does.
type vectorer struct {
	btl.Module
	sent atomic.Int32
}

func (v *vectorer) SendVector(ctx context.Context, peer int, hdr []byte, parts [][]byte) error {
	v.sent.Add(1)
	return v.Send(ctx, peer, hdr, bytes.Join(parts, nil))
}

// scatterReceiver asks the engine where a payload's pieces go before
// delivering it (btl.VectorPlacer), as tcp's readv does.
type scatterReceiver struct {
	*Engine
	t      testing.TB
	placed atomic.Int32
}

func (s *scatterReceiver) Deliver(from int, hdr, payload []byte, placed bool) {
	if !placed {
		if parts := s.PlaceVector(from, hdr, len(payload), nil); len(parts) > 0 {
			rest := payload
			for _, p := range parts {
				rest = rest[copy(p, rest):]
			}
			if len(rest) != 0 {
				s.t.Errorf("PlaceVector gave %d bytes too few for a %d-byte payload", len(rest), len(payload))
			}
			s.placed.Add(1)
			s.DeliverVector(from, hdr, len(payload))
			return
		}
	}
	s.Engine.Deliver(from, hdr, payload, placed)
}

// TestVectoredLayouts sends layouts of long blocks through a transport
// that writes and reads pieces where they lie, and of short blocks,
// which are packed.
func TestVectoredLayouts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		blen       int
		wantVector bool
	}{
		{"long blocks", vectorMinBlock + 100, true},
		{"short blocks", 40, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vs []*vectorer
			var rs []*scatterReceiver
			nt := newNetReceiving(t, 2, 64, 3*vectorMinBlock, func(m btl.Module) btl.Module {
				v := &vectorer{Module: m}
				vs = append(vs, v)
				return v
			}, func(e *Engine) btl.Receiver {
				r := &scatterReceiver{Engine: e, t: t}
				rs = append(rs, r)
				return r
			})
			n := 10 * vectorMinBlock / tc.blen
			src := newStrided(n, tc.blen, tc.blen+24)
			copy(src.buf, fill(len(src.buf), 3))
			dst := newStrided(n, tc.blen, tc.blen+8)
			r := nt.engines[1].StartRecvLayout(new(Request), 0, 0, 2, dst)
			s := nt.engines[0].PostSendLayout(new(Request), 0, 1, 2, src, false, false, 0)
			if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != src.Size() {
				t.Fatalf("receive status %+v", st)
			}
			if st := nt.engines[0].Wait(s); st.Err != nil {
				t.Fatalf("send status %+v", st)
			}
			if !bytes.Equal(dst.packed(), src.packed()) {
				t.Fatal("received the wrong bytes")
			}
			if got := vs[0].sent.Load() > 0; got != tc.wantVector {
				t.Errorf("vectored sends: %d", vs[0].sent.Load())
			}
			if got := rs[1].placed.Load() > 0; got != tc.wantVector {
				t.Errorf("vectored placements: %d", rs[1].placed.Load())
			}
		})
	}
}

// scatterCopier adds reads of pieces to copier (btl.ScatterCopier).
type scatterCopier struct {
	*copier
	scatters, vectors atomic.Int32
}

func (c *scatterCopier) ExposeVector(_ int, bufs [][]byte) (uint64, any) {
	c.shared.mu.Lock()
	defer c.shared.mu.Unlock()
	c.shared.next++
	c.shared.vectors[c.shared.next] = bufs
	return c.shared.next, bufs
}

func (c *scatterCopier) ReadScatter(peer int, token uint64, dsts [][]byte) error {
	c.scatters.Add(1)
	b := make([]byte, len(bytes.Join(dsts, nil)))
	if err := c.Read(peer, token, 0, b); err != nil {
		return err
	}
	for _, d := range dsts {
		b = b[copy(d, b):]
	}
	return nil
}

func (c *scatterCopier) ReadVector(_ int, token uint64, dsts [][]byte) error {
	c.shared.mu.Lock()
	src := bytes.Join(c.shared.vectors[token], nil)
	c.shared.mu.Unlock()
	c.vectors.Add(1)
	for _, d := range dsts {
		if len(src) < len(d) {
			return fmt.Errorf("reading %d bytes of %d exposed", len(d), len(src))
		}
		src = src[copy(d, src):]
	}
	return nil
}

// TestScatterCopy reads rendezvous messages with the transport's single
// copy between buffers and layouts: pieces where they lie when the
// blocks are long, packed when they are short.
func TestScatterCopy(t *testing.T) {
	// Long blocks are worth reading from the sender's memory and into the
	// receiver's; mid ones only into the receiver's.
	long, mid, short := exposeMinBlock, 2*scatterMinBlock, 64
	for _, tc := range []struct {
		name                    string
		sendBlock, recvBlock    int // 0: a plain buffer
		wantScatter, wantVector bool
	}{
		{"long blocks to a buffer", long, 0, false, true},
		{"long blocks to long blocks", long, long, false, true},
		{"long blocks to short blocks", long, short, false, true},
		{"a buffer to long blocks", 0, long, true, false},
		{"short blocks to long blocks", short, long, false, false},
		{"a buffer to mid blocks", 0, mid, true, false},
		{"mid blocks to a buffer", mid, 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := &exposed{bufs: map[uint64][]byte{}, vectors: map[uint64][][]byte{}}
			var cs []*scatterCopier
			nt := newNetWith(t, 2, 64, 1000, func(m btl.Module) btl.Module {
				c := &scatterCopier{copier: &copier{Module: m, shared: shared, least: 1000}}
				cs = append(cs, c)
				return c
			})
			size := 8 * long // whole blocks of any length
			msg := fill(size, 1)
			var src *strided
			if tc.sendBlock > 0 {
				src = newStrided(size/tc.sendBlock, tc.sendBlock, tc.sendBlock+16)
				src.Unpack(msg, 0)
			}
			var dst *strided
			plain := make([]byte, size)
			if tc.recvBlock > 0 {
				dst = newStrided(size/tc.recvBlock, tc.recvBlock, tc.recvBlock+3)
			}
			var r, s *Request
			if dst != nil {
				r = nt.engines[1].StartRecvLayout(new(Request), 0, 0, 6, dst)
			} else {
				r = nt.engines[1].Irecv(0, 0, 6, plain)
			}
			if src != nil {
				s = nt.engines[0].PostSendLayout(new(Request), 0, 1, 6, src, false, false, 0)
			} else {
				s = nt.engines[0].Isend(0, 1, 6, msg, false)
			}
			if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != size {
				t.Fatalf("receive status %+v", st)
			}
			if st := nt.engines[0].Wait(s); st.Err != nil {
				t.Fatalf("send status %+v", st)
			}
			got := plain
			if dst != nil {
				got = dst.packed()
			}
			if !bytes.Equal(got, msg) {
				t.Fatal("received the wrong bytes")
			}
			if got := cs[1].scatters.Load() > 0; got != tc.wantScatter {
				t.Errorf("scattered reads: %d", cs[1].scatters.Load())
			}
			if got := cs[1].vectors.Load() > 0; got != tc.wantVector {
				t.Errorf("reads of exposed blocks: %d", cs[1].vectors.Load())
			}
		})
	}
}

// TestSendLayoutBlocking sends layouts with the blocking call, eager
// (with no request) and rendezvous, in ready mode too.
func TestSendLayoutBlocking(t *testing.T) {
	for _, size := range []int{30, 900} {
		for _, ready := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d bytes, ready %v", size, ready), func(t *testing.T) {
				nt := newNet(t, 2, 64, 100)
				src := newStrided(size/3, 3, 5)
				copy(src.buf, fill(len(src.buf), 8))
				plain := make([]byte, src.Size())
				r := nt.engines[1].Irecv(0, 0, 1, plain)
				if err := nt.engines[0].SendLayout(0, 1, 1, src, false, ready); err != nil {
					t.Fatal(err)
				}
				if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != len(plain) {
					t.Fatalf("receive status %+v", st)
				}
				if !bytes.Equal(plain, src.packed()) {
					t.Fatal("received the wrong bytes")
				}
			})
		}
	}
}

// TestBlockLists: blocksOf lists the blocks of a layout's packed bytes
// [off, off+n) as Blocks does, in a pooled list that putBlocks gives back
// holding no slice of the user's buffer, and a list reused allocates
// nothing.
func TestBlockLists(t *testing.T) {
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	s := newStrided(64, 3, 5)
	l := e.blocksOf(s, 2, 7)
	want := s.Blocks(nil, 2, 7)
	if len(*l) != len(want) {
		t.Fatalf("blocksOf listed %d blocks, want %d", len(*l), len(want))
	}
	for i, b := range *l {
		if len(b) != len(want[i]) || &b[0] != &want[i][0] {
			t.Errorf("block %d is %d bytes at %p, want %d at %p", i, len(b), &b[0], len(want[i]), &want[i][0])
		}
	}
	e.putBlocks(l)
	for i, b := range (*l)[:cap(*l)] {
		if b != nil {
			t.Errorf("the list given back still holds block %d", i)
		}
	}
	if raceBuild {
		return // the race detector's sync.Pool drops items on purpose
	}
	if n := testing.AllocsPerRun(100, func() { e.putBlocks(e.blocksOf(s, 0, s.Size())) }); n != 0 {
		t.Errorf("%v allocations per list of %d blocks", n, s.n)
	}
}
