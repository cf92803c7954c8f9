package pml

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// Messages of every protocol, Mprobe'd with AnySource and AnyTag, then
// received through the handle into a buffer sized from the probe, the
// blocking way and through StartMrecv.
func TestMprobeThenMrecv(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	a, b := nt.engines[0], nt.engines[1]
	for _, size := range []int{0, 10, 64, 65, 1000, 100_000} {
		for _, started := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d bytes started=%v", size, started), func(t *testing.T) {
				msg := fill(size, byte(size))
				s := a.Isend(world, 1, 9, msg, false)
				m, pst, err := b.Mprobe(world, AnySource, AnyTag)
				if err != nil || m == nil || pst.Source != 0 || pst.Tag != 9 || pst.Bytes != size || pst.Total != size {
					t.Fatalf("Mprobe: %v, %+v, %v", m, pst, err)
				}
				buf := make([]byte, pst.Bytes)
				var st Status
				if started {
					r, err := b.StartMrecv(new(Request), m, buf)
					if err != nil {
						t.Fatal(err)
					}
					st = b.Wait(r)
				} else if err := b.Mrecv(m, buf, &st); err != nil {
					t.Fatal(err)
				}
				if st.Err != nil || st.Source != 0 || st.Tag != 9 || st.Bytes != size || st.Truncated() {
					t.Fatalf("Mrecv status %+v", st)
				}
				if !bytes.Equal(buf, msg) {
					t.Fatal("payload differs")
				}
				if st := a.Wait(s); st.Err != nil || st.Cancelled {
					t.Fatalf("send status %+v", st)
				}
			})
		}
	}
}

// A message that a matched probe took is invisible to later probes and
// receives, even with AnySource and AnyTag: they see the next message.
func TestMprobedMessageIsTakenFromMatching(t *testing.T) {
	for _, size := range []int{8, 500} { // eager, rendezvous
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			nt := newNet(t, 2, 64, 100)
			a, b := nt.engines[0], nt.engines[1]
			first, second := fill(size, 1), fill(size, 2)
			s1 := a.Isend(world, 1, 1, first, false)
			s2 := a.Isend(world, 1, 2, second, false)
			m, st, err := b.Mprobe(world, AnySource, AnyTag)
			if err != nil || st.Tag != 1 {
				t.Fatalf("Mprobe got tag %d, %v; want the first message, tag 1", st.Tag, err)
			}
			if st, err := b.Probe(world, AnySource, AnyTag); err != nil || st.Tag != 2 {
				t.Fatalf("Probe after Mprobe found tag %d, %v; want 2: the Mprobe'd message is still matchable", st.Tag, err)
			}
			buf := make([]byte, size)
			var rst Status
			b.Recv(world, AnySource, AnyTag, buf, &rst)
			if rst.Err != nil || rst.Tag != 2 || !bytes.Equal(buf, second) {
				t.Fatalf("Recv after Mprobe got %+v: want the second message", rst)
			}
			if ok, _ := b.Iprobe(world, AnySource, AnyTag, new(Status)); ok {
				t.Fatal("Iprobe finds a message: the Mprobe'd one is still matchable")
			}
			if err := b.Mrecv(m, buf, &rst); err != nil || rst.Tag != 1 || !bytes.Equal(buf, first) {
				t.Fatalf("Mrecv got %+v, %v: want the first message", rst, err)
			}
			a.Wait(s1)
			a.Wait(s2)
		})
	}
}

// A buffer shorter than the message gets what fits, and the status says
// how long the message was, as Recv's does.
func TestMrecvTruncates(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	a, b := nt.engines[0], nt.engines[1]
	for _, size := range []int{40, 5000} {
		msg := fill(size, 3)
		s := a.Isend(world, 1, 4, msg, false)
		m, _, err := b.Mprobe(world, 0, 4)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, size/2)
		var st Status
		if err := b.Mrecv(m, buf, &st); err != nil {
			t.Fatal(err)
		}
		if st.Bytes != size/2 || st.Total != size || !st.Truncated() || !bytes.Equal(buf, msg[:size/2]) {
			t.Fatalf("%d bytes into %d: status %+v", size, size/2, st)
		}
		if st := a.Wait(s); st.Err != nil {
			t.Fatalf("send status %+v", st)
		}
	}
}

// A sender's cancel that reaches the receiver after its Mprobe finds the
// message matched: the send completes normally and Mrecv gets it.
func TestCancelAfterMprobeFindsItMatched(t *testing.T) {
	for _, size := range []int{8, 500} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			nt := newNet(t, 2, 64, 100)
			a, b := nt.engines[0], nt.engines[1]
			msg := fill(size, 4)
			s := a.PostSend(new(Request), world, 1, 6, msg, false, 1)
			m, _, err := b.Mprobe(world, 0, 6)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Cancel(s); err != nil {
				t.Fatal(err)
			}
			// One sender's fragments arrive in order: once this one is
			// here, the receiver has answered the cancel.
			a.Wait(a.Isend(world, 1, 7, nil, false))
			if _, err := b.Probe(world, 0, 7); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, size)
			var st Status
			if err := b.Mrecv(m, buf, &st); err != nil || st.Err != nil || !bytes.Equal(buf, msg) {
				t.Fatalf("Mrecv after the cancel: %+v, %v", st, err)
			}
			if st := a.Wait(s); st.Cancelled || st.Err != nil {
				t.Fatalf("send status %+v: the Mprobe'd message was cancelled", st)
			}
		})
	}
}

// Improbe with nothing there finds nothing. When the peer fails, a
// waiting Mprobe naming it fails, and so does the receive of its
// Mprobe'd rendezvous message, whose payload stayed with it.
func TestImprobeNothingThereAndPeerFailure(t *testing.T) {
	nt := newNet(t, 3, 64, 100)
	b, c := nt.engines[1], nt.engines[2]
	if m, _, err := b.Improbe(world, AnySource, AnyTag); m != nil || err != nil {
		t.Fatalf("Improbe with nothing sent: %v, %v", m, err)
	}
	c.Isend(world, 1, 3, fill(500, 6), false)
	m, _, err := b.Mprobe(world, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	nt.kill(2)
	if _, _, err := b.Mprobe(world, 2, AnyTag); !errors.Is(err, btl.ErrPeerFailed) {
		t.Fatalf("Mprobe from a failed peer: %v", err)
	}
	if m, _, err := b.Improbe(world, 2, AnyTag); m != nil || !errors.Is(err, btl.ErrPeerFailed) {
		t.Fatalf("Improbe from a failed peer: %v, %v", m, err)
	}
	var st Status
	if err := b.Mrecv(m, make([]byte, 500), &st); err != nil || !errors.Is(st.Err, btl.ErrPeerFailed) {
		t.Fatalf("Mrecv of a failed peer's rendezvous message: %+v, %v", st, err)
	}
}

// A handle is received once: a second receive fails, also when two
// goroutines try at once.
func TestMrecvTwice(t *testing.T) {
	nt := newNet(t, 2, 64, 100)
	a, b := nt.engines[0], nt.engines[1]
	for _, size := range []int{8, 500} {
		s := a.Isend(world, 1, 2, fill(size, 5), false)
		m, _, err := b.Mprobe(world, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() {
				var st Status
				errs[i] = b.Mrecv(m, make([]byte, size), &st)
			})
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), ErrReceived) {
			t.Fatalf("two Mrecvs of one message: %v", errs)
		}
		if _, err := b.StartMrecv(new(Request), m, nil); !errors.Is(err, ErrReceived) {
			t.Fatalf("StartMrecv of a received message: %v", err)
		}
		a.Wait(s)
	}
}

// One goroutine of the receiver loops Mprobe then Mrecv while another
// loops Recv, both with AnySource and AnyTag: every message is received
// exactly once, and each Mrecv gets the message its Mprobe described.
func TestMprobeRacesRecv(t *testing.T) {
	const n = 2000
	nt := newNet(t, 2, 64, 100)
	a, b := nt.engines[0], nt.engines[1]
	const stop = 1 << 20 // a tag past every message's
	got := make([]int, n)
	var mu sync.Mutex
	take := func(st Status, buf []byte) error {
		if st.Err != nil || st.Truncated() || len(buf) < 4 {
			return fmt.Errorf("status %+v of %d bytes", st, len(buf))
		}
		seq := int(binary.LittleEndian.Uint32(buf))
		if seq != st.Tag || len(buf) != sizeOf(seq) {
			return fmt.Errorf("message %d of %d bytes under tag %d", seq, len(buf), st.Tag)
		}
		mu.Lock()
		got[seq]++
		mu.Unlock()
		return nil
	}
	done := make(chan error, 2)
	go func() {
		for {
			m, pst, err := b.Mprobe(world, AnySource, AnyTag)
			if err != nil {
				done <- err
				return
			}
			buf := make([]byte, pst.Bytes)
			var st Status
			if err := b.Mrecv(m, buf, &st); err != nil {
				done <- err
				return
			}
			if st.Tag != pst.Tag || st.Bytes != pst.Bytes {
				done <- fmt.Errorf("Mprobe saw tag %d of %d bytes, Mrecv got tag %d of %d", pst.Tag, pst.Bytes, st.Tag, st.Bytes)
				return
			}
			if st.Tag == stop {
				done <- nil
				return
			}
			if err := take(st, buf); err != nil {
				done <- err
				return
			}
		}
	}()
	go func() {
		buf := make([]byte, sizeOf(6)) // the largest
		for {
			var st Status
			b.Recv(world, AnySource, AnyTag, buf, &st)
			if st.Tag == stop {
				done <- nil
				return
			}
			if err := take(st, buf[:st.Bytes]); err != nil {
				done <- err
				return
			}
		}
	}()
	for seq := range n {
		msg := make([]byte, sizeOf(seq))
		binary.LittleEndian.PutUint32(msg, uint32(seq))
		a.Wait(a.Isend(world, 1, seq, msg, false))
	}
	// One stop, then, once a receiver has ended, the other's.
	for range 2 {
		a.Wait(a.Isend(world, 1, stop, nil, false))
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for seq, c := range got {
		if c != 1 {
			t.Errorf("message %d received %d times", seq, c)
		}
	}
	checkWaiting(t, b)
}

// sizeOf is the racing test's message size: eager and rendezvous alike.
func sizeOf(seq int) int { return 4 + seq%7*30 }

// The state report lists a waiting Mprobe, and a message that a matched
// probe took until its receive takes it.
func TestStateListsMprobe(t *testing.T) {
	nt := newNet(t, 2, 64, 1024)
	a, b := nt.engines[0], nt.engines[1]
	probed := make(chan *Matched, 1)
	go func() {
		m, _, _ := b.Mprobe(5, 0, 7)
		probed <- m
	}()
	s := waitRecorded(t, b, func(s State) bool { return len(s.Pending) == 1 && s.Pending[0].Wait != nil })
	if op := s.Pending[0]; op.Kind != OpMprobe || op.Context != 5 || op.Peer != 0 || op.Tag != 7 {
		t.Errorf("pending %+v, want an mprobe from 0 tag 7 on context 5", op)
	}
	a.Wait(a.Isend(5, 1, 7, []byte("hello"), false))
	m := <-probed
	s = b.State(10)
	if len(s.Pending) != 0 || s.UnexpectedTotal != 1 || len(s.Unexpected) != 1 ||
		s.Unexpected[0] != (Message{Context: 5, From: 0, Tag: 7, Size: 5, Probed: true}) {
		t.Errorf("state after the Mprobe: %+v", s)
	}
	var st Status
	if err := b.Mrecv(m, make([]byte, 5), &st); err != nil {
		t.Fatal(err)
	}
	if s := b.State(10); s.UnexpectedTotal != 0 || len(s.Unexpected) != 0 {
		t.Errorf("state after the Mrecv: %+v", s)
	}
}

// An Mprobe'd message that its sender offers for single copy is read by
// the Mrecv straight from the sender's buffer, or sent when the read is
// refused, whole or truncated.
func TestMrecvSingleCopy(t *testing.T) {
	for _, fail := range []bool{false, true} {
		for _, bufSize := range []int{5000, 3000} {
			t.Run(fmt.Sprintf("refused=%v buffer=%d", fail, bufSize), func(t *testing.T) {
				nt, cs := newCopierNet(t, fail)
				a, b := nt.engines[0], nt.engines[1]
				msg := fill(5000, 8)
				s := a.Isend(world, 1, 3, msg, false)
				m, pst, err := b.Mprobe(world, AnySource, AnyTag)
				if err != nil || pst.Bytes != 5000 {
					t.Fatalf("Mprobe: %+v, %v", pst, err)
				}
				buf := make([]byte, bufSize)
				r, err := b.StartMrecv(new(Request), m, buf)
				if err != nil {
					t.Fatal(err)
				}
				st := b.Wait(r)
				if st.Err != nil || st.Bytes != bufSize || st.Total != 5000 || !bytes.Equal(buf, msg[:bufSize]) {
					t.Fatalf("Mrecv status %+v", st)
				}
				if st := a.Wait(s); st.Err != nil {
					t.Fatalf("send status %+v", st)
				}
				if reads := cs[1].reads.Load(); (reads == 0) != fail {
					t.Errorf("%d single-copy reads", reads)
				}
			})
		}
	}
}
