// Command topocheck runs one process-topology scenario on every rank of a
// gompirun job and prints "ok <scenario> rank <r>" when the rank's checks
// pass; a failed check prints FAIL and exits 1. The tests in test/topo
// run it.
package main

import (
	"errors"
	"fmt"
	"strings"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/internal/scenario"
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
	// neighbor.go
	"neighbor":             neighbor,
	"neighbor-graph":       neighborGraph,
	"neighbor-nonblocking": neighborNonblocking,
	"neighbor-mismatch":    neighborMismatch,
	// reorder.go
	"reorder": reorder,
}

func main() { scenario.Main("topocheck", scenarios) }

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
