package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gompi/gompi/bench/osu"
	"github.com/gompi/gompi/internal/cli"
	"github.com/gompi/gompi/internal/version"
)

const longHelp = `gompi-bench measures gompi in the manner of the OSU micro-benchmarks, with
their flags and output layout. The point-to-point and collective
measurements run as the ranks of a job:

  gompirun -np 2 gompi-bench latency -m 0:4194304 -i 1000 -x 100
  gompirun -np 4 --oversubscribe gompi-bench allreduce -m 4:65536 -f

Rank 0 prints the table: header lines naming the measurement and gompi's
version, the btl parameter's value, the unit and the transport of each timed
pair, then one line per message size (barrier: one line, keyed by the rank
count). The collectives report the average over the ranks of each rank's
latency, and with -f the minimum and maximum too; the non-blocking ones
(iallreduce, ibcast, ialltoall, and allreduce-init, the Start of a
persistent Allreduce), as OSU's osu_i* do, their pure latency, overall time
with computation, compute time and overlap. launch runs on its own and starts
jobs itself. bench/c holds the same measurements in C for any MPI library.`

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "gompi-bench",
		Short:         "OSU-style benchmarks for gompi",
		Long:          longHelp,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stdout)
	root.SetFlagErrorFunc(cli.FlagError)
	root.CompletionOptions.DisableDefaultCmd = true
	for _, m := range osu.All() {
		root.AddCommand(measurementCommand(m, stdout, stderr))
	}
	root.AddCommand(launchCommand(stdout), initFinalizeCommand(stdout))
	return root
}

// sizeFlags are OSU's flags, shared by every measurement: -m and -s for
// those over message sizes, -f for those averaged over the ranks.
type sizeFlags struct {
	rng, list     string
	iters, warmup int
	full, cold    bool
	cmd           *cobra.Command
}

func addSizeFlags(cmd *cobra.Command, m osu.Measurement) *sizeFlags {
	f := &sizeFlags{cmd: cmd}
	fl := cmd.Flags()
	fl.SortFlags = false
	if m.NoSizes {
		fl.IntVarP(&f.iters, "iterations", "i", m.Counts.Iters, "timed iterations")
		fl.IntVarP(&f.warmup, "warmup", "x", m.Counts.Warmup, "untimed warm-up iterations")
	} else {
		large := m.LargeSize() >> 10
		fl.StringVarP(&f.rng, "message-size", "m", fmt.Sprintf("%d:%d", m.MinSize, m.DefaultMaxSize()),
			"message sizes `[MIN:]MAX` in bytes, by powers of two")
		fl.StringVarP(&f.list, "sizes", "s", "", "message sizes as a `LIST` such as 0,1,64,1K,4M (overrides -m)")
		fl.IntVarP(&f.iters, "iterations", "i", m.Counts.Iters,
			fmt.Sprintf("timed iterations per size; above %d KiB, %d for every %d", large, m.Counts.LargeIters, m.Counts.Iters))
		fl.IntVarP(&f.warmup, "warmup", "x", m.Counts.Warmup,
			fmt.Sprintf("untimed warm-up iterations per size; above %d KiB, %d for every %d", large, m.Counts.LargeWarmup, m.Counts.Warmup))
	}
	if m.Stats {
		fl.BoolVarP(&f.full, "full", "f", false, "also the minimum and maximum latency over the ranks")
	}
	if m.Cold {
		fl.BoolVarP(&f.cold, "cold", "c", false,
			"cold: each size on a fresh communicator, timed from its first call (-x 0 unless given), -i calls at every size")
	}
	return f
}

// flags returns what was given, for Measurement.Options.
func (f *sizeFlags) flags() osu.Flags {
	fl := f.cmd.Flags()
	out := osu.Flags{Range: f.rng, List: f.list, Full: f.full, Cold: f.cold}
	if fl.Changed("iterations") {
		out.Iters = &f.iters
	}
	if fl.Changed("warmup") {
		out.Warmup = &f.warmup
	}
	return out
}
