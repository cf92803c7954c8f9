// Command gompi-bench measures gompi in the manner of the OSU
// micro-benchmarks. The point-to-point measurements run as the ranks of a
// job, started by gompirun like any rank program:
//
//	gompirun -np 2 bin/gompi-bench latency -m 0:4194304 -i 1000 -x 100
//
// launch runs on its own and starts jobs itself. See gompi-bench --help.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	_ "github.com/gompi/gompi/components/all"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(append([]string{}, args...)) // non-nil: cobra reads os.Args for nil
	err := root.Execute()
	if err == nil {
		return 0
	}
	var re rankError
	switch {
	case errors.Is(err, errReported):
	case errors.As(err, &re):
		fmt.Fprintf(stderr, "gompi-bench: rank %d: %v\n", re.rank, re.err)
	case envRank() != 0:
		// Every rank parses the same flags, and rank 0 reports the error and
		// fails the job. Exiting 0 before Init, this rank does not stop the
		// job, which gompirun would do before rank 0 had its say.
		return 0
	default:
		fmt.Fprintf(stderr, "gompi-bench: %v (see gompi-bench --help)\n", err)
	}
	return 1
}

// errReported is an error already printed.
var errReported = errors.New("reported")

// rankError is a failure during a measurement, which every rank reports.
type rankError struct {
	rank int
	err  error
}

func (e rankError) Error() string { return fmt.Sprintf("rank %d: %v", e.rank, e.err) }

// envRank is this process's rank as gompirun set it, before Init could
// say so; 0 when alone.
func envRank() int {
	r, _ := strconv.Atoi(os.Getenv("GOMPI_COMM_WORLD_RANK"))
	return r
}
