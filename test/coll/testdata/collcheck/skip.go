package main

import (
	"fmt"
	"os"

	"github.com/gompi/gompi/mpi"
)

// skip has rank 0 skip a Barrier that the other ranks call. With
// "allreduce" every rank then calls Allreduce: each must fail, saying
// that the ranks call different collectives (a rank prints "skip KIND
// rank R: ERROR", finalizes and exits with status 3). With "finalize" rank 0 goes on to Finalize
// while the others wait in the Barrier: the job hangs, and the test reads
// gompirun's report of it.
func skip(x *checker, w mpi.Comm) {
	if len(x.args) != 1 {
		x.fatalf("usage: collcheck skip allreduce|finalize")
	}
	kind := x.args[0]
	// A first call that every rank makes: coll sm maps its segment there.
	x.ok(mpi.Barrier(w), "first barrier")
	var err error
	if x.rank != 0 {
		err = mpi.Barrier(w)
	}
	switch kind {
	case "allreduce":
		if err == nil {
			err = mpi.Allreduce([]int32{1}, make([]int32, 1), mpi.Sum, w)
		}
		if err == nil {
			x.fatalf("skip %s: no error", kind)
		}
		fmt.Printf("skip %s rank %d: %v\n", kind, x.rank, err)
		// Every rank reaches Finalize, which waits on gompirun, not on
		// the communicator: no rank's exit stops another's report.
		x.ok(mpi.Finalize(), "finalize")
		os.Exit(3)
	case "finalize":
		x.ok(err, "barrier")
		x.ok(mpi.Finalize(), "finalize")
		x.fatalf("skip %s: finalize returned without the other ranks", kind)
	default:
		x.fatalf("skip: unknown kind %q", kind)
	}
}
