package pml

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// sentLog is a module that records what its rank transmits: each
// fragment's type and payload length, in order.
type sentLog struct {
	btl.Module
	mu    sync.Mutex
	frags []sentFrag
}

type sentFrag struct {
	typ uint8
	n   int
}

func (s *sentLog) Send(ctx context.Context, peer int, hdr, payload []byte) error {
	h, err := decodeHeader(hdr)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.frags = append(s.frags, sentFrag{h.typ, len(payload)})
	s.mu.Unlock()
	return s.Module.Send(ctx, peer, hdr, payload)
}

// TestRTSCarriesTheFirstFragment: a rendezvous message's request to send
// carries as much of it as the eager limit and the fragment size allow,
// as Open MPI's ob1 does, and the data fragments after the CTS carry the
// rest once, whether the receive was posted before or after the RTS.
func TestRTSCarriesTheFirstFragment(t *testing.T) {
	const eager, maxSend = 4 << 10, 16 << 10
	for _, tc := range []struct {
		eager, maxSend, size int
	}{
		{eager, maxSend, eager + 1},
		{eager, maxSend, 3*maxSend + 7},
		{maxSend * 2, maxSend, 5 * maxSend}, // a fragment smaller than the eager limit bounds the first
	} {
		for _, posted := range []bool{true, false} {
			var log *sentLog
			nt := newNetWith(t, 2, tc.eager, tc.maxSend, func(m btl.Module) btl.Module {
				if log == nil { // rank 0's, the sender's
					log = &sentLog{Module: m}
					return log
				}
				return m
			})
			msg := bytes.Repeat([]byte("0123456789abcdef"), tc.size/16+1)[:tc.size]
			buf := make([]byte, tc.size)
			var r *Request
			if posted {
				r = nt.engines[1].StartRecv(new(Request), 0, 0, 9, buf)
			}
			sent := make(chan error, 1)
			go func() { sent <- nt.engines[0].Send(0, 1, 9, msg, false) }()
			if !posted {
				r = nt.engines[1].StartRecv(new(Request), 0, 0, 9, buf)
			}
			if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != tc.size || !bytes.Equal(buf, msg) {
				t.Fatalf("size %d posted %v: status %+v, data intact %v", tc.size, posted, st, bytes.Equal(buf, msg))
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			log.mu.Lock()
			frags := log.frags
			log.mu.Unlock()
			want := min(tc.size, tc.eager, tc.maxSend)
			if len(frags) == 0 || frags[0] != (sentFrag{typeRTS, want}) {
				t.Fatalf("size %d posted %v: first fragment %+v, want an RTS with %d bytes", tc.size, posted, frags, want)
			}
			total := 0
			for _, f := range frags[1:] {
				if f.typ != typeData || f.n > tc.maxSend {
					t.Fatalf("size %d posted %v: after the RTS %+v, want data fragments of at most %d bytes", tc.size, posted, frags, tc.maxSend)
				}
				total += f.n
			}
			if total != tc.size-want {
				t.Errorf("size %d posted %v: data fragments carried %d bytes, want the %d after the first", tc.size, posted, total, tc.size-want)
			}
		}
	}
}

// peerFragments is a sentLog whose fragments to every peer are at most to
// bytes (btl.PeerFragmenter), below its MaxSendSize.
type peerFragments struct {
	*sentLog
	to int
}

func (p peerFragments) MaxSendSizeTo(int) int { return p.to }

// TestFragmentsFollowThePeersSize: a module that sends smaller fragments
// to a peer than its MaxSendSize gets a rendezvous message's RTS and data
// fragments cut to that size.
func TestFragmentsFollowThePeersSize(t *testing.T) {
	const eager, maxSend, to, size = 16 << 10, 64 << 10, 5000, 50_000
	var log *sentLog
	nt := newNetWith(t, 2, eager, maxSend, func(m btl.Module) btl.Module {
		if log == nil { // rank 0's, the sender's
			log = &sentLog{Module: m}
			return peerFragments{log, to}
		}
		return m
	})
	msg := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
	buf := make([]byte, size)
	r := nt.engines[1].StartRecv(new(Request), 0, 0, 9, buf)
	if err := nt.engines[0].Send(0, 1, 9, msg, false); err != nil {
		t.Fatal(err)
	}
	if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != size || !bytes.Equal(buf, msg) {
		t.Fatalf("status %+v, data intact %v", st, bytes.Equal(buf, msg))
	}
	log.mu.Lock()
	frags := log.frags
	log.mu.Unlock()
	if len(frags) == 0 || frags[0] != (sentFrag{typeRTS, to}) {
		t.Fatalf("fragments %+v: want an RTS with %d bytes first", frags, to)
	}
	total := 0
	for _, f := range frags {
		if f.n > to {
			t.Fatalf("fragments %+v: want none above %d bytes", frags, to)
		}
		total += f.n
	}
	if total != size || len(frags) != (size+to-1)/to {
		t.Errorf("fragments %+v carried %d bytes in %d fragments, want %d in %d", frags, total, len(frags), size, (size+to-1)/to)
	}
}

// ctsSeen is rank 0's receiver: it tells when a CTS has been delivered.
type ctsSeen struct {
	*Engine
	seen chan struct{}
	once sync.Once
}

func (c *ctsSeen) Deliver(from int, hdr, payload []byte, placed bool) {
	c.Engine.Deliver(from, hdr, payload, placed)
	if h, err := decodeHeader(hdr); err == nil && h.typ == typeCTS {
		c.once.Do(func() { close(c.seen) })
	}
}

// writerCheck is rank 0's module: it holds the RTS of tag hold until a CTS
// has been delivered, and records, for each data fragment of the message
// before it, the background transfers in flight.
type writerCheck struct {
	btl.Module
	e        *Engine
	hold     int32
	seen     chan struct{}
	mu       sync.Mutex
	inFlight []int32
}

func (w *writerCheck) Send(ctx context.Context, peer int, hdr, payload []byte) error {
	h, err := decodeHeader(hdr)
	if err != nil {
		panic(err)
	}
	switch {
	case h.typ == typeRTS && h.tag == w.hold:
		<-w.seen
	case h.typ == typeData && h.tag == w.hold-1:
		w.mu.Lock()
		w.inFlight = append(w.inFlight, w.e.inFlight.Load())
		w.mu.Unlock()
	}
	return w.Module.Send(ctx, peer, hdr, payload)
}

// TestSendRunsTheCTSsDeliveredWhileItWrites: a CTS that a transport's
// reader delivers while a send writes its RTS is the send's work: its data
// goes from that call, not from a goroutine of its own, so that one
// goroutine writes a rank's rendezvous data.
func TestSendRunsTheCTSsDeliveredWhileItWrites(t *testing.T) {
	const eager, maxSend, size = 4 << 10, 16 << 10, 64 << 10
	seen := make(chan struct{})
	var w *writerCheck
	nt := newNetReceiving(t, 2, eager, maxSend, func(m btl.Module) btl.Module {
		if w == nil { // rank 0's, the sender's
			w = &writerCheck{Module: m, hold: 2, seen: seen}
			return w
		}
		return m
	}, func(e *Engine) btl.Receiver {
		if e.me == 0 {
			return &ctsSeen{Engine: e, seen: seen}
		}
		return e
	})
	s, r := nt.engines[0], nt.engines[1]
	w.e = s
	msg := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	got := [2][]byte{make([]byte, size), make([]byte, size)}
	recvs := []*Request{r.Irecv(0, 0, 1, got[0]), r.Irecv(0, 0, 2, got[1])}
	first := s.Isend(0, 1, 1, msg, false)
	second := s.Isend(0, 1, 2, msg, false) // its RTS waits for the first's CTS
	// (The second's CTS may come while nothing of rank 0 polls: its data
	// may then go from a goroutine, as it must.)
	if !first.Done() {
		t.Error("the first send is not complete when the second returns: its CTS came while the second wrote, and its data did not go from there")
	}
	for _, q := range append(recvs, first, second) {
		if st := s.Wait(q); st.Err != nil {
			t.Fatal(st.Err)
		}
	}
	for i := range got {
		if !bytes.Equal(got[i], msg) {
			t.Errorf("message %d arrived wrong", i+1)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.inFlight) == 0 {
		t.Fatal("the first message went without data fragments")
	}
	for i, n := range w.inFlight {
		if n != 0 {
			t.Errorf("data fragment %d was written with %d background transfers in flight; want none", i, n)
		}
	}
}

// trySender is rank 1's module, a btl.TrySender: for each fragment it
// sends that way it records whether it was a CTS sent while the receive
// buffer held none of the message yet, or refuses them all.
type trySender struct {
	btl.Module
	buf    []byte
	refuse bool
	mu     sync.Mutex
	early  []bool
}

func (s *trySender) TrySend(peer int, hdr, payload []byte) bool {
	if s.refuse {
		return false
	}
	h, err := decodeHeader(hdr)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.early = append(s.early, h.typ == typeCTS && bytes.Count(s.buf, []byte{0}) == len(s.buf))
	s.mu.Unlock()
	return s.Module.Send(context.Background(), peer, hdr, payload) == nil
}

// TestCTSBeforeTheFirstFragment: a receive matched in a delivery sends its
// CTS before it copies out the first fragment, where its module can send
// from there (btl.TrySender), so that the sender writes the rest
// meanwhile; where the module refuses, the CTS goes after. The message
// arrives whole either way.
func TestCTSBeforeTheFirstFragment(t *testing.T) {
	const eager, maxSend, size = 16 << 10, 16 << 10, 100_000
	for _, refuse := range []bool{false, true} {
		buf := make([]byte, size)
		try := &trySender{buf: buf, refuse: refuse}
		rank := 0
		nt := newNetWith(t, 2, eager, maxSend, func(m btl.Module) btl.Module {
			rank++
			if rank == 2 { // rank 1's, the receiver's
				try.Module = m
				return try
			}
			return m
		})
		msg := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		r := nt.engines[1].StartRecv(new(Request), 0, 0, 9, buf)
		if err := nt.engines[0].Send(0, 1, 9, msg, false); err != nil {
			t.Fatal(err)
		}
		if st := nt.engines[1].Wait(r); st.Err != nil || st.Bytes != size || !bytes.Equal(buf, msg) {
			t.Fatalf("refused %v: status %+v, data intact %v", refuse, st, bytes.Equal(buf, msg))
		}
		try.mu.Lock()
		early := try.early
		try.mu.Unlock()
		if !refuse && !slices.Equal(early, []bool{true}) {
			t.Errorf("sent by TrySend %v; want one CTS, before the first fragment was copied out", early)
		}
	}
}

// trySentLog is a sentLog whose module is a btl.TrySender.
type trySentLog struct{ *sentLog }

func (s trySentLog) TrySend(peer int, hdr, payload []byte) bool {
	return s.Send(context.Background(), peer, hdr, payload) == nil
}

// TestStreamFragmentsOfAQuarter: to a btl.TrySender's peers a rendezvous
// message that is not read by single copy goes in fragments of a quarter
// of it, from 16 KiB up, and at most the eager limit and the fragment
// size: the receiver copies out one while the next is written.
func TestStreamFragmentsOfAQuarter(t *testing.T) {
	const eager, maxSend = 63 << 10, 63 << 10
	for _, tc := range []struct {
		size int
		want []int
	}{
		{64 << 10, []int{16 << 10, 16 << 10, 16 << 10, 16 << 10}},
		{80 << 10, []int{20 << 10, 20 << 10, 20 << 10, 20 << 10}},
		{200<<10 + 1, []int{50 << 10, 50 << 10, 50 << 10, 50 << 10, 1}},
		{300 << 10, []int{maxSend, maxSend, maxSend, maxSend, 300<<10 - 4*maxSend}},
	} {
		var log *sentLog
		nt := newNetWith(t, 2, eager, maxSend, func(m btl.Module) btl.Module {
			if log == nil { // rank 0's, the sender's
				log = &sentLog{Module: m}
				return trySentLog{log}
			}
			return m
		})
		msg := bytes.Repeat([]byte("0123456789abcdef"), tc.size/16+1)[:tc.size]
		buf := make([]byte, tc.size)
		r := nt.engines[1].StartRecv(new(Request), 0, 0, 9, buf)
		if err := nt.engines[0].Send(0, 1, 9, msg, false); err != nil {
			t.Fatal(err)
		}
		if st := nt.engines[1].Wait(r); st.Err != nil || !bytes.Equal(buf, msg) {
			t.Fatalf("size %d: status %+v, data intact %v", tc.size, st, bytes.Equal(buf, msg))
		}
		log.mu.Lock()
		var got []int
		for i, f := range log.frags {
			if want := map[bool]uint8{true: typeRTS, false: typeData}[i == 0]; f.typ != want {
				t.Fatalf("size %d: fragments %+v, want an RTS, then data", tc.size, log.frags)
			}
			got = append(got, f.n)
		}
		log.mu.Unlock()
		if !slices.Equal(got, tc.want) {
			t.Errorf("size %d: fragments of %v bytes, want %v", tc.size, got, tc.want)
		}
	}
}
