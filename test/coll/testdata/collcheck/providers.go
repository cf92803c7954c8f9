package main

import (
	"fmt"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

// providers prints, as a tool would ask for it (pmpi.Comm.CollProviders,
// on the communicator a profiling layer is handed), which component serves
// each collective on world, then makes a split of world into halves and a
// dup, for the test to find what coll_base_verbose logs of each.
func providers(x *checker, w mpi.Comm) {
	real := pmpi.Real()
	got := real.CommWorld().CollProviders()
	x.checks++
	if len(got) == 0 {
		x.errorf("world: CollProviders lists nothing")
	}
	fmt.Printf("rank %d world providers %s\n", x.rank, strings.Join(got, " "))
	half, err := w.Split(x.rank%2, x.rank)
	x.ok(err, "split")
	dup, err := half.Dup()
	x.ok(err, "dup")
	x.ok(mpi.Barrier(dup), "barrier on the dup")
	x.ok(dup.Free(), "free the dup")
	x.ok(half.Free(), "free the split")
}
