package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/gompi/gompi/bench/osu"
	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// measurementCommand runs one registered measurement as a rank of a job.
func measurementCommand(m osu.Measurement, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   m.Name + " [flags]",
		Short: m.Summary,
		Long:  m.Summary + ".\nRun it under gompirun; rank 0 prints the table, in " + m.Unit + ".",
		Args:  cobra.NoArgs,
	}
	f := addSizeFlags(cmd, m)
	var profile string
	cmd.Flags().StringVar(&profile, "cpuprofile", "",
		"write each rank's CPU profile of the measurement to `PREFIX`.<rank> (go tool pprof)")
	cmd.RunE = func(*cobra.Command, []string) error {
		o, err := m.Options(f.flags())
		if err != nil {
			return err
		}
		return measure(m, o, profile, stdout, stderr)
	}
	return cmd
}

func measure(m osu.Measurement, o osu.Options, profile string, stdout, stderr io.Writer) error {
	if err := mpi.Init(); err != nil {
		return rankError{rank: envRank(), err: err} // may be this rank's alone
	}
	w := mpi.CommWorld()
	fail := func(err error) error { return rankError{rank: w.Rank(), err: err} }
	if err := m.CheckRanks(w.Size()); err != nil {
		// Every rank finds the same. Rank 0 reports it before Finalize's
		// fence, so that no rank exits, and so stops the job, before that.
		if w.Rank() == 0 {
			fmt.Fprintf(stderr, "gompi-bench: %v\n", err)
		}
		if err := mpi.Finalize(); err != nil {
			return fail(err)
		}
		return errReported
	}
	var btl string
	if w.Rank() == 0 {
		b, err := btlSelection()
		if err != nil {
			return fail(err)
		}
		btl = b
	}
	transports, err := m.Transports(w)
	if err != nil {
		return fail(err)
	}
	if err := warmUp(w); err != nil {
		return fail(err)
	}
	stop, err := startProfile(profile, w.Rank())
	if err != nil {
		return fail(err)
	}
	rows, err := m.Run(w, o)
	if perr := stop(); err == nil {
		err = perr
	}
	if err != nil {
		return fail(err)
	}
	if w.Rank() == 0 {
		key, more := m.Headings(o)
		h := osu.Header{
			Title:      fmt.Sprintf("gompi-bench %s (gompi %s)", m.Name, version.Version),
			BTL:        btl,
			Unit:       m.Unit + ": " + m.AboutFor(o),
			Transports: transports,
			Key:        key,
			Column:     m.Column,
			More:       more,
		}
		if err := osu.Write(stdout, h, rows); err != nil {
			return fail(err)
		}
	}
	if err := mpi.Finalize(); err != nil {
		return fail(err)
	}
	return nil
}

// btlSelection is the btl parameter's value as Init resolved it ("all"
// when empty): it resolves the same sources again.
func btlSelection() (string, error) {
	in, err := params.DefaultInputs()
	if err != nil {
		return "", fmt.Errorf("reading the btl parameter: %w", err)
	}
	sys, err := mca.Load(mca.Options{Logger: hclog.NewNullLogger(), QuietWarnings: true, Params: pmpi.RegisterParams}, in)
	if err != nil {
		return "", fmt.Errorf("reading the btl parameter: %w", err)
	}
	v, ok := sys.Snapshot().Lookup("btl")
	if !ok {
		return "", errors.New("reading the btl parameter: it is not registered")
	}
	if v.Raw == "" {
		return "all", nil
	}
	return v.Raw, nil
}

// startProfile starts a CPU profile into prefix.<rank> unless prefix is
// empty; the function it returns stops it and closes the file.
func startProfile(prefix string, rank int) (func() error, error) {
	if prefix == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", prefix, rank))
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return nil
	}, nil
}

// warmTime is how long the ranks exchange barriers before measuring. A
// virtual CPU that idled through Init (gompi's fences sleep) ran the first
// milliseconds at half speed, and a 50 ms spin helped; but two ranks only
// reach their steady speed after talking for a while: after the spin, the
// first 1000 barriers of 2 ranks took 1.35-1.5 us each, decaying to 0.65
// over 5 ms, while after 50,000 barriers they ran at 0.65-0.7 from the
// first block on. Open MPI's Init polls shared memory and leaves warm; the
// C twins warm the same way as this, so both sides start alike. Ranks that
// outnumber CPUs need longer: the kernel settles where they run over about
// 100 ms, and until then a 4-rank allreduce took 19-38 us a call (18-20
// after 300 ms) and multi-lat's pairs 13 us a message (6.5 after).
const warmTime = 300 * time.Millisecond

// warmUp has the ranks exchange barriers for warmTime by rank 0's clock;
// rank 0 says when to stop, so that every rank leaves after the same one.
func warmUp(w mpi.Comm) error {
	start := time.Now()
	stop := []int32{0}
	for stop[0] == 0 {
		for range 100 {
			if err := mpi.Barrier(w); err != nil {
				return fmt.Errorf("warm-up: %w", err)
			}
		}
		if w.Rank() == 0 && time.Since(start) >= warmTime {
			stop[0] = 1
		}
		if err := mpi.Bcast(stop, 0, w); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	return nil
}
