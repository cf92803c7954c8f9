package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// latencyCounts are OSU's osu_latency defaults.
var latencyCounts = Counts{Iters: 10000, Warmup: 100, LargeIters: 1000, LargeWarmup: 10}

func latency() Measurement {
	return Measurement{
		Name:       "latency",
		Summary:    "ping-pong between ranks 0 and 1: one-way latency (half the round trip)",
		Unit:       "us",
		About:      "one-way latency, half the round trip between ranks 0 and 1",
		Column:     "Latency (us)",
		Counts:     latencyCounts,
		CheckRanks: atLeast("latency", 2),
		Transports: rankZeroTransports,
		Run:        runLatency,
	}
}

func runLatency(w mpi.Comm, o Options) ([]Row, error) {
	peer := pairPeer(w)
	times, err := pingPong(w, o, peer, w.Rank() == 0)
	if err != nil || w.Rank() != 0 {
		return nil, err
	}
	return rows(o.Sizes, times), nil
}

// pairPeer is the other rank of the pair 0 and 1 that the two-rank
// measurements time, or -1 for the ranks above, which only keep the
// barriers.
func pairPeer(w mpi.Comm) int {
	switch w.Rank() {
	case 0:
		return 1
	case 1:
		return 0
	}
	return -1
}

// pingPong times a ping-pong with peer for every size, the initiator
// sending first, and returns each size's one-way time in microseconds. A
// rank with no peer (-1) only takes part in the barriers.
func pingPong(w mpi.Comm, o Options, peer int, initiator bool) ([]float64, error) {
	sbuf := filled(o.MaxSize())
	rbuf := filled(o.MaxSize())
	return timeRounds(w, o, peer, 2, func(size int) (func() error, error) {
		s, r := sbuf[:size], rbuf[:size]
		return func() error { return exchange(w, s, r, peer, initiator) }, nil
	})
}

// timeRounds times rounds for every size and returns each size's time in
// microseconds divided by per: 2 gives a round trip's one-way time, 1 a
// round's whole time. prepare makes a size's round. A rank with no peer
// (-1) only takes part in the barriers.
func timeRounds(w mpi.Comm, o Options, peer, per int, prepare func(size int) (func() error, error)) ([]float64, error) {
	settle()
	var out []float64
	for _, size := range o.Sizes {
		if err := barrier(w); err != nil {
			return nil, err
		}
		if peer < 0 {
			continue
		}
		round, err := prepare(size)
		if err != nil {
			return nil, err
		}
		iters, warm := o.For(size)
		var start float64
		for i := range iters + warm {
			if i == warm {
				start = mpi.Wtime()
			}
			if err := round(); err != nil {
				return nil, fmt.Errorf("size %d: %w", size, err)
			}
		}
		out = append(out, (mpi.Wtime()-start)/float64(iters)/float64(per)*1e6)
	}
	return out, nil
}

// exchange is one round trip: the initiator sends then receives.
func exchange(w mpi.Comm, s, r []byte, peer int, initiator bool) error {
	if initiator {
		if err := mpi.Send(s, peer, tagData, w); err != nil {
			return err
		}
		_, err := mpi.Recv(r, peer, tagData, w)
		return err
	}
	if _, err := mpi.Recv(r, peer, tagData, w); err != nil {
		return err
	}
	return mpi.Send(s, peer, tagData, w)
}

func rows(sizes []int, values []float64) []Row {
	out := make([]Row, len(sizes))
	for i, s := range sizes {
		out[i] = Row{Key: s, Value: values[i]}
	}
	return out
}
