package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// ringCounts: one iteration is one lap, n messages in turn.
var ringCounts = Counts{Iters: 10000, Warmup: 100, LargeIters: 1000, LargeWarmup: 10}

func ring() Measurement {
	return Measurement{
		Name:       "ring",
		Summary:    "a token goes round every rank in turn, -i laps: time per lap",
		Unit:       "us",
		About:      "time per lap of a token passed from each rank to the next, rank 0 starting every lap; -i laps take -i times this",
		Column:     "Lap (us)",
		MinSize:    0,
		DefaultMax: 8,
		Counts:     ringCounts,
		CheckRanks: atLeast("ring", 2),
		Transports: pairTransports(neighbours),
		Run:        runRing,
	}
}

// neighbours pairs every rank with the next, the last with rank 0.
func neighbours(n int) [][2]int {
	pairs := make([][2]int, n)
	for i := range pairs {
		pairs[i] = [2]int{i, (i + 1) % n}
	}
	return pairs
}

// runRing times laps of a token: rank 0 sends it to rank 1 and waits for
// it from the last rank; every other rank receives it from the one before
// and passes it on. Only one message is in flight at a time, so a lap is
// n message latencies, each a wake-up of the next rank.
func runRing(w mpi.Comm, o Options) ([]Row, error) {
	me, n := w.Rank(), w.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	token := filled(o.MaxSize())
	settle()
	var out []Row
	for _, size := range o.Sizes {
		if err := barrier(w); err != nil {
			return nil, err
		}
		iters, warm := o.For(size)
		t := token[:size]
		var start float64
		for i := range iters + warm {
			if i == warm {
				start = mpi.Wtime()
			}
			if err := lap(w, t, next, prev, me == 0); err != nil {
				return nil, fmt.Errorf("size %d, lap %d: %w", size, i+1, err)
			}
		}
		out = append(out, Row{Key: size, Value: (mpi.Wtime() - start) / float64(iters) * 1e6})
	}
	if me != 0 {
		return nil, nil
	}
	return out, nil
}

// lap is one rank's part of one lap.
func lap(w mpi.Comm, t []byte, next, prev int, first bool) error {
	if first {
		if err := mpi.Send(t, next, tagData, w); err != nil {
			return err
		}
	}
	st, err := mpi.Recv(t, prev, tagData, w)
	if err != nil {
		return err
	}
	if st.Count != len(t) {
		return fmt.Errorf("the token from rank %d has %d bytes, want %d", prev, st.Count, len(t))
	}
	if first {
		return nil
	}
	return mpi.Send(t, next, tagData, w)
}
