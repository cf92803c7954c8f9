package pmpi_test

import (
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// benchWorld initialises MPI as a singleton for a benchmark, once per
// process; its messages go to itself through btl self.
func benchWorld(b *testing.B) (pmpi.API, *pmpi.Comm) {
	api := pmpi.Real()
	if api.Finalized() {
		b.Skip("MPI was finalised in this process (run the benchmarks with -run '^$')")
	}
	if !api.Initialized() {
		if err := api.Init(); err != nil {
			b.Fatal(err)
		}
	}
	return api, api.CommWorld()
}

// Irecv, Isend and their Waits: the non-blocking calls' cost beside the
// persistent requests' (BenchmarkStartWait).
func BenchmarkIsendWait(b *testing.B) {
	api, w := benchWorld(b)
	out, in := make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := api.Irecv(in, 8, pmpi.Byte, 0, 1, w)
		s, _ := api.Isend(out, 8, pmpi.Byte, 0, 1, w)
		if _, err := api.Wait(s); err != nil {
			b.Fatal(err)
		}
		if _, err := api.Wait(r); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCalls times step, one round of calls on the singleton world,
// failing on its first error.
func benchCalls(b *testing.B, step func(api pmpi.API, w *pmpi.Comm) error) {
	api, w := benchWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := step(api, w); err != nil {
			b.Fatal(err)
		}
	}
}

// Sendrecv to itself: the exchange's cost beside BenchmarkIsendWait's
// requests.
func BenchmarkSendrecv(b *testing.B) {
	out, in := make([]byte, 8), make([]byte, 8)
	benchCalls(b, func(api pmpi.API, w *pmpi.Comm) error {
		_, err := api.Sendrecv(out, 8, pmpi.Byte, 0, 3, in, 8, pmpi.Byte, 0, 3, w)
		return err
	})
}

// BenchmarkSendrecv with one buffer.
func BenchmarkSendrecvReplace(b *testing.B) {
	buf := make([]byte, 8)
	benchCalls(b, func(api pmpi.API, w *pmpi.Comm) error {
		_, err := api.SendrecvReplace(buf, 8, pmpi.Byte, 0, 3, 0, 3, w)
		return err
	})
}

// A synchronous send to itself and its receive: the handshake of an
// Ssend, whose receiver's answer completes it.
func BenchmarkIssendRecv(b *testing.B) {
	out, in := make([]byte, 8), make([]byte, 8)
	benchCalls(b, func(api pmpi.API, w *pmpi.Comm) error {
		r, err := api.Issend(out, 8, pmpi.Byte, 0, 5, w)
		if err != nil {
			return err
		}
		if _, err := api.Recv(in, 8, pmpi.Byte, 0, 5, w); err != nil {
			return err
		}
		_, err = api.Wait(r)
		return err
	})
}

// A send to itself, then Probe and Recv: what a probe adds to a receive.
func BenchmarkProbeRecv(b *testing.B) {
	out, in := make([]byte, 8), make([]byte, 8)
	benchCalls(b, func(api pmpi.API, w *pmpi.Comm) error {
		if err := api.Send(out, 8, pmpi.Byte, 0, 4, w); err != nil {
			return err
		}
		if _, err := api.Probe(0, 4, w); err != nil {
			return err
		}
		_, err := api.Recv(in, 8, pmpi.Byte, 0, 4, w)
		return err
	})
}

// BenchmarkProbeRecv with a matched probe and its receive.
func BenchmarkMprobeMrecv(b *testing.B) {
	out, in := make([]byte, 8), make([]byte, 8)
	benchCalls(b, func(api pmpi.API, w *pmpi.Comm) error {
		if err := api.Send(out, 8, pmpi.Byte, 0, 4, w); err != nil {
			return err
		}
		m, _, err := api.Mprobe(0, 4, w)
		if err != nil {
			return err
		}
		_, err = api.Mrecv(in, 8, pmpi.Byte, &m)
		return err
	})
}

// A window of 16 receives and sends, completed by one WaitAll.
func BenchmarkWaitAllWindow(b *testing.B) {
	api, w := benchWorld(b)
	const n = 16
	out, in := make([]byte, 8), make([]byte, 8*n)
	reqs := make([]*pmpi.Request, 2*n)
	sts := make([]pmpi.Status, 2*n)
	b.ReportAllocs()
	for b.Loop() {
		for i := range n {
			reqs[i], _ = api.Irecv(in[8*i:], 8, pmpi.Byte, 0, 2, w)
		}
		for i := range n {
			reqs[n+i], _ = api.Isend(out, 8, pmpi.Byte, 0, 2, w)
		}
		if err := api.WaitAll(reqs, sts); err != nil {
			b.Fatal(err)
		}
	}
}

// A Test of a receive that no message matches: a polling loop's step.
func BenchmarkTestPending(b *testing.B) {
	api, w := benchWorld(b)
	in := make([]byte, 8)
	r, err := api.Irecv(in, 8, pmpi.Byte, 0, 6, w)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, done, err := api.Test(r); done || err != nil {
			b.Fatal("test of a receive no message matches:", done, err)
		}
	}
	b.StopTimer()
	if err := api.Send(in, 8, pmpi.Byte, 0, 6, w); err != nil {
		b.Fatal(err)
	}
	if _, err := api.Wait(r); err != nil {
		b.Fatal(err)
	}
}

// An Iprobe that finds nothing: BenchmarkTestPending's twin for a loop
// that probes.
func BenchmarkIprobeEmpty(b *testing.B) {
	benchCalls(b, func(api pmpi.API, w *pmpi.Comm) error {
		_, found, err := api.Iprobe(0, 7, w)
		if found {
			b.Fatal("Iprobe found a message where none was sent")
		}
		return err
	})
}
