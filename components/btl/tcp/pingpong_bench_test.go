package tcp

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// tally is a btl.Receiver that only counts deliveries, without a lock, so
// that a polling loop sees a frame the moment it is delivered.
type tally struct{ n atomic.Int64 }

func (r *tally) Place(int, []byte, int) []byte     { return nil }
func (r *tally) Deliver(int, []byte, []byte, bool) { r.n.Add(1) }
func (r *tally) PeerFailed(int, error)             {}

// BenchmarkPingPong8B is the round trip of an 8-byte message between two
// ranks that poll, as blocking sends and receives make it: the latency
// that every change to the send or receive path must leave alone.
func BenchmarkPingPong8B(b *testing.B) {
	recvs := []*tally{{}, {}}
	j := newJobWith(b, 2, func(rank int) btl.Receiver { return recvs[rank] })
	ctx := context.Background()
	hdr, payload := make([]byte, 32), make([]byte, 8)
	// await polls m until r has counted n frames.
	await := func(m *Module, r *tally, n int64) {
		for r.n.Load() < n {
			if m.Progress() == 0 {
				runtime.Gosched()
			}
		}
	}
	// A first round trip connects the pair.
	if err := j.mods[0].Send(ctx, 1, hdr, payload); err != nil {
		b.Fatal(err)
	}
	await(j.mods[1], recvs[1], 1)
	if err := j.mods[1].Send(ctx, 0, hdr, payload); err != nil {
		b.Fatal(err)
	}
	await(j.mods[0], recvs[0], 1)
	done := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for i := range int64(b.N) {
			await(j.mods[1], recvs[1], i+2)
			if err := j.mods[1].Send(ctx, 0, hdr, payload); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := range int64(b.N) {
		if err := j.mods[0].Send(ctx, 1, hdr, payload); err != nil {
			b.Fatal(err)
		}
		await(j.mods[0], recvs[0], i+2)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
