// Command gompi-flood measures what a flood of strangers' connections to a
// rank's tcp port costs the rank. It is a measurement, not a test: it has
// two modes, run side by side.
//
// rank is a 2-rank job to flood: rank 1 prints its pid and waits in a
// Recv; rank 0 sends to it once the file given by -go exists, so the send
// dials rank 1 while the flood is held open, and the job ends.
//
//	gompirun -np 2 --mca btl tcp,self bin/gompi-flood rank -go /tmp/go 2>&1 | tee job.log
//
// hold opens -n connections to every tcp port the process -pid listens on
// at 127.0.0.1, idle or sending junk, holds them for -hold while it prints
// the process's memory twice a second, then creates the -go file. With
// -churn it dials again for every connection the rank drops.
//
//	bin/gompi-flood hold -pid 1234 -n 5000 -hold 10s -go /tmp/go
//
// Run several holders at once for more connections than one process may
// open (each needs a file descriptor per connection).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gompi-flood rank|hold [flags] (see the package comment)")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "rank":
		err = rank(os.Args[2:])
	case "hold":
		err = hold(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want rank or hold", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi-flood: %v\n", err)
		os.Exit(1)
	}
}
