package mpi_test

import (
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

var benchInit sync.Once

// benchWorld initialises MPI once for the process's benchmarks.
func benchWorld(b *testing.B) mpi.Comm {
	if mpi.Finalized() {
		b.Skip("a test in this process finalised MPI, which initialises once per process")
	}
	benchInit.Do(func() {
		if err := mpi.Init(); err != nil {
			b.Fatal(err)
		}
	})
	return mpi.CommWorld()
}

// BenchmarkSelfSendRecv is a small message to this rank and back through
// the whole API: what a derived datatype must not slow down.
func BenchmarkSelfSendRecv(b *testing.B) {
	w := benchWorld(b)
	out, in := []float64{1}, []float64{0}
	b.ReportAllocs()
	for b.Loop() {
		r, err := mpi.Isend(out, 0, 1, w)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mpi.Recv(in, 0, 1, w); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTypeOf is the numeric fast path every call takes.
func BenchmarkTypeOf(b *testing.B) {
	for b.Loop() {
		if pmpi.TypeOf[float64]() != pmpi.Float64 || pmpi.TypeOf[int32]() != pmpi.Int32 {
			b.Fatal("wrong type")
		}
	}
}

// BenchmarkSelfSendRecvLayout is BenchmarkSelfSendRecv with a column
// layout on both sides: a derived datatype's message must make no more
// calls through the stack, and allocate no more, than a plain slice's.
func BenchmarkSelfSendRecvLayout(b *testing.B) {
	w := benchWorld(b)
	col, err := mpi.Vector[float64](8, 1, 4)
	if err != nil {
		b.Fatal(err)
	}
	out, in := make([]float64, 32), make([]float64, 32)
	b.ReportAllocs()
	for b.Loop() {
		r, err := mpi.IsendLayout(out, 1, col, 0, 1, w)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mpi.RecvLayout(in, 1, col, 0, 1, w); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
