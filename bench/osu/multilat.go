package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

func multiLatency() Measurement {
	return Measurement{
		Name:       "multi-lat",
		Summary:    "ranks i and i+n/2 ping-pong at once: average one-way latency over the pairs",
		Unit:       "us",
		About:      "average one-way latency of the pairs (i, i+n/2), all timed at once",
		Column:     "Latency (us)",
		Counts:     latencyCounts,
		CheckRanks: evenRanks,
		Transports: pairTransports(halves),
		Run:        runMultiLatency,
	}
}

func evenRanks(n int) error {
	if n < 2 || n%2 != 0 {
		return fmt.Errorf("multi-lat needs an even number of ranks, 2 or more, got %d", n)
	}
	return nil
}

// halves pairs rank i with rank i+n/2, as OSU's osu_multi_lat does.
func halves(n int) [][2]int {
	pairs := make([][2]int, n/2)
	for i := range pairs {
		pairs[i] = [2]int{i, i + n/2}
	}
	return pairs
}

func runMultiLatency(w mpi.Comm, o Options) ([]Row, error) {
	half := w.Size() / 2
	me := w.Rank()
	initiator := me < half
	peer := me - half
	if initiator {
		peer = me + half
	}
	times, err := pingPong(w, o, peer, initiator)
	if err != nil {
		return nil, err
	}
	// Rank 0 averages the initiators' times.
	switch {
	case me == 0:
		sum := times
		got := make([]float64, len(times))
		for r := 1; r < half; r++ {
			if _, err := mpi.Recv(got, r, tagGather, w); err != nil {
				return nil, fmt.Errorf("gathering rank %d's times: %w", r, err)
			}
			for i, t := range got {
				sum[i] += t
			}
		}
		for i := range sum {
			sum[i] /= float64(half)
		}
		return rows(o.Sizes, sum), nil
	case initiator:
		if err := mpi.Send(times, 0, tagGather, w); err != nil {
			return nil, fmt.Errorf("sending times to rank 0: %w", err)
		}
	}
	return nil, nil
}
