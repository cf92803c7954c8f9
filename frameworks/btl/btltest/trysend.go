package btltest

import (
	"context"
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
	ctx := context.Background()
	list := pairedSizes(j.mods[0]) // TrySend the even ones, Send the odd
	j.sending(func() {
		for _, p := range j.pairs() {
			from, to := p[0], p[1]
			m := j.mods[from]
			ts, ok := m.(btl.TrySender)
			if !ok {
				t.Fatalf("rank %d: the module is no btl.TrySender, rank 0's is", from)
			}
			if ts.TrySend(to, nil, payload(from, 3, 0, 1)) || ts.TrySend(to, make([]byte, btl.MaxHeaderSize+1), nil) {
				t.Fatalf("rank %d: TrySend to rank %d took a header that Send refuses", from, to)
			}
			for seq, x := range list {
				n := min(x.plen, m.MaxSendSize())
				hdr, pl := header(from, 3, seq, x.hlen), payload(from, 3, seq, n)
				if seq%2 == 1 {
					if err := m.Send(ctx, to, hdr, pl); err != nil {
						t.Fatalf("rank %d: Send to rank %d of %d bytes: %v", from, to, n, err)
					}
					continue
				}
				deadline := time.Now().Add(time.Minute) // a hang guard, not a measurement
				for !ts.TrySend(to, hdr, pl) {
					if time.Now().After(deadline) {
						t.Fatalf("rank %d: TrySend to rank %d of %d bytes refused for a minute while rank %d polled", from, to, n, to)
					}
					runtime.Gosched()
				}
			}
		}
	})
	j.checkArrived(t, 3, list)
}
