package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// commCreation is a way to make a communicator of the world's ranks.
type commCreation struct {
	name, summary string
	make          func(w mpi.Comm) (mpi.Comm, error)
}

// commMeasurements time making and freeing a communicator: what a library
// that duplicates its caller's communicator, or a code that splits its
// ranks again at each step, pays. OSU has no such measurement; they take
// barrier's shape, one row keyed by the rank count.
func commMeasurements() []Measurement {
	var ms []Measurement
	for _, c := range []commCreation{
		{"comm-dup", "Dup of the world and Free", func(w mpi.Comm) (mpi.Comm, error) { return w.Dup() }},
		{"comm-idup", "Idup of the world, its Wait, and Free", func(w mpi.Comm) (mpi.Comm, error) {
			c, r, err := w.Idup()
			if err == nil {
				_, err = r.Wait()
			}
			return c, err
		}},
		{"comm-split", "Split of the world, one colour, and Free", func(w mpi.Comm) (mpi.Comm, error) { return w.Split(0, w.Rank()) }},
	} {
		ms = append(ms, Measurement{
			Name:       c.name,
			Summary:    "every rank makes and frees a communicator, " + c.summary + ": average time over the ranks (-f: and min, max)",
			Unit:       "us",
			About:      "time of one " + c.summary + ", averaged over the ranks; one row, keyed by the rank count",
			Column:     "Avg Latency (us)",
			NoSizes:    true,
			Large:      collLarge, // unused: the counts are the small ones
			Stats:      true,
			Counts:     collCounts,
			CheckRanks: atLeast(c.name, 1),
			Transports: rankZeroTransports,
			Run:        func(w mpi.Comm, o Options) ([]Row, error) { return runCommCreation(w, o, c) },
		})
	}
	return ms
}

// runCommCreation times back-to-back creations and frees, each rank its
// own loop, as runBarrier times barriers.
func runCommCreation(w mpi.Comm, o Options, c commCreation) ([]Row, error) {
	if err := mpi.Barrier(w); err != nil {
		return nil, fmt.Errorf("barrier before timing: %w", err)
	}
	iters, warm := o.For(0)
	var start float64
	for i := range iters + warm {
		if i == warm {
			start = mpi.Wtime()
		}
		n, err := c.make(w)
		if err != nil {
			return nil, fmt.Errorf("%s %d: %w", c.name, i+1, err)
		}
		if err := n.Free(); err != nil {
			return nil, fmt.Errorf("%s %d: free: %w", c.name, i+1, err)
		}
	}
	t := (mpi.Wtime() - start) / float64(iters) * 1e6
	return overRanks(w, o, []int{w.Size()}, []float64{t})
}
