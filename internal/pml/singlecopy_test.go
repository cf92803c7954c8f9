package pml

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// copier is a fake transport that lets a receiver read a sender's buffer
// in place, as cross-memory attach does between processes.
type copier struct {
	btl.Module
	shared *exposed
	least  int
	fail   bool // Read refuses, as a kernel with ptrace restrictions does
	reads  atomic.Int32
}

type exposed struct {
	mu      sync.Mutex
	next    uint64
	bufs    map[uint64][]byte
	vectors map[uint64][][]byte // blocks exposed by scatterCopier
}

func (c *copier) SingleCopyMin(int) int { return c.least }

func (c *copier) Expose(_ int, buf []byte) uint64 {
	c.shared.mu.Lock()
	defer c.shared.mu.Unlock()
	c.shared.next++
	c.shared.bufs[c.shared.next] = buf
	return c.shared.next
}

func (c *copier) Read(_ int, token uint64, off int, dst []byte) error {
	if c.fail {
		return errors.New("operation not permitted")
	}
	c.shared.mu.Lock()
	src := c.shared.bufs[token]
	c.shared.mu.Unlock()
	if src == nil || off+len(dst) > len(src) {
		return errors.New("no such buffer")
	}
	copy(dst, src[off:])
	c.reads.Add(1)
	return nil
}

func newCopierNet(t *testing.T, fail bool) (*net, []*copier) {
	shared := &exposed{bufs: map[uint64][]byte{}, vectors: map[uint64][][]byte{}}
	var cs []*copier
	nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module {
		c := &copier{Module: m, shared: shared, least: 1000, fail: fail}
		cs = append(cs, c)
		return c
	})
	return nt, cs
}

func TestSingleCopy(t *testing.T) {
	for _, fail := range []bool{false, true} {
		for _, tc := range []struct {
			name          string
			size, bufSize int
			sync, late    bool
		}{
			{"posted first", 5000, 5000, false, false},
			{"unexpected", 5000, 5000, false, true},
			{"truncated", 5000, 3000, false, false},
			{"into nothing", 5000, 0, false, true},
			{"synchronous", 5000, 6000, true, false},
			{"at the threshold", 1000, 1000, false, false},
		} {
			name := tc.name
			if fail {
				name += " read refused"
			}
			t.Run(name, func(t *testing.T) {
				nt, cs := newCopierNet(t, fail)
				msg := bytes.Repeat([]byte("abcdefg"), tc.size/7+1)[:tc.size]
				buf := make([]byte, tc.bufSize)
				var r *Request
				if !tc.late {
					r = nt.engines[1].Irecv(0, 0, 3, buf)
				}
				s := nt.engines[0].Isend(0, 1, 3, msg, tc.sync)
				if tc.late {
					for !hasUnexpected(nt.engines[1]) {
						nt.engines[1].Progress()
					}
					r = nt.engines[1].Irecv(0, 0, 3, buf)
				}
				st := nt.engines[1].Wait(r)
				if st.Err != nil || st.Total != tc.size || st.Bytes != min(tc.size, tc.bufSize) {
					t.Fatalf("receive status %+v", st)
				}
				if !bytes.Equal(buf[:st.Bytes], msg[:st.Bytes]) {
					t.Fatal("received the wrong bytes")
				}
				if st := nt.engines[0].Wait(s); st.Err != nil {
					t.Fatalf("send status %+v", st)
				}
				if got, want := cs[1].reads.Load(), int32(0); (got == want) != (fail || tc.bufSize == 0) {
					t.Errorf("%d single-copy reads", got)
				}
			})
		}
	}
}

func hasUnexpected(e *Engine) bool {
	ok, _ := e.Iprobe(0, AnySource, AnyTag, new(Status))
	return ok
}

// blockingCopier is a copier that reads a blocking send from a threshold
// of its own, and keeps what it was told of receives
// (btl.BlockingCopier).
type blockingCopier struct {
	*copier
	blocking int
	mu       *sync.Mutex
	took     *[]tookReport
	stamps   *[]int64 // the times sent of the RTSs without flagGet that went through it
}

type tookReport struct {
	peer, size int
	read       bool
}

func (c blockingCopier) SingleCopyBlocking(_, size int) bool { return size >= c.blocking }

func (c blockingCopier) Send(ctx context.Context, peer int, hdr, payload []byte) error {
	if h, err := decodeHeader(hdr); err == nil && h.typ == typeRTS && h.flags&flagGet == 0 {
		c.mu.Lock()
		*c.stamps = append(*c.stamps, h.sent)
		c.mu.Unlock()
	}
	return c.copier.Send(ctx, peer, hdr, payload)
}

func (c blockingCopier) Took(peer, size int, read bool, d time.Duration) {
	if d < 0 {
		panic("negative duration")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.took = append(*c.took, tookReport{peer, size, read})
}

// A blocking send has the receiver read its buffer only when the
// transport says so, unless it is half of an exchange; a non-blocking one
// from the plain threshold, waited on at once (a collective's) or not.
// The receiver tells the transport how each rendezvous receive went.
func TestSingleCopyBlockingThreshold(t *testing.T) {
	const eager = 64
	const (
		posted = iota
		started
		blocking
		exchange
	)
	for _, tc := range []struct {
		name  string
		size  int
		send  int
		reads int32
		took  tookReport
	}{
		{"non-blocking between the thresholds", 5000, posted, 1, tookReport{0, 5000, true}},
		{"a collective's between the thresholds", 5000, started, 1, tookReport{0, 5000, true}},
		{"blocking between the thresholds", 5000, blocking, 0, tookReport{0, 5000, false}},
		{"blocking in an exchange between the thresholds", 5000, exchange, 1, tookReport{0, 5000, true}},
		{"blocking at its threshold", 8000, blocking, 1, tookReport{0, 8000, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := &exposed{bufs: map[uint64][]byte{}, vectors: map[uint64][][]byte{}}
			var cs []blockingCopier
			nt := newNetWith(t, 2, eager, 100, func(m btl.Module) btl.Module {
				c := blockingCopier{&copier{Module: m, shared: shared, least: 1000}, 8000, new(sync.Mutex), new([]tookReport), new([]int64)}
				cs = append(cs, c)
				return c
			})
			msg := bytes.Repeat([]byte("abcdefg"), tc.size/7+1)[:tc.size]
			buf := make([]byte, tc.size)
			r := nt.engines[1].Irecv(0, 0, 3, buf)
			sent := make(chan error, 1)
			switch tc.send {
			case exchange:
				go func() { sent <- nt.engines[0].SendInExchange(0, 1, 3, msg) }()
			case blocking:
				go func() { sent <- nt.engines[0].Send(0, 1, 3, msg, false) }()
			case started:
				s := nt.engines[0].StartSend(new(Request), 0, 1, 3, msg, false)
				go func() { sent <- nt.engines[0].Wait(s).Err }()
			default:
				s := nt.engines[0].Isend(0, 1, 3, msg, false)
				go func() { sent <- nt.engines[0].Wait(s).Err }()
			}
			if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != tc.size || !bytes.Equal(buf, msg) {
				t.Fatalf("receive status %+v, bytes equal %v", st, bytes.Equal(buf, msg))
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			if got := cs[1].reads.Load(); got != tc.reads {
				t.Errorf("%d single-copy reads, want %d", got, tc.reads)
			}
			// The report follows the completion: wait for the receiver's.
			var took []tookReport
			for len(took) == 0 {
				cs[1].mu.Lock()
				took = slices.Clone(*cs[1].took)
				cs[1].mu.Unlock()
				runtime.Gosched()
			}
			if len(took) != 1 || took[0] != tc.took {
				t.Errorf("receiver told its transport %+v, want [%+v]", took, tc.took)
			}
			if n := len(*cs[0].took); n != 0 {
				t.Errorf("sender told its transport of %d receives", n)
			}
		})
	}
}

// Only a stream the transport chose for a blocking send is stamped for
// timing: a synchronous send below the single-copy threshold announces
// itself, but its way is not the transport's to choose; nor is a
// layout's stream, which packing and unpacking slow.
func TestBlockingStamps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		sync    bool
		layout  bool
		stamped bool
	}{
		{"blocking streamed", 5000, false, false, true},
		{"synchronous below the single-copy threshold", 500, true, false, false},
		{"a layout's blocking stream", 5000, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := &exposed{bufs: map[uint64][]byte{}, vectors: map[uint64][][]byte{}}
			var cs []blockingCopier
			nt := newNetWith(t, 2, 64, 100, func(m btl.Module) btl.Module {
				c := blockingCopier{&copier{Module: m, shared: shared, least: 1000}, 8000, new(sync.Mutex), new([]tookReport), new([]int64)}
				cs = append(cs, c)
				return c
			})
			msg := bytes.Repeat([]byte("abcdefg"), tc.size/7+1)[:tc.size]
			buf := make([]byte, tc.size)
			r := nt.engines[1].Irecv(0, 0, 3, buf)
			var err error
			if tc.layout {
				src := newStrided(tc.size/10, 10, 16)
				src.Unpack(msg, 0)
				err = nt.engines[0].SendLayout(0, 1, 3, src, tc.sync, false)
			} else {
				err = nt.engines[0].Send(0, 1, 3, msg, tc.sync)
			}
			if err != nil {
				t.Fatal(err)
			}
			if st := nt.engines[1].Wait(r); st.Err != nil || !bytes.Equal(buf, msg) {
				t.Fatalf("receive status %+v, bytes equal %v", st, bytes.Equal(buf, msg))
			}
			cs[0].mu.Lock()
			stamps := slices.Clone(*cs[0].stamps)
			cs[0].mu.Unlock()
			if len(stamps) != 1 {
				t.Fatalf("%d announcements went through the sender's transport, want 1", len(stamps))
			}
			if got := stamps[0] != 0; got != tc.stamped {
				t.Errorf("announcement stamped %v (sent %d), want %v", got, stamps[0], tc.stamped)
			}
		})
	}
}
