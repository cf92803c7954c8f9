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
