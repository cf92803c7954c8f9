// Command partsjob makes known traffic on 3 ranks under the stats and
// trace tools, for the tests of what gompirun merges (parts_test.go).
// Rank 0 sends 1 message of 100 bytes to rank 1, rank 1 2 messages of 50
// bytes to rank 2, rank 2 3 messages of 10 bytes to rank 0; then every
// rank calls Allreduce on one int64 and Finalize.
//
// With PARTSJOB_CHDIR set, every rank first changes its working directory
// to it. With PARTSJOB_DIE=r, rank r does not finalize: after the
// Allreduce it waits until every other rank has submitted its parts (of
// the tools in PARTSJOB_TOOLS, comma-separated), then exits with status
// 3, which ends the job with the others still in Finalize. With
// PARTSJOB_ABORT=r, rank r calls Abort after the Allreduce while the
// others wait for a message from it that never comes: no rank finalizes.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/jobfiles"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "partsjob:", err)
		os.Exit(1)
	}
}

func run() error {
	if dir := os.Getenv("PARTSJOB_CHDIR"); dir != "" {
		if err := os.Chdir(dir); err != nil {
			return err
		}
	}
	die := -1
	if v := os.Getenv("PARTSJOB_DIE"); v != "" {
		var err error
		if die, err = strconv.Atoi(v); err != nil {
			return err
		}
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	rank, size := world.Rank(), world.Size()
	if size != 3 {
		return fmt.Errorf("want 3 ranks, have %d", size)
	}
	next, prev := (rank+1)%size, (rank+size-1)%size
	sizes := []int{100, 50, 10} // of each rank's messages
	for range rank + 1 {
		if err := mpi.Send(make([]byte, sizes[rank]), next, 1, world); err != nil {
			return err
		}
	}
	for range prev + 1 {
		if _, err := mpi.Recv(make([]byte, sizes[prev]), prev, 1, world); err != nil {
			return err
		}
	}
	out := make([]int64, 1)
	if err := mpi.Allreduce([]int64{int64(rank)}, out, mpi.Sum, world); err != nil {
		return err
	}
	if v := os.Getenv("PARTSJOB_ABORT"); v != "" {
		abort, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		if rank == abort {
			fmt.Fprintf(os.Stderr, "partsjob: rank %d aborts on purpose\n", rank)
			return mpi.Abort(world, 4)
		}
		_, err = mpi.Recv(make([]byte, 1), abort, 9, world)
		return err
	}
	if rank == die {
		waitParts(rank, size)
		fmt.Fprintf(os.Stderr, "partsjob: rank %d fails on purpose\n", rank)
		os.Exit(3)
	}
	fmt.Printf("ok rank %d\n", rank)
	return mpi.Finalize()
}

// waitParts waits until every other rank has submitted its parts: it
// waits on that condition, however long it takes (gompirun's --timeout
// is the test's guard).
func waitParts(self, size int) {
	dir := filepath.Join(os.Getenv(jobenv.SessionDir), jobfiles.PartsDir)
	for {
		all := true
		for _, tool := range strings.Split(os.Getenv("PARTSJOB_TOOLS"), ",") {
			for r := range size {
				if _, err := os.Stat(filepath.Join(dir, tool+"."+strconv.Itoa(r))); r != self && err != nil {
					all = false
				}
			}
		}
		if all {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
