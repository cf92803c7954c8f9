package trace

import (
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/pmpi"
)

// BenchmarkCall is the cost the tracer adds to a call it records (Wtime,
// which itself costs tens of nanoseconds), and to one it does not.
func BenchmarkCall(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		api := pmpi.Real()
		for b.Loop() {
			api.Wtime()
		}
	})
	b.Run("recording", func(b *testing.B) {
		tr := newTracer(pmpi.Real(), config{maxEvents: 1 << 30})
		for b.Loop() {
			tr.Wtime()
		}
	})
	b.Run("paused", func(b *testing.B) {
		tr := newTracer(pmpi.Real(), config{maxEvents: 1 << 30})
		tr.recording.Store(false)
		for b.Loop() {
			tr.Wtime()
		}
	})
	b.Run("goid", func(b *testing.B) {
		for b.Loop() {
			lowlevel.GoroutineID()
		}
	})
}

// BenchmarkLayer is what the tracer adds to the calls of frameworks/prof's
// BenchmarkStack, an Isend and its Wait and an Allreduce of 8 bytes, over
// fake, whose calls return at once: fake alone (base), under the tracer
// recording, and under the tracer paused by Pcontrol(0). While recording,
// the events are dropped every 65,536 iterations, outside the timing, so
// that memory stays bounded; the page faults of fresh chunks stay in.
func BenchmarkLayer(b *testing.B) {
	for _, mode := range []string{"base", "recording", "paused"} {
		tr, world := fakeWorld(b, config{maxEvents: 1 << 30})
		var api pmpi.API = tr
		switch mode {
		case "base":
			api = tr.Next
		case "paused":
			tr.recording.Store(false)
		}
		dt := pmpi.TypeOf[int64]()
		send, recv := make([]byte, 8), make([]byte, 8)
		run := func(b *testing.B, call func() error) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
				if n++; n%(1<<16) == 0 {
					b.StopTimer()
					tr.mu.Lock()
					tr.events = events{}
					tr.mu.Unlock()
					b.StartTimer()
				}
			}
		}
		b.Run(mode+"/isend-wait", func(b *testing.B) {
			run(b, func() error {
				r, err := api.Isend(send, 1, dt, 1, 0, world)
				if err != nil {
					return err
				}
				_, err = api.Wait(r)
				return err
			})
		})
		b.Run(mode+"/allreduce-8B", func(b *testing.B) {
			run(b, func() error { return api.Allreduce(send, recv, 1, dt, pmpi.OpSum, world) })
		})
	}
}

// BenchmarkFinalize is rank 0's work at Finalize for one rank of 100,000
// sends: take the events, encode them for the gather, decode and write
// the merged file.
func BenchmarkFinalize(b *testing.B) {
	const n = 100_000
	tr := newTracer(nil, config{maxEvents: n})
	for i := range n {
		a := args{comm: "world", commID: "world"}.withPeer(1, 7).withBytes(64).withFlow(flowEnd(i + 1))
		tr.add(record{name: "MPI_Send", start: int64(i) * 1000, dur: 500, tid: 1, a: a})
	}
	path := b.TempDir() + "/trace.json"
	for b.Loop() {
		blob := encodeRank(tr.snapshot())
		rt, err := decodeRank(blob)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := writeFile(path, "bench", []rankTrace{rt}, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(blob))/n, "wire-B/event")
	}
}
