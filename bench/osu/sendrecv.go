package osu

import "github.com/gompi/gompi/mpi"

func sendrecv() Measurement {
	return Measurement{
		Name:       "sendrecv",
		Summary:    "ranks 0 and 1 exchange messages with one Sendrecv each: time of one exchange",
		Unit:       "us",
		About:      "time of one exchange: ranks 0 and 1 each call Sendrecv with the other, both directions at once",
		Column:     "Latency (us)",
		Counts:     latencyCounts,
		CheckRanks: atLeast("sendrecv", 2),
		Transports: rankZeroTransports,
		Run:        runSendrecv,
	}
}

func runSendrecv(w mpi.Comm, o Options) ([]Row, error) {
	peer := pairPeer(w)
	sbuf := filled(o.MaxSize())
	rbuf := filled(o.MaxSize())
	times, err := timeRounds(w, o, peer, 1, func(size int) (func() error, error) {
		s, r := sbuf[:size], rbuf[:size]
		return func() error {
			_, err := mpi.Sendrecv(s, peer, tagData, r, peer, tagData, w)
			return err
		}, nil
	})
	if err != nil || w.Rank() != 0 {
		return nil, err
	}
	return rows(o.Sizes, times), nil
}
