package osu

import (
	"fmt"
	"runtime"
	"time"

	"github.com/gompi/gompi/mpi"
)

// iallreduce is OSU's osu_iallreduce: the latency of Iallreduce and Wait
// alone, then of Iallreduce, computation as long as that latency without
// MPI calls, and Wait; the overlap is the share of the communication that
// the computation hid.
func iallreduce() Measurement {
	return Measurement{
		Name:    "iallreduce",
		Summary: "Iallreduce overlapped with computation: pure latency, overall time and overlap %, averaged over the ranks",
		Unit:    "us",
		About: "time of one Iallreduce (float32 Sum, size/4 elements) and its Wait (Pure Comm.); then of an Iallreduce, " +
			"computation without MPI calls as long as Pure Comm., and the Wait (Overall); " +
			"Overlap is 100*(1-(Overall-Compute)/Pure Comm.), at least 0; each averaged over the ranks",
		Column:      "Pure Comm.(us)",
		MoreColumns: []string{"Overall(us)", "Compute(us)", "Overlap(%)"},
		MinSize:     floatSize,
		DefaultMax:  collMax,
		Large:       collLarge,
		Counts:      collCounts,
		CheckRanks:  atLeast("iallreduce", 1),
		Transports:  rankZeroTransports,
		Run:         runIallreduce,
	}
}

func runIallreduce(w mpi.Comm, o Options) ([]Row, error) {
	send, recv := floats(o.MaxSize()), floats(o.MaxSize())
	settle()
	n := len(o.Sizes)
	// By size: pure, overall, compute, then overlap, each this rank's.
	times := make([]float64, 4*n)
	for k, size := range o.Sizes {
		s, r := send[:size/floatSize], recv[:size/floatSize]
		iters, warm := o.For(size)
		pure, err := timeIallreduce(w, s, r, iters, warm, 0)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		compute := time.Duration(pure * float64(time.Second))
		overall, err := timeIallreduce(w, s, r, iters, warm, compute)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		overlap := 0.0
		if pure > 0 {
			overlap = max(0, 100*(1-(overall-pure)/pure))
		}
		times[k], times[n+k], times[2*n+k], times[3*n+k] = pure*1e6, overall*1e6, pure*1e6, overlap
	}
	var all []float64
	if w.Rank() == 0 {
		all = make([]float64, w.Size()*len(times))
	}
	if err := mpi.Gather(times, all, 0, w); err != nil {
		return nil, fmt.Errorf("gathering the ranks' times: %w", err)
	}
	if w.Rank() != 0 {
		return nil, nil
	}
	rows := make([]Row, n)
	for k, size := range o.Sizes {
		var avg [4]float64
		for rank := range w.Size() {
			for col := range avg {
				avg[col] += all[rank*len(times)+col*n+k] / float64(w.Size())
			}
		}
		rows[k] = Row{Key: size, Value: avg[0], More: avg[1:]}
	}
	return rows, nil
}

// timeIallreduce returns the mean time in seconds of an Iallreduce, compute
// of busy computation, and its Wait, a barrier after each (untimed).
func timeIallreduce(w mpi.Comm, send, recv []float32, iters, warm int, compute time.Duration) (float64, error) {
	var total float64
	for i := range iters + warm {
		start := mpi.Wtime()
		req, err := mpi.Iallreduce(send, recv, mpi.Sum, w)
		if err != nil {
			return 0, err
		}
		busy(compute)
		if _, err := req.Wait(); err != nil {
			return 0, err
		}
		if i >= warm {
			total += mpi.Wtime() - start
		}
		if err := mpi.Barrier(w); err != nil {
			return 0, fmt.Errorf("barrier: %w", err)
		}
	}
	return total / float64(iters), nil
}

// busy computes for d without calling MPI, as OSU's dummy compute does.
func busy(d time.Duration) {
	if d <= 0 {
		return
	}
	x := 1.0
	for start := time.Now(); time.Since(start) < d; {
		for range 64 {
			x = x*1.0000001 + 1e-9
		}
	}
	runtime.KeepAlive(x) // the arithmetic must not be optimised away
}
