package pmpi_test

import (
	"runtime"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// An Iallreduce of one float32 and its Wait on the singleton world: what
// the non-blocking machinery adds to the call (the request, the job, the
// slot, the goroutine), beside BenchmarkAllreduce's blocking call. The
// Gosched stands for the yields of a Wait that waits for other ranks,
// which let the call's goroutine run, as it does in a job.
func BenchmarkIallreduceWait(b *testing.B) { iallreduceWait(b, runtime.Gosched) }

// iallreduceWait times an Iallreduce and its Wait, calling between after each.
func iallreduceWait(b *testing.B, between func()) {
	api, w := benchWorld(b)
	send, recv := make([]byte, 4), make([]byte, 4)
	b.ReportAllocs()
	for b.Loop() {
		r, err := api.Iallreduce(send, recv, 1, pmpi.Float32, pmpi.OpSum, w)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := api.Wait(r); err != nil {
			b.Fatal(err)
		}
		between()
	}
}

// The blocking Allreduce of BenchmarkIallreduceWait.
func BenchmarkAllreduce(b *testing.B) {
	api, w := benchWorld(b)
	send, recv := make([]byte, 4), make([]byte, 4)
	b.ReportAllocs()
	for b.Loop() {
		if err := api.Allreduce(send, recv, 1, pmpi.Float32, pmpi.OpSum, w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIallreduceWaitOneP is BenchmarkIallreduceWait with one P, as a
// rank has when ranks fill the host: the Wait runs the call before its
// goroutine would start, and the start allocates nothing.
func BenchmarkIallreduceWaitOneP(b *testing.B) {
	benchWorld(b) // Init sets GOMAXPROCS (mpi_gomaxprocs): first, so that 1 holds
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	iallreduceWait(b, func() {})
}
