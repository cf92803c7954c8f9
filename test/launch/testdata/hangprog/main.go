// Command hangprog is the rank program of the state-report tests: it hangs
// in the way its argument names, after printing "rank R pid P" and, for
// each rank that blocks, "rank R blocks at FILE:LINE" naming the line of
// the call it blocks in.
//
//	both     ranks 0 and 1 each receive from the other first
//	tag      rank 0 sends tag 8 and enters a barrier; rank 1 receives tag 7
//	stopped  rank 1 stops itself (SIGSTOP); rank 0 receives from it
//	nbc      on "reversed", world's ranks in reverse order, rank 0 waits on
//	         an Ialltoall that rank 1 does not start: it receives from
//	         rank 0 instead
//	aside    rank 0 starts a 1 MiB Ibcast from rank 1, which its goroutine
//	         runs at once, and sleeps outside MPI; rank 1 receives from
//	         rank 0
//	deferred as aside with an 8-byte Ibcast, which with GOMAXPROCS=1
//	         waits for rank 0's next MPI call to begin
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

// at prints the file:line of the line after its call.
func at(rank int) {
	_, file, line, _ := runtime.Caller(1)
	fmt.Printf("rank %d blocks at %s:%d\n", rank, filepath.Base(file), line+1)
}

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "hangprog:", err)
		os.Exit(2)
	}
	w := mpi.CommWorld()
	rank := w.Rank()
	fmt.Printf("rank %d pid %d\n", rank, os.Getpid())
	buf := make([]byte, 8)
	switch os.Args[1] {
	case "both":
		at(rank)
		_, _ = mpi.Recv(buf, 1-rank, 7, w)
	case "tag":
		if rank == 0 {
			_ = mpi.Send(buf, 1, 8, w)
			at(rank)
			_ = mpi.Barrier(w)
		} else {
			at(rank)
			_, _ = mpi.Recv(buf, 0, 7, w)
		}
	case "stopped":
		if rank == 1 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		} else {
			at(rank)
			_, _ = mpi.Recv(buf, 1, 7, w)
		}
	case "nbc":
		c, err := w.Split(0, -rank)
		if err == nil {
			err = c.SetName("reversed")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "hangprog:", err)
			os.Exit(2)
		}
		if rank == 0 {
			r, err := mpi.Ialltoall(buf, make([]byte, len(buf)), c)
			if err != nil {
				fmt.Fprintln(os.Stderr, "hangprog:", err)
				os.Exit(2)
			}
			at(rank)
			_, _ = r.Wait()
		} else {
			at(rank)
			_, _ = mpi.Recv(buf, 0, 7, w)
		}
	case "aside", "deferred":
		if rank == 0 {
			size := 1 << 20
			if os.Args[1] == "deferred" {
				size = 8
			}
			if _, err := mpi.Ibcast(make([]byte, size), 1, w); err != nil {
				fmt.Fprintln(os.Stderr, "hangprog:", err)
				os.Exit(2)
			}
			at(rank)
			for {
				time.Sleep(time.Hour) // computing, outside MPI
			}
		}
		at(rank)
		_, _ = mpi.Recv(buf, 0, 7, w)
	}
	_ = mpi.Finalize()
}
