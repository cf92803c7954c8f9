package trace

import (
	"testing"

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
			goid()
		}
	})
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
		if _, err := writeFile(path, "bench", []rankTrace{rt}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(blob))/n, "wire-B/event")
	}
}
