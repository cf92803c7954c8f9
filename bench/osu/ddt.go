package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// ddtWidth is the width, in float64, of the row-major grid whose column
// the ddt measurement sends: one value from each row, 64 bytes apart.
const ddtWidth = 8

func ddt() Measurement {
	return Measurement{
		Name:       "ddt",
		Summary:    "ping-pong of a grid's column as a vector layout between ranks 0 and 1: one-way latency",
		Unit:       "us",
		About:      "one-way latency of a grid column sent as a vector datatype (8-byte blocks, stride 8 doubles), half the round trip between ranks 0 and 1",
		Column:     "Latency (us)",
		MinSize:    8,
		Counts:     latencyCounts,
		CheckRanks: atLeast("ddt", 2),
		Transports: rankZeroTransports,
		Run: func(w mpi.Comm, o Options) ([]Row, error) {
			return runDDT(w, o, 1, ddtWidth)
		},
	}
}

// ddtRows measures a layout whose blocks are long enough to move where
// they lie: a message of S bytes is S/4 KiB blocks of 512 values, each
// a row of a grid 576 values wide (a band of rows without its halo).
func ddtRows() Measurement {
	m := ddt()
	m.Name = "ddt-rows"
	m.Summary = "ping-pong of a grid's rows without their halo as a vector layout of 4 KiB blocks between ranks 0 and 1: one-way latency"
	m.About = "one-way latency of rows of a grid sent as a vector datatype (4 KiB blocks, stride 576 doubles), half the round trip between ranks 0 and 1"
	m.MinSize = rowBlock * 8
	m.Run = func(w mpi.Comm, o Options) ([]Row, error) {
		return runDDT(w, o, rowBlock, rowWidth)
	}
	return m
}

// The rows ddt-rows sends: blocks of rowBlock values, rowWidth apart.
const rowBlock, rowWidth = 512, 576

// runDDT is latency's ping-pong with each message a vector of a grid of
// float64 rows width values wide: S bytes are S/8/block blocks of block
// values, one per row (bench/c/ddt.c is the twin of the column, block 1).
func runDDT(w mpi.Comm, o Options, block, width int) ([]Row, error) {
	for _, size := range o.Sizes {
		if size%(8*block) != 0 {
			return nil, fmt.Errorf("size %d is not a multiple of %d bytes (whole blocks of %d float64 values)", size, 8*block, block)
		}
	}
	peer := pairPeer(w)
	n := o.MaxSize() / 8 / block
	sbuf := make([]float64, n*width)
	rbuf := make([]float64, n*width)
	for i := range sbuf {
		sbuf[i] = float64(i)
	}
	var cols []mpi.Layout[float64] // one per size, freed at the end
	defer func() {
		for _, c := range cols {
			_ = c.Free()
		}
	}()
	times, err := timeRounds(w, o, peer, 2, func(size int) (func() error, error) {
		col, err := mpi.Vector[float64](size/8/block, block, width)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
		return func() error { return exchangeLayout(w, sbuf, rbuf, col, peer, w.Rank() == 0) }, nil
	})
	if err != nil || w.Rank() != 0 {
		return nil, err
	}
	return rows(o.Sizes, times), nil
}

// exchangeLayout is one round trip of one element of l each way.
func exchangeLayout(w mpi.Comm, s, r []float64, l mpi.Layout[float64], peer int, initiator bool) error {
	if initiator {
		if err := mpi.SendLayout(s, 1, l, peer, tagData, w); err != nil {
			return err
		}
		_, err := mpi.RecvLayout(r, 1, l, peer, tagData, w)
		return err
	}
	if _, err := mpi.RecvLayout(r, 1, l, peer, tagData, w); err != nil {
		return err
	}
	return mpi.SendLayout(s, 1, l, peer, tagData, w)
}
