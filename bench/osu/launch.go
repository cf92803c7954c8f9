package osu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/bench/table"
)

// NP is the placeholder for the rank count in a custom launch command.
const NP = "{np}"

// LaunchConfig says what the launch measurement times.
type LaunchConfig struct {
	Ranks    []int    // -np values, each timed
	Repeat   int      // timed runs per rank count; the median is reported
	Warmup   int      // untimed runs per rank count first
	Gompirun string   // the launcher of the default command
	Self     string   // gompi-bench, whose init-finalize the default command runs
	Command  []string // a custom command with NP in it; nil means the default
}

// Launch times the command for each rank count and returns the median
// wall time in milliseconds per count, and rank 0's transports line when
// the command is gompi's own.
func Launch(ctx context.Context, c LaunchConfig) (rows []Row, transports string, err error) {
	if c.Repeat < 1 || c.Warmup < 0 || len(c.Ranks) == 0 {
		return nil, "", errors.New("launch: want -r 1 or more, -x 0 or more and at least one rank count")
	}
	transports = "not reported (custom launch command)"
	if c.Command == nil {
		top := slices.Max(c.Ranks)
		out, err := run(ctx, append(c.command(top), "--transports"))
		if err != nil {
			return nil, "", err
		}
		if transports, err = transportsLine(out); err != nil {
			return nil, "", fmt.Errorf("launch -np %d: %w", top, err)
		}
	}
	for _, n := range c.Ranks {
		for range c.Warmup {
			if _, err := run(ctx, c.command(n)); err != nil {
				return nil, "", err
			}
		}
	}
	// Rank counts take turns, so that drift on the machine touches each alike.
	times := make([][]float64, len(c.Ranks))
	for range c.Repeat {
		for i, n := range c.Ranks {
			start := time.Now()
			if _, err := run(ctx, c.command(n)); err != nil {
				return nil, "", err
			}
			times[i] = append(times[i], float64(time.Since(start))/float64(time.Millisecond))
		}
	}
	for i, n := range c.Ranks {
		rows = append(rows, Row{Key: n, Value: table.Median(times[i])})
	}
	return rows, transports, nil
}

// command is the command line for n ranks.
func (c LaunchConfig) command(n int) []string {
	if c.Command == nil {
		args := []string{c.Gompirun, "-np", strconv.Itoa(n)}
		if n > runtime.NumCPU() {
			args = append(args, "--oversubscribe")
		}
		return append(args, c.Self, "init-finalize")
	}
	args := make([]string, len(c.Command))
	for i, a := range c.Command {
		args[i] = strings.ReplaceAll(a, NP, strconv.Itoa(n))
	}
	return args
}

// Template is the command as the header shows it.
func (c LaunchConfig) Template() string {
	if c.Command == nil {
		return strings.Join([]string{c.Gompirun, "-np", NP, c.Self, "init-finalize"}, " ")
	}
	return strings.Join(c.Command, " ")
}

// run runs one job and returns its standard output; a failure quotes the
// end of its standard error.
func run(ctx context.Context, args []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("launch: %s: %w\n%s", strings.Join(args, " "), err, tail(stderr.Bytes(), 2000))
	}
	return stdout.Bytes(), nil
}

func transportsLine(out []byte) (string, error) {
	for line := range strings.Lines(string(out)) {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# transports: "); ok {
			return t, nil
		}
	}
	return "", errors.New("init-finalize --transports printed no transports line")
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
