package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// incastCounts are bw's: a window of messages per sender per iteration.
var incastCounts = Counts{Iters: 100, Warmup: 10, LargeIters: 20, LargeWarmup: 2}

func incast() Measurement {
	return Measurement{
		Name:       "incast",
		Summary:    "every rank but 0 sends windows of 64 messages to rank 0, which receives from any source: time per message",
		Unit:       "us",
		About:      "time per message received by rank 0 from n-1 senders, windows of 64 non-blocking sends per sender each acknowledged, receives from any source",
		Column:     "Time (us)",
		MinSize:    1,
		DefaultMax: 1 << 10,
		Counts:     incastCounts,
		CheckRanks: atLeast("incast", 2),
		Transports: rankZeroTransports,
		Run:        runIncast,
	}
}

// runIncast times, for each size, iterations in which every sender posts
// a window of sends to rank 0 and rank 0 posts one receive from any
// source for each of them, then acknowledges every sender. Rank 0 checks
// that each sender's window arrived whole, so a matching fault fails the
// run instead of skewing it.
func runIncast(w mpi.Comm, o Options) ([]Row, error) {
	me, n := w.Rank(), w.Size()
	senders := n - 1
	buf := filled(o.MaxSize())
	ack := make([]byte, 4)
	nreqs := window
	if me == 0 {
		nreqs = senders * window
	}
	reqs := make([]mpi.Request, nreqs)
	sts := make([]mpi.Status, nreqs) // reused: the loop allocates nothing
	from := make([]int, n)
	settle()
	var out []Row
	for _, size := range o.Sizes {
		if err := barrier(w); err != nil {
			return nil, err
		}
		iters, warm := o.For(size)
		b := buf[:size]
		var start float64
		for i := range iters + warm {
			if i == warm {
				start = mpi.Wtime()
			}
			var err error
			if me == 0 {
				err = gather(w, b, ack, reqs, sts, from)
			} else {
				err = scatterTo0(w, b, ack, reqs)
			}
			if err != nil {
				return nil, fmt.Errorf("size %d: %w", size, err)
			}
		}
		msgs := float64(iters) * float64(senders) * window
		out = append(out, Row{Key: size, Value: (mpi.Wtime() - start) / msgs * 1e6})
	}
	if me != 0 {
		return nil, nil
	}
	return out, nil
}

// gather is rank 0's part of one iteration.
func gather(w mpi.Comm, b, ack []byte, reqs []mpi.Request, sts []mpi.Status, from []int) error {
	for i := range reqs {
		q, err := mpi.Irecv(b, mpi.AnySource, tagData, w)
		if err != nil {
			return err
		}
		reqs[i] = q
	}
	if err := mpi.WaitAllStatus(reqs, sts); err != nil {
		return err
	}
	clear(from)
	for _, st := range sts {
		if st.Source < 1 || st.Source >= len(from) {
			return fmt.Errorf("a message came from rank %d, not a sender (1 to %d)", st.Source, len(from)-1)
		}
		from[st.Source]++
	}
	for r := 1; r < len(from); r++ {
		if from[r] != window {
			return fmt.Errorf("rank %d's window brought %d messages, want %d", r, from[r], window)
		}
	}
	for r := 1; r < len(from); r++ {
		if err := mpi.Send(ack, r, tagAck, w); err != nil {
			return err
		}
	}
	return nil
}

// scatterTo0 is a sender's part: a window of sends, then rank 0's ack.
func scatterTo0(w mpi.Comm, b, ack []byte, reqs []mpi.Request) error {
	for i := range reqs {
		q, err := mpi.Isend(b, 0, tagData, w)
		if err != nil {
			return err
		}
		reqs[i] = q
	}
	if err := mpi.WaitAll(reqs...); err != nil {
		return err
	}
	_, err := mpi.Recv(ack, 0, tagAck, w)
	return err
}
