package pml

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// Benchmarks of the engine's hot paths in one process, no transport
// involved: compare runs with benchstat (make bench writes
// bench/out/micro.txt).

var benchSizes = []int{8, 1024}

// eagerFrom encodes the header of an eager message from rank `from`.
func eagerFrom(from, tag int) []byte {
	h := header{typ: typeMatch, context: world, source: int32(from), tag: int32(tag)}
	return h.encode(make([]byte, HeaderSize))
}

// BenchmarkPostedEager matches an incoming eager fragment against a posted
// receive: Irecv, Deliver, Wait. depth receives that never match sit
// ahead of it in the posted queue.
func BenchmarkPostedEager(b *testing.B) {
	for _, size := range benchSizes {
		for _, depth := range []int{0, 16} {
			b.Run(fmt.Sprintf("size=%d/depth=%d", size, depth), func(b *testing.B) {
				e := newNet(b, 2, 1<<20, 1<<20).engines[1]
				for i := range depth {
					e.Irecv(world, 0, 1000+i, nil)
				}
				hdr, payload, buf := eagerFrom(0, 7), fill(size, 1), make([]byte, size)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					r := e.Irecv(world, 0, 7, buf)
					e.Deliver(0, hdr, payload, false)
					if st := e.Wait(r); st.Bytes != size {
						b.Fatalf("status %+v", st)
					}
				}
			})
		}
	}
}

// BenchmarkUnexpectedEager delivers an eager fragment that no receive
// waits for, then posts the receive that takes it from the unexpected queue.
func BenchmarkUnexpectedEager(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			e := newNet(b, 2, 1<<20, 1<<20).engines[1]
			hdr, payload, buf := eagerFrom(0, 7), fill(size, 1), make([]byte, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				e.Deliver(0, hdr, payload, false)
				if st := e.Wait(e.Irecv(world, 0, 7, buf)); st.Bytes != size {
					b.Fatalf("status %+v", st)
				}
			}
		})
	}
}

// BenchmarkIsendEager starts and completes an eager send over a transport
// that drops what it is given: request allocation, header encoding and the
// call into the module.
func BenchmarkIsendEager(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			e := New(0, hclog.NewNullLogger(), DefaultConfig())
			e.Start(btltest.Discard{})
			msg := fill(size, 1)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if st := e.Wait(e.Isend(world, 1, 7, msg, false)); st.Err != nil {
					b.Fatal(st.Err)
				}
			}
		})
	}
}

// BenchmarkPingPongInProcess is a round trip between two engines through
// the in-process harness, whose links hand each fragment to a goroutine as
// a transport's reader would. Above the eager limit it takes the
// rendezvous path.
func BenchmarkPingPongInProcess(b *testing.B) {
	for _, size := range []int{8, 64 << 10} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			nt := newNet(b, 2, 4096, 1<<20)
			msg, buf, echo := fill(size, 1), make([]byte, size), make([]byte, size)
			done := make(chan struct{})
			go func() { // rank 1 echoes until told to stop by a 0-tag message
				defer close(done)
				for {
					st := nt.engines[1].Wait(nt.engines[1].Irecv(world, 0, AnyTag, echo))
					if st.Tag == 0 {
						return
					}
					nt.engines[1].Wait(nt.engines[1].Isend(world, 0, 7, echo[:st.Bytes], false))
				}
			}()
			b.SetBytes(int64(2 * size))
			b.ReportAllocs()
			for b.Loop() {
				r := nt.engines[0].Irecv(world, 1, 7, buf)
				nt.engines[0].Wait(nt.engines[0].Isend(world, 1, 7, msg, false))
				if st := nt.engines[0].Wait(r); st.Bytes != size {
					b.Fatalf("status %+v", st)
				}
			}
			nt.engines[0].Wait(nt.engines[0].Isend(world, 1, 0, nil, false))
			<-done
		})
	}
}

func BenchmarkHeaderEncode(b *testing.B) {
	h := header{typ: typeRTS, context: 3, source: 1, tag: 99, size: 1 << 20, sreq: 12345}
	buf := make([]byte, HeaderSize)
	b.ReportAllocs()
	for b.Loop() {
		h.encode(buf)
	}
}

func BenchmarkHeaderDecode(b *testing.B) {
	h := header{typ: typeRTS, context: 3, source: 1, tag: 99, size: 1 << 20, sreq: 12345}
	buf := h.encode(make([]byte, HeaderSize))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeHeader(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWindowEager posts a window of 64 receives, as a bandwidth
// test does, then delivers 64 matching fragments: each match takes the
// oldest of the posted receives, with the rest of the window behind it.
func BenchmarkWindowEager(b *testing.B) {
	const window = 64
	e := newNet(b, 2, 1<<20, 1<<20).engines[1]
	hdr, payload, buf := eagerFrom(0, 7), fill(8, 1), make([]byte, 8)
	reqs := make([]*Request, window)
	b.ReportAllocs()
	for b.Loop() {
		for i := range reqs {
			reqs[i] = e.Irecv(world, 0, 7, buf)
		}
		for range reqs {
			e.Deliver(0, hdr, payload, false)
		}
		for _, r := range reqs {
			if st := e.Wait(r); st.Bytes != 8 {
				b.Fatalf("status %+v", st)
			}
		}
	}
}

// BenchmarkBlockingEager is the engine's share of a blocking ping-pong
// step on each side: Send's request-free eager path, and Recv's pooled
// request posted, matched by a delivery, waited on and recycled.
func BenchmarkBlockingEager(b *testing.B) {
	b.Run("send", func(b *testing.B) {
		e := New(0, hclog.NewNullLogger(), DefaultConfig())
		e.Start(btltest.Discard{})
		msg := fill(8, 1)
		b.ReportAllocs()
		for b.Loop() {
			if err := e.Send(world, 1, 7, msg, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("recv", func(b *testing.B) {
		e := newNet(b, 2, 1<<20, 1<<20).engines[1]
		hdr, payload, buf := eagerFrom(0, 7), fill(8, 1), make([]byte, 8)
		b.ReportAllocs()
		for b.Loop() {
			r := e.irecv(nil, world, 0, 7, buf, nil, true)
			e.Deliver(0, hdr, payload, false)
			if st := e.Wait(r); st.Bytes != 8 {
				b.Fatalf("status %+v", st)
			}
			e.Release(r)
		}
	})
}

// BenchmarkEmptyPoll is a poll that finds nothing, by a waiter and by a
// Test-style call (Progress), over a transport that has nothing to give.
func BenchmarkEmptyPoll(b *testing.B) {
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(btltest.Discard{})
	b.Run("waiter", func(b *testing.B) {
		w := waiter{e: e}
		for b.Loop() {
			w.poll()
		}
		w.end()
	})
	b.Run("Progress", func(b *testing.B) {
		for b.Loop() {
			e.Progress()
		}
	})
}
