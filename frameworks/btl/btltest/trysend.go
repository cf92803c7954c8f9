package btltest

import (
	"runtime"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// testTrySend checks a btl.TrySender: fragments that TrySend took
// (retried while it refuses, as a caller falls back), among ones sent
// with Send, arrive whole and in order; one it refused, or took with a
// header Send refuses, never arrives.
func (s Suite) testTrySend(t *testing.T) {
	j := s.start(t)
	if _, ok := j.mods[0].(btl.TrySender); !ok {
		t.Skip("the module is no btl.TrySender")
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		ts, ok := j.mods[from].(btl.TrySender)
		if !ok {
			t.Fatalf("rank %d: the module is no btl.TrySender, rank 0's is", from)
		}
		if ts.TrySend(to, nil, payload(from, 3, 0, 1)) || ts.TrySend(to, make([]byte, btl.MaxHeaderSize+1), nil) {
			t.Fatalf("rank %d: TrySend to rank %d took a header that Send refuses", from, to)
		}
	}
	j.sendByTurns(t, 3, func(m btl.Module, to int, hdr, pl []byte, _ int) {
		deadline := time.Now().Add(time.Minute) // a hang guard, not a measurement
		for !m.(btl.TrySender).TrySend(to, hdr, pl) {
			if time.Now().After(deadline) {
				t.Fatalf("TrySend to rank %d of %d bytes refused for a minute while rank %d polled", to, len(pl), to)
			}
			runtime.Gosched()
		}
	})
}
