package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// window is how many messages are in flight at once, as in OSU's osu_bw.
const window = 64

// bandwidthCounts are OSU's osu_bw defaults.
var bandwidthCounts = Counts{Iters: 100, Warmup: 10, LargeIters: 20, LargeWarmup: 2}

func bandwidth() Measurement {
	return Measurement{
		Name:       "bw",
		Summary:    "rank 0 sends windows of 64 messages to rank 1, each acknowledged: bandwidth",
		Unit:       "MB/s",
		About:      "bandwidth from rank 0 to 1, windows of 64 non-blocking sends each acknowledged, 1 MB = 10^6 bytes",
		Column:     "Bandwidth (MB/s)",
		MinSize:    1,
		Counts:     bandwidthCounts,
		CheckRanks: atLeast("bw", 2),
		Transports: rankZeroTransports,
		Run:        func(w mpi.Comm, o Options) ([]Row, error) { return runBandwidth(w, o, false) },
	}
}

func biBandwidth() Measurement {
	return Measurement{
		Name:       "bibw",
		Summary:    "ranks 0 and 1 send windows of 64 messages to each other at once: total bandwidth",
		Unit:       "MB/s",
		About:      "bandwidth of both directions between ranks 0 and 1 added, windows of 64 non-blocking sends each way, 1 MB = 10^6 bytes",
		Column:     "Bandwidth (MB/s)",
		MinSize:    1,
		Counts:     bandwidthCounts,
		CheckRanks: atLeast("bibw", 2),
		Transports: rankZeroTransports,
		Run:        func(w mpi.Comm, o Options) ([]Row, error) { return runBandwidth(w, o, true) },
	}
}

func runBandwidth(w mpi.Comm, o Options, both bool) ([]Row, error) {
	me := w.Rank()
	// One buffer per direction for the whole window, as OSU has: the
	// messages' contents do not matter, only their movement.
	sbuf := filled(o.MaxSize())
	rbuf := filled(o.MaxSize())
	ack := make([]byte, 4)
	reqs := make([]mpi.Request, 0, 2*window)
	settle()
	var out []Row
	for _, size := range o.Sizes {
		if err := barrier(w); err != nil {
			return nil, err
		}
		if me > 1 {
			continue
		}
		peer := 1 - me
		iters, warm := o.For(size)
		s, r := sbuf[:size], rbuf[:size]
		var start float64
		for i := range iters + warm {
			if i == warm {
				start = mpi.Wtime()
			}
			var err error
			if both {
				err = bothWays(w, s, r, peer, reqs)
			} else {
				err = oneWay(w, s, r, ack, peer, me == 0, reqs)
			}
			if err != nil {
				return nil, fmt.Errorf("size %d: %w", size, err)
			}
		}
		elapsed := mpi.Wtime() - start
		moved := float64(size) * float64(iters) * window
		if both {
			moved *= 2
		}
		out = append(out, Row{Key: size, Value: moved / 1e6 / elapsed})
	}
	if me != 0 {
		return nil, nil
	}
	return out, nil
}

// oneWay is one window from the sender to the receiver and its acknowledgement.
func oneWay(w mpi.Comm, s, r, ack []byte, peer int, sender bool, reqs []mpi.Request) error {
	for range window {
		var q mpi.Request
		var err error
		if sender {
			q, err = mpi.Isend(s, peer, tagData, w)
		} else {
			q, err = mpi.Irecv(r, peer, tagData, w)
		}
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	if err := mpi.WaitAll(reqs...); err != nil {
		return err
	}
	if sender {
		_, err := mpi.Recv(ack, peer, tagAck, w)
		return err
	}
	return mpi.Send(ack, peer, tagAck, w)
}

// bothWays posts a window of receives and a window of sends, then waits
// for the sends and the receives.
func bothWays(w mpi.Comm, s, r []byte, peer int, reqs []mpi.Request) error {
	for range window {
		q, err := mpi.Irecv(r, peer, tagData, w)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	for range window {
		q, err := mpi.Isend(s, peer, tagData, w)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	if err := mpi.WaitAll(reqs[window:]...); err != nil {
		return err
	}
	return mpi.WaitAll(reqs[:window]...)
}
