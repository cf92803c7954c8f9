package btltest

import (
	"context"
	"fmt"
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
	type sent struct{ hlen, plen int }
	var list []sent
	for _, plen := range []int{0, 1, 100, 4097, j.mods[0].EagerLimit(), j.mods[0].MaxSendSize()} {
		for _, hlen := range []int{btl.SmallHeaderSize, btl.MaxHeaderSize} {
			list = append(list, sent{hlen, plen}, sent{hlen, plen / 3})
		}
	}
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
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= len(list) })
		fs := r.From(from)
		if len(fs) != len(list) {
			t.Fatalf("rank %d: %d fragments from rank %d, sent %d", to, len(fs), from, len(list))
		}
		for seq, f := range fs {
			check(t, f, header(from, 3, seq, list[seq].hlen), min(list[seq].plen, j.mods[from].MaxSendSize()), from, 3, seq)
		}
	}
}
