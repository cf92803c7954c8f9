package osu

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/gompi/gompi/mpi"
)

// nonBlocking is a non-blocking collective as OSU's overlap benchmarks
// (osu_iallreduce, osu_ibcast, osu_ialltoall) measure it: the latency of
// the call and its Wait alone (Pure Comm.), then of the call, computation
// as long as that latency without MPI calls, and the Wait (Overall); the
// overlap is the share of the communication that the computation hid.
type nonBlocking struct {
	name, call string // the subcommand and the MPI call's name
	what       string // one call, for the header: "Iallreduce (float32 Sum, size/4 elements)"
	minSize    int
	// buffers returns the call for messages up to largest bytes on
	// communicators of n ranks: start(c, size) starts it once on c over
	// size bytes; end, if not nil, frees what the calls kept.
	buffers func(n, largest int) (start func(c mpi.Comm, size int) (mpi.Request, error), end func() error)
}

func nonBlockingCollectives() []Measurement {
	return []Measurement{
		nonBlocking{name: "iallreduce", call: "Iallreduce", what: "Iallreduce (float32 Sum, size/4 elements)",
			minSize: floatSize, buffers: iallreduceCall}.measurement(),
		nonBlocking{name: "ibcast", call: "Ibcast", what: "Ibcast of size bytes from rank 0",
			minSize: 1, buffers: ibcastCall}.measurement(),
		nonBlocking{name: "ialltoall", call: "Ialltoall", what: "Ialltoall of size bytes from every rank to every rank",
			minSize: 1, buffers: ialltoallCall}.measurement(),
		nonBlocking{name: "allreduce-init", call: "persistent Allreduce's Start", what: "Start of a persistent Allreduce (float32 Sum, size/4 elements, AllreduceInit once per size)",
			minSize: floatSize, buffers: allreduceInitCall}.measurement(),
	}
}

func (nb nonBlocking) measurement() Measurement {
	return Measurement{
		Name:    nb.name,
		Summary: nb.call + " overlapped with computation: pure latency, overall time and overlap %, averaged over the ranks",
		Unit:    "us",
		About: "time of one " + nb.what + " and its Wait (Pure Comm.); then of one " + nb.call + ", " +
			"computation without MPI calls as long as Pure Comm., and the Wait (Overall), and of the computation alone (Compute); " +
			"each averaged over the ranks, a barrier after each call, outside the timing; " +
			"Overlap is 100*(1-(Overall-Compute)/Pure Comm.), at least 0",
		Column:      "Pure Comm.(us)",
		MoreColumns: []string{"Overall(us)", "Compute(us)", "Overlap(%)"},
		MinSize:     nb.minSize,
		DefaultMax:  collMax,
		Large:       collLarge,
		Counts:      collCounts,
		CheckRanks:  atLeast(nb.name, 1),
		Transports:  rankZeroTransports,
		Run: func(w mpi.Comm, o Options) ([]Row, error) {
			start, end := nb.buffers(w.Size(), o.MaxSize())
			settle()
			rows, err := timeOverlap(w, o, start)
			if end != nil {
				err = errors.Join(err, end())
			}
			return rows, err
		},
	}
}

// timeOverlap runs OSU's two loops for every size, each rank on its own
// clock, and rank 0 reports per size the averages over the ranks of pure
// latency, overall time and compute time, and the overlap they give.
func timeOverlap(w mpi.Comm, o Options, start func(c mpi.Comm, size int) (mpi.Request, error)) ([]Row, error) {
	n := len(o.Sizes)
	// By size: pure, overall, then compute, each this rank's mean in us.
	times := make([]float64, 3*n)
	for k, size := range o.Sizes {
		iters, warm := o.For(size)
		pure, _, err := timeCalls(w, start, size, iters, warm, 0)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		overall, compute, err := timeCalls(w, start, size, iters, warm, time.Duration(pure*float64(time.Second)))
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		times[k], times[n+k], times[2*n+k] = pure*1e6, overall*1e6, compute*1e6
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
		var avg [3]float64 // pure, overall, compute
		for rank := range w.Size() {
			for col := range avg {
				avg[col] += all[rank*len(times)+col*n+k] / float64(w.Size())
			}
		}
		pure, overall, compute := avg[0], avg[1], avg[2]
		overlap := 0.0
		if pure > 0 {
			overlap = max(0, 100*(1-(overall-compute)/pure))
		}
		rows[k] = Row{Key: size, Value: pure, More: []float64{overall, compute, overlap}}
	}
	return rows, nil
}

// timeCalls returns the mean time in seconds of starting the call over
// size bytes, computing for compute and waiting for the call, and the mean
// time of the computation alone; a barrier after each (untimed).
func timeCalls(w mpi.Comm, start func(mpi.Comm, int) (mpi.Request, error), size, iters, warm int,
	compute time.Duration) (total, busyTime float64, err error) {
	for i := range iters + warm {
		began := mpi.Wtime()
		req, err := start(w, size)
		if err != nil {
			return 0, 0, err
		}
		computing := mpi.Wtime()
		busy(compute)
		computed := mpi.Wtime()
		if _, err := req.Wait(); err != nil {
			return 0, 0, fmt.Errorf("wait: %w", err)
		}
		if i >= warm {
			total += mpi.Wtime() - began
			busyTime += computed - computing
		}
		if err := mpi.Barrier(w); err != nil {
			return 0, 0, fmt.Errorf("barrier: %w", err)
		}
	}
	return total / float64(iters), busyTime / float64(iters), nil
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

func iallreduceCall(_, largest int) (func(mpi.Comm, int) (mpi.Request, error), func() error) {
	send, recv := floats(largest), floats(largest)
	return func(c mpi.Comm, size int) (mpi.Request, error) {
		return mpi.Iallreduce(send[:size/floatSize], recv[:size/floatSize], mpi.Sum, c)
	}, nil
}

// allreduceInitCall starts a persistent allreduce, made at its size's
// first start; the measurement runs on one communicator.
func allreduceInitCall(_, largest int) (func(mpi.Comm, int) (mpi.Request, error), func() error) {
	send, recv := floats(largest), floats(largest)
	made := map[int]mpi.Request{}
	start := func(c mpi.Comm, size int) (mpi.Request, error) {
		r, ok := made[size]
		if !ok {
			var err error
			if r, err = mpi.AllreduceInit(send[:size/floatSize], recv[:size/floatSize], mpi.Sum, c); err != nil {
				return r, err
			}
			made[size] = r
		}
		return r, r.Start()
	}
	end := func() error {
		var errs []error
		for _, r := range made {
			errs = append(errs, r.Free())
		}
		return errors.Join(errs...)
	}
	return start, end
}

func ibcastCall(_, largest int) (func(mpi.Comm, int) (mpi.Request, error), func() error) {
	buf := filled(largest)
	return func(c mpi.Comm, size int) (mpi.Request, error) { return mpi.Ibcast(buf[:size], 0, c) }, nil
}

// ialltoallCall: size bytes from every rank to every rank, as OSU counts.
func ialltoallCall(n, largest int) (func(mpi.Comm, int) (mpi.Request, error), func() error) {
	send, recv := filled(n*largest), filled(n*largest)
	return func(c mpi.Comm, size int) (mpi.Request, error) { return mpi.Ialltoall(send[:n*size], recv[:n*size], c) }, nil
}
