package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// barrierMeasurement times the barrier itself: it has no size, so its one
// row is keyed by the rank count.
func barrierMeasurement() Measurement {
	return Measurement{
		Name:       "barrier",
		Summary:    "every rank enters a barrier: average latency over the ranks (-f: and min, max)",
		Unit:       "us",
		About:      "time of one Barrier, averaged over the ranks; one row, keyed by the rank count",
		Column:     "Avg Latency (us)",
		NoSizes:    true,
		Large:      collLarge, // unused: the counts are the small ones
		Stats:      true,
		Cold:       true,
		Counts:     collCounts,
		CheckRanks: atLeast("barrier", 1),
		Transports: rankZeroTransports,
		Run:        runBarrier,
	}
}

// runBarrier times back-to-back barriers, each rank its own loop, as
// OSU's osu_barrier does; with o.Cold on a fresh communicator.
func runBarrier(w mpi.Comm, o Options) ([]Row, error) {
	if err := mpi.Barrier(w); err != nil {
		return nil, fmt.Errorf("barrier before timing: %w", err)
	}
	c, free, err := sizeComm(w, o.Cold)
	if err != nil {
		return nil, err
	}
	iters, warm := o.For(0)
	var start float64
	for i := range iters + warm {
		if i == warm {
			start = mpi.Wtime()
		}
		if err := mpi.Barrier(c); err != nil {
			return nil, fmt.Errorf("barrier %d: %w", i+1, err)
		}
	}
	t := (mpi.Wtime() - start) / float64(iters) * 1e6
	if err := free(); err != nil {
		return nil, err
	}
	return overRanks(w, o, []int{w.Size()}, []float64{t})
}
