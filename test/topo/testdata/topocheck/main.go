// Command topocheck runs one process-topology scenario on every rank of a
// gompirun job and prints "ok <scenario> rank <r>" when the rank's checks
// pass; a failed check prints FAIL and exits 1. The tests in test/topo
// run it.
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

// scenarios are the scenarios by the name the tests pass, grouped by the
// file that holds them.
var scenarios = map[string]func(mpi.Comm) error{
	// cart.go
	"cart":   cart,
	"beyond": beyond,
	"sub":    sub,
	"halo":   halo,
	// graph.go
	"graph":     graph,
	"distgraph": distGraph,
	// reorder.go
	"reorder": reorder,
}

func main() {
	if len(os.Args) < 2 || scenarios[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: topocheck SCENARIO (one of %s)\n", strings.Join(names(), ", "))
		os.Exit(2)
	}
	name := os.Args[1]
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL init:", err)
		os.Exit(1)
	}
	world := mpi.CommWorld()
	if err := scenarios[name](world); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL %s rank %d: %v\n", name, world.Rank(), err)
		os.Exit(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL finalize rank %d: %v\n", world.Rank(), err)
		os.Exit(1)
	}
	fmt.Printf("ok %s rank %d\n", name, world.Rank())
}

func names() []string {
	var n []string
	for k := range scenarios {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// wantErr checks that err is of class and says each of says.
func wantErr(what string, err, class error, says ...string) error {
	if !errors.Is(err, class) {
		return fmt.Errorf("%s: error %v, want %v", what, err, class)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			return fmt.Errorf("%s: error %q does not say %q", what, err, s)
		}
	}
	return nil
}

// free releases c, a communicator a scenario made.
func free(c mpi.Comm, err *error) {
	if ferr := c.Free(); ferr != nil && *err == nil {
		*err = fmt.Errorf("free %v: %w", c, ferr)
	}
}
