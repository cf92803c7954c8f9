// Command collcheck runs collective scenarios on every rank of a gompirun
// job and checks each result against a sequential reference the rank
// computes alone, from rank numbers and deterministic inputs. A rank whose
// checks pass prints "ok <scenario> rank <r>"; a wrong result prints a FAIL
// line to stderr and the rank goes on with the next case (the collectives
// stay in step); an unexpected error prints FAIL and exits 1 at once. The
// tests in test/coll run it.
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

var scenarios = map[string]func(*checker, mpi.Comm){
	"matrix":       matrix,
	"algorithms":   algorithms,
	"mismatch":     mismatch,
	"mismatcheach": mismatchEach,
	"commdisagree": commDisagree,
	"fatal":        fatal,
	"timed":        timed,
	"providers":    providers,
	"determinism":  determinism,
	"regrouped":    regrouped,
	"records":      records,
	"skip":         skip,
	"churn":        churn,
	"late":         late,
}

func main() {
	if len(os.Args) < 2 || scenarios[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: collcheck SCENARIO [ARG] (SCENARIO one of %s)\n", strings.Join(names(), ", "))
		os.Exit(2)
	}
	name := os.Args[1]
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL init:", err)
		os.Exit(1)
	}
	world := mpi.CommWorld()
	x := &checker{rank: world.Rank(), args: os.Args[2:]}
	scenarios[name](x, world)
	if x.fails > 0 {
		fmt.Fprintf(os.Stderr, "FAIL %s rank %d: %d checks failed\n", name, x.rank, x.fails)
		os.Exit(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL finalize rank %d: %v\n", x.rank, err)
		os.Exit(1)
	}
	fmt.Printf("ok %s rank %d (%d checks)\n", name, x.rank, x.checks)
}

func names() []string {
	n := make([]string, 0, len(scenarios))
	for k := range scenarios {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// maxReports bounds the FAIL lines one rank prints: one bug tends to fail
// many cases alike.
const maxReports = 12

// checker counts a rank's checks and reports the failed ones.
type checker struct {
	rank          int
	args          []string
	checks, fails int
}

// errorf reports a failed check; the rank carries on.
func (x *checker) errorf(format string, args ...any) {
	x.fails++
	if x.fails <= maxReports {
		fmt.Fprintf(os.Stderr, "FAIL rank %d: %s\n", x.rank, fmt.Sprintf(format, args...))
	}
}

// fatalf reports a failure after which the ranks cannot stay in step.
func (x *checker) fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL rank %d (fatal): %s\n", x.rank, fmt.Sprintf(format, args...))
	os.Exit(1)
}

// ok stops the rank if a call that must succeed failed.
func (x *checker) ok(err error, format string, args ...any) {
	x.checks++
	if err != nil {
		x.fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}

// wantErr checks that a call failed with an error of class want.
func (x *checker) wantErr(err, want error, format string, args ...any) {
	x.checks++
	switch {
	case err == nil:
		x.errorf("%s: no error, want %v", fmt.Sprintf(format, args...), want)
	case !errors.Is(err, want):
		x.errorf("%s: error %q, want class %v", fmt.Sprintf(format, args...), err, want)
	}
}

// same checks got against want element by element.
func same[T comparable](x *checker, got, want []T, format string, args ...any) {
	x.checks++
	if len(got) != len(want) {
		x.errorf("%s: %d elements, want %d", fmt.Sprintf(format, args...), len(got), len(want))
		return
	}
	bad, first := 0, -1
	for i := range got {
		if got[i] != want[i] {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad > 0 {
		x.errorf("%s: %d of %d elements differ, first at %d: got %v, want %v", fmt.Sprintf(format, args...),
			bad, len(got), first, got[first], want[first])
	}
}

// equal checks one value.
func equal[T comparable](x *checker, got, want T, format string, args ...any) {
	x.checks++
	if got != want {
		x.errorf("%s: got %v, want %v", fmt.Sprintf(format, args...), got, want)
	}
}
