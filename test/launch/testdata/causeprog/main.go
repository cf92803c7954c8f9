// Command causeprog is the rank program of the root-cause tests: rank 1
// fails in the way its argument names (nofinalize, exit, kill) once every
// rank is past a barrier; the others then receive from it and fail. Under
// ErrorsAreFatal that failure aborts naming rank 1 as seen failing, so
// that a rank that gets there before gompirun stops it is reported as
// rank 1's follower.
package main

import (
	"fmt"
	"os"
	"syscall"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "causeprog:", err)
		os.Exit(2)
	}
	w := mpi.CommWorld()
	rank := w.Rank()
	fmt.Printf("rank %d pid %d\n", rank, os.Getpid())
	if err := mpi.Barrier(w); err != nil {
		fmt.Fprintln(os.Stderr, "causeprog:", err)
		os.Exit(2)
	}
	if rank == 1 {
		switch os.Args[1] {
		case "nofinalize":
			os.Exit(0)
		case "exit":
			os.Exit(5)
		case "kill":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	if err := w.SetErrorHandler(mpi.ErrorsAreFatal); err != nil {
		fmt.Fprintln(os.Stderr, "causeprog:", err)
		os.Exit(2)
	}
	buf := make([]byte, 8)
	_, err := mpi.Recv(buf, 1, 7, w) // fails, and aborts: rank 1 is gone
	fmt.Fprintf(os.Stderr, "causeprog: rank %d: receive from rank 1 returned %v\n", rank, err)
	os.Exit(3)
}
