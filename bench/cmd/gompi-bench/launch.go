package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gompi/gompi/bench/osu"
	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

func launchCommand(stdout io.Writer) *cobra.Command {
	var (
		c        osu.LaunchConfig
		gompirun string
	)
	cmd := &cobra.Command{
		Use:   "launch [flags] [-- COMMAND ...]",
		Short: "time gompirun -np N gompi-bench init-finalize: median wall time in ms (not under gompirun)",
		Long: `launch times jobs that only call Init and Finalize: for each rank count N,
gompirun -np N gompi-bench init-finalize, from start to exit, and reports the
median of -r runs in milliseconds. Run it on its own, not under gompirun.

A command after -- replaces the default one, with {np} standing for N, so
that other MPI libraries are timed by the same code:

  gompi-bench launch -n 2,4 -- mpirun -np {np} bench/build/openmpi/init_finalize`,
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.IntSliceVarP(&c.Ranks, "np", "n", []int{1, 2, 4}, "rank counts `N,N,...` to time")
	fl.IntVarP(&c.Repeat, "repeat", "r", 5, "timed runs per rank count")
	fl.IntVarP(&c.Warmup, "warmup", "x", 1, "untimed runs per rank count first")
	fl.StringVar(&gompirun, "gompirun", "", "gompirun to use (default: the one beside gompi-bench, else $PATH's)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if os.Getenv("GOMPI_SERVER") != "" {
			return errors.New("launch starts jobs itself: run it on its own, not under gompirun")
		}
		for _, n := range c.Ranks {
			if n < 1 {
				return fmt.Errorf("-n %d: rank counts must be 1 or more", n)
			}
		}
		if len(args) > 0 {
			if cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: a custom command follows --", args[0])
			}
			if !strings.Contains(strings.Join(args, " "), osu.NP) {
				return fmt.Errorf("the command after -- has no %s for the rank count", osu.NP)
			}
			c.Command = args
		} else {
			var err error
			if c.Self, err = os.Executable(); err != nil {
				return fmt.Errorf("finding gompi-bench's own path: %w", err)
			}
			if c.Gompirun, err = findGompirun(gompirun, c.Self); err != nil {
				return err
			}
		}
		return launch(c, stdout)
	}
	return cmd
}

func launch(c osu.LaunchConfig, stdout io.Writer) error {
	rows, transports, err := osu.Launch(context.Background(), c)
	if err != nil {
		return err
	}
	launcher, btl := c.Gompirun, "set by the command"
	if c.Command != nil {
		launcher = c.Command[0]
	} else if btl, err = btlSelection(); err != nil {
		return err
	}
	h := osu.Header{
		Title:      fmt.Sprintf("gompi-bench launch (gompi %s)", version.Version),
		BTL:        btl,
		Unit:       fmt.Sprintf("ms: median wall time of %d runs of the command, from start to exit", c.Repeat),
		Extra:      [][2]string{{"launcher", launcher}, {"command", c.Template()}},
		Transports: transports,
		Key:        "Ranks",
		Column:     "Time (ms)",
	}
	return osu.Write(stdout, h, rows)
}

// findGompirun returns the gompirun to use: the flag's, else the one beside
// gompi-bench (make build puts both in bin/), else the one in $PATH.
func findGompirun(flag, self string) (string, error) {
	if flag != "" {
		p, err := exec.LookPath(flag)
		if err != nil {
			return "", fmt.Errorf("--gompirun %s: %w", flag, err)
		}
		return filepath.Abs(p)
	}
	beside := filepath.Join(filepath.Dir(self), "gompirun")
	if _, err := exec.LookPath(beside); err == nil {
		return beside, nil
	}
	p, err := exec.LookPath("gompirun")
	if err != nil {
		return "", fmt.Errorf("gompirun is neither beside gompi-bench (%s) nor in $PATH: pass --gompirun", filepath.Dir(self))
	}
	return filepath.Abs(p)
}

func initFinalizeCommand(stdout io.Writer) *cobra.Command {
	var transports bool
	cmd := &cobra.Command{
		Use:   "init-finalize",
		Short: "call Init and Finalize only: what launch times (under gompirun)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := mpi.Init(); err != nil {
				return rankError{rank: envRank(), err: err}
			}
			if transports && mpi.CommWorld().Rank() == 0 {
				fmt.Fprintf(stdout, "# transports: %s\n", pmpi.Transports())
			}
			return mpi.Finalize()
		},
	}
	cmd.Flags().BoolVar(&transports, "transports", false, "rank 0 prints its transports line (launch's untimed first run)")
	return cmd
}
