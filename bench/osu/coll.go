package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// collCounts are OSU's defaults for its collective benchmarks: 1000
// iterations after 200 warm-up ones, 100 after 10 above 8 KiB.
var collCounts = Counts{Iters: 1000, Warmup: 200, LargeIters: 100, LargeWarmup: 10}

const (
	// collLarge is the size above which OSU's collectives use fewer iterations.
	collLarge = 8 << 10
	// collMax is OSU's largest collective message by default: 1 MiB.
	collMax = 1 << 20
	// floatSize is the size of a float32, the element of the reductions.
	floatSize = 4
)

// collective is one collective as a measurement: its call on buffers
// sized for the largest message.
type collective struct {
	name, summary, about string
	minSize              int // OSU's: 1 byte, 4 for the float32 reductions
	// buffers returns the call for messages up to largest bytes on
	// communicators of n ranks: call(c, size) runs the collective once on
	// c over size bytes.
	buffers func(n, largest int) (call func(c mpi.Comm, size int) error)
}

func collectives() []Measurement {
	return []Measurement{barrierMeasurement(),
		collective{name: "bcast", summary: "rank 0 broadcasts a message to every rank",
			about: "time of one Bcast from rank 0, averaged over the ranks", minSize: 1, buffers: bcastCall}.measurement(),
		collective{name: "reduce", summary: "every rank's float32 vector summed into rank 0",
			about:   "time of one Reduce (float32 Sum, size/4 elements) to rank 0, averaged over the ranks",
			minSize: floatSize, buffers: reduceCall}.measurement(),
		collective{name: "allreduce", summary: "every rank's float32 vector summed, the sum at every rank",
			about:   "time of one Allreduce (float32 Sum, size/4 elements), averaged over the ranks",
			minSize: floatSize, buffers: allreduceCall}.measurement(),
		collective{name: "allgather", summary: "every rank's message gathered at every rank",
			about:   "time of one Allgather of size bytes from every rank, averaged over the ranks",
			minSize: 1, buffers: allgatherCall}.measurement(),
		collective{name: "alltoall", summary: "every rank sends a distinct message to every rank",
			about:   "time of one Alltoall of size bytes from every rank to every rank, averaged over the ranks",
			minSize: 1, buffers: alltoallCall}.measurement(),
	}
}

func (c collective) measurement() Measurement {
	return Measurement{
		Name:       c.name,
		Summary:    c.summary + ": average latency over the ranks (-f: and min, max)",
		Unit:       "us",
		About:      c.about + "; a barrier after each call, outside the timing",
		Column:     "Avg Latency (us)",
		MinSize:    c.minSize,
		DefaultMax: collMax,
		Large:      collLarge,
		Stats:      true,
		Cold:       true,
		Counts:     collCounts,
		CheckRanks: atLeast(c.name, 1),
		Transports: rankZeroTransports,
		Run: func(w mpi.Comm, o Options) ([]Row, error) {
			call := c.buffers(w.Size(), o.MaxSize())
			settle()
			return timeCollective(w, o, call)
		},
	}
}

// Headings are the first column's heading and, with -f, the headings of
// the columns after the value's.
func (m Measurement) Headings(o Options) (key string, more []string) {
	key = "Size"
	if m.NoSizes {
		key = "Ranks"
	}
	if m.Stats && o.Full {
		more = []string{"Min Latency (us)", "Max Latency (us)"}
	}
	return key, append(more, m.MoreColumns...)
}

// timeCollective runs OSU's loop for every size: each rank times each
// call on its own clock, a barrier after it (untimed) starting the ranks
// together again; rank 0 then reports each size's average over the
// ranks of their mean times. With o.Cold each size runs on a fresh
// communicator, a Dup of w freed after it, calls and barriers alike: its
// figure is what a program's first calls on a communicator take.
func timeCollective(w mpi.Comm, o Options, call func(c mpi.Comm, size int) error) ([]Row, error) {
	times := make([]float64, len(o.Sizes))
	for k, size := range o.Sizes {
		if err := mpi.Barrier(w); err != nil {
			return nil, fmt.Errorf("barrier before size %d: %w", size, err)
		}
		c, free, err := sizeComm(w, o.Cold)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		iters, warm := o.For(size)
		var total float64
		for i := range iters + warm {
			start := mpi.Wtime()
			if err := call(c, size); err != nil {
				return nil, fmt.Errorf("size %d: %w", size, err)
			}
			if i >= warm {
				total += mpi.Wtime() - start
			}
			if err := mpi.Barrier(c); err != nil {
				return nil, fmt.Errorf("size %d: barrier: %w", size, err)
			}
		}
		if err := free(); err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		times[k] = total / float64(iters) * 1e6
	}
	return overRanks(w, o, o.Sizes, times)
}

// sizeComm is the communicator one size runs on: w, or with cold a Dup
// of it, with the function that frees it.
func sizeComm(w mpi.Comm, cold bool) (mpi.Comm, func() error, error) {
	if !cold {
		return w, func() error { return nil }, nil
	}
	c, err := w.Dup()
	if err != nil {
		return mpi.Comm{}, nil, fmt.Errorf("a fresh communicator: %w", err)
	}
	return c, func() error {
		if err := c.Free(); err != nil {
			return fmt.Errorf("freeing the fresh communicator: %w", err)
		}
		return nil
	}, nil
}

// overRanks gathers every rank's times to rank 0, which returns a row
// per key: the average over the ranks and, with -f, the min and max.
func overRanks(w mpi.Comm, o Options, keys []int, times []float64) ([]Row, error) {
	n := w.Size()
	var all []float64
	if w.Rank() == 0 {
		all = make([]float64, n*len(times))
	}
	if err := mpi.Gather(times, all, 0, w); err != nil {
		return nil, fmt.Errorf("gathering the ranks' times: %w", err)
	}
	if w.Rank() != 0 {
		return nil, nil
	}
	out := make([]Row, len(keys))
	for k, key := range keys {
		lo, hi, sum := all[k], all[k], 0.0
		for r := range n {
			t := all[r*len(times)+k]
			lo, hi, sum = min(lo, t), max(hi, t), sum+t
		}
		out[k] = Row{Key: key, Value: sum / float64(n)}
		if o.Full {
			out[k].More = []float64{lo, hi}
		}
	}
	return out, nil
}

func bcastCall(_, largest int) func(mpi.Comm, int) error {
	buf := filled(largest)
	return func(c mpi.Comm, size int) error { return mpi.Bcast(buf[:size], 0, c) }
}

func reduceCall(_, largest int) func(mpi.Comm, int) error {
	send, recv := floats(largest), floats(largest)
	return func(c mpi.Comm, size int) error {
		return mpi.Reduce(send[:size/floatSize], recv[:size/floatSize], mpi.Sum, 0, c)
	}
}

func allreduceCall(_, largest int) func(mpi.Comm, int) error {
	send, recv := floats(largest), floats(largest)
	return func(c mpi.Comm, size int) error {
		return mpi.Allreduce(send[:size/floatSize], recv[:size/floatSize], mpi.Sum, c)
	}
}

// allgatherCall: size bytes from every rank, n*size at every rank.
func allgatherCall(n, largest int) func(mpi.Comm, int) error {
	send, recv := filled(largest), filled(n*largest)
	return func(c mpi.Comm, size int) error { return mpi.Allgather(send[:size], recv[:n*size], c) }
}

// alltoallCall: size bytes from every rank to every rank, as OSU counts.
func alltoallCall(n, largest int) func(mpi.Comm, int) error {
	send, recv := filled(n*largest), filled(n*largest)
	return func(c mpi.Comm, size int) error { return mpi.Alltoall(send[:n*size], recv[:n*size], c) }
}

// filled returns n bytes of 1s, written once as the C twins' buffers are,
// so that both copy the same kind of pages: a Go buffer never written maps
// the kernel's zero page.
func filled(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 1
	}
	return b
}

func floats(bytes int) []float32 {
	f := make([]float32, bytes/floatSize)
	for i := range f {
		f[i] = 1
	}
	return f
}
