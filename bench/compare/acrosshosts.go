package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/bench/compare/across"
)

// AcrossHosts is the comparison across simulated hosts, as measured.
type AcrossHosts struct {
	Command string // how it was measured, FILE standing for the results' path
	Started time.Time
	Took    time.Duration
	Results *across.Results // nil if nothing was measured
	Absent  string          // then why
}

// AcrossConfig is how to measure across hosts.
type AcrossConfig struct {
	Go      string // the go command
	Rounds  int
	Only    string        // if not empty, the runs to make: test/multihost's -measure-only
	Timeout time.Duration // for the whole measurement
	Env     []string
	Log     io.Writer // go test's output, as progress
}

// AcrossTimeout bounds a measurement of so many rounds: a round takes one
// to two minutes here, the first up to five when MPICH's collectives run
// into the test's one-minute cut, and building the programs and hosts
// about a minute.
func AcrossTimeout(rounds int) time.Duration {
	return 10*time.Minute + time.Duration(rounds)*3*time.Minute
}

// MeasureAcross runs TestMeasureAcrossHosts (test/multihost) from the
// repository's root: its simulated hosts are built by test/cluster, which
// lives and dies with a test, so the measurement runs under go test and
// hands its runs over as JSON. Where no hosts can be built the test skips
// itself, and the result says why with a nil error; a failed measurement
// is an error, its result saying so for the report.
func MeasureAcross(ctx context.Context, c AcrossConfig) (*AcrossHosts, error) {
	dir, err := os.MkdirTemp("", "gompi-bench-across")
	if err != nil {
		return nil, fmt.Errorf("measuring across hosts: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "across.json")
	args := func(file string) []string {
		a := []string{c.Go, "test", "./test/multihost", "-run", "^TestMeasureAcrossHosts$", "-count=1", "-v",
			"-timeout", c.Timeout.String(), "-args", "-measure", "-measure-rounds", strconv.Itoa(c.Rounds), "-measure-json", file}
		if c.Only != "" {
			a = append(a, "-measure-only", c.Only)
		}
		return a
	}
	a := &AcrossHosts{Command: shellQuote(args("FILE"))}
	a.Started = time.Now()
	out, err := runGoTest(ctx, c, args(file))
	a.Took = time.Since(a.Started)
	if err != nil {
		a.Absent = "the measurement failed: " + firstLine(err.Error())
		return a, fmt.Errorf("measuring across hosts: %s: %w\n%s", shellQuote(args(file)), err, tail(out, 3000))
	}
	res, err := across.Read(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if why := skipReason(out); why != "" {
			a.Absent = why
			return a, nil
		}
		a.Absent = "the measurement wrote no results"
		return a, fmt.Errorf("measuring across hosts: %s wrote no results and gave no reason\n%s", shellQuote(args(file)), tail(out, 3000))
	case err != nil:
		a.Absent = "its results were unreadable: " + firstLine(err.Error())
		return a, fmt.Errorf("measuring across hosts: %w", err)
	case res.Skipped != "":
		a.Absent = res.Skipped
		return a, nil
	}
	a.Results = res
	return a, nil
}

// runGoTest runs go test, its output both shown on the log and kept.
func runGoTest(ctx context.Context, c AcrossConfig, args []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout+time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = c.Env
	cmd.Stdout = io.MultiWriter(c.Log, &out)
	cmd.Stderr = cmd.Stdout
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) } // let the test tear its hosts down
	cmd.WaitDelay = 30 * time.Second
	err := cmd.Run()
	return out.String(), err
}

// skipReason is why the measurement skipped itself, from go test's
// output: test/multihost's TestMain prints "skipped: ..." where no hosts
// can be built.
func skipReason(out string) string {
	for line := range strings.Lines(out) {
		if why, ok := strings.CutPrefix(strings.TrimSpace(line), "skipped: "); ok {
			return why
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
