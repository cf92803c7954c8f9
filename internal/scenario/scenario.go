// Package scenario is the main of the multi-process test programs
// (p2pcheck, topocheck, attrcheck): it runs the scenario its first
// argument names on every rank of a gompirun job and prints
// "ok <scenario> rank <r>" when the rank's checks pass; a failed check
// prints FAIL and exits 1.
package scenario

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// Func is a scenario: with or without the arguments after its name.
type Func interface {
	func(mpi.Comm) error | func(mpi.Comm, []string) error
}

// Main runs prog's scenario named by os.Args[1] on MPI_COMM_WORLD,
// between Init and Finalize, and exits.
func Main[F Func](prog string, scenarios map[string]F) {
	if len(os.Args) < 2 {
		usage(prog, scenarios)
	}
	name := os.Args[1]
	f, ok := scenarios[name]
	if !ok {
		usage(prog, scenarios)
	}
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL init:", err)
		os.Exit(1)
	}
	world := mpi.CommWorld()
	var err error
	switch f := any(f).(type) {
	case func(mpi.Comm) error:
		err = f(world)
	case func(mpi.Comm, []string) error:
		err = f(world, os.Args[2:])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL %s rank %d: %v\n", name, world.Rank(), err)
		os.Exit(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL finalize rank %d: %v\n", world.Rank(), err)
		os.Exit(1)
	}
	fmt.Printf("ok %s rank %d\n", name, world.Rank())
	os.Exit(0)
}

// usage names the scenarios and exits 2.
func usage[F Func](prog string, scenarios map[string]F) {
	names := make([]string, 0, len(scenarios))
	for k := range scenarios {
		names = append(names, k)
	}
	slices.Sort(names)
	fmt.Fprintf(os.Stderr, "usage: %s SCENARIO [ARGS] (one of %s)\n", prog, strings.Join(names, ", "))
	os.Exit(2)
}
