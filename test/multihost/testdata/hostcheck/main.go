// Command hostcheck runs what a job across hosts must get right, and
// prints what the test checks: each rank's host and the transport to each
// peer, then a ring, an allreduce, an alltoall and a 64 MiB message from
// rank 0 to the last rank, each checked here; "ok" ends a rank's output
// when all passed.
//
// "hostcheck wait" instead joins a barrier, prints each rank's host, pid
// and parent (the daemon on its host) and waits to be stopped: the tests
// kill something of the job then. "hostcheck die R" has rank R kill
// itself with SIGKILL after the barrier. "hostcheck cycle" has every rank
// receive from the next after it, a deadlock for the state report.
package main

import (
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"syscall"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	w := mpi.CommWorld()
	if len(os.Args) > 1 {
		wait(w, os.Args[1:])
	}
	if err := check(w); err != nil {
		log.Fatalf("rank %d: %v", w.Rank(), err)
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}

func check(w mpi.Comm) error {
	rank, size := w.Rank(), w.Size()
	host, _ := os.Hostname()
	var via []string
	for r := range size {
		t, err := w.Transport(r)
		if err != nil {
			return err
		}
		via = append(via, fmt.Sprintf("%d:%s", r, t))
	}
	fmt.Printf("rank %d on %s transports %s\n", rank, host, strings.Join(via, " "))

	// A ring: each rank adds its rank to the token.
	token := []int64{0}
	next, prev := (rank+1)%size, (rank+size-1)%size
	if rank == 0 {
		if err := mpi.Send(token, next, 1, w); err != nil {
			return fmt.Errorf("ring: %w", err)
		}
	}
	if _, err := mpi.Recv(token, prev, 1, w); err != nil {
		return fmt.Errorf("ring: %w", err)
	}
	if rank != 0 {
		token[0] += int64(rank)
		if err := mpi.Send(token, next, 1, w); err != nil {
			return fmt.Errorf("ring: %w", err)
		}
	} else if want := int64(size * (size - 1) / 2); token[0] != want {
		return fmt.Errorf("ring: token %d, want %d", token[0], want)
	}

	sum := []int64{0}
	if err := mpi.Allreduce([]int64{int64(rank + 1)}, sum, mpi.Sum, w); err != nil {
		return fmt.Errorf("allreduce: %w", err)
	}
	if want := int64(size * (size + 1) / 2); sum[0] != want {
		return fmt.Errorf("allreduce: %d, want %d", sum[0], want)
	}

	send, recv := make([]int32, size), make([]int32, size)
	for r := range send {
		send[r] = int32(rank*1000 + r)
	}
	if err := mpi.Alltoall(send, recv, w); err != nil {
		return fmt.Errorf("alltoall: %w", err)
	}
	for r, v := range recv {
		if want := int32(r*1000 + rank); v != want {
			return fmt.Errorf("alltoall: %d from rank %d, want %d", v, r, want)
		}
	}

	const big = 64 << 20
	last := size - 1
	switch rank {
	case 0:
		buf := make([]byte, big)
		for i := range buf {
			buf[i] = byte(i*7 + i>>13)
		}
		if err := mpi.Send(buf, last, 2, w); err != nil {
			return fmt.Errorf("64 MiB message: %w", err)
		}
	case last:
		buf := make([]byte, big)
		if _, err := mpi.Recv(buf, 0, 2, w); err != nil {
			return fmt.Errorf("64 MiB message: %w", err)
		}
		for i, b := range buf {
			if b != byte(i*7+i>>13) {
				return fmt.Errorf("64 MiB message: byte %d is %d, want %d", i, b, byte(i*7+i>>13))
			}
		}
	}
	fmt.Printf("rank %d ok\n", rank)
	return nil
}

// wait serves the modes in which the tests stop the job.
func wait(w mpi.Comm, args []string) {
	// The barrier first: once every rank has printed, none is in MPI.
	if err := mpi.Barrier(w); err != nil {
		log.Fatalf("rank %d: barrier: %v", w.Rank(), err)
	}
	host, _ := os.Hostname()
	fmt.Printf("rank %d on %s pid %d ppid %d\n", w.Rank(), host, os.Getpid(), os.Getppid())
	if args[0] == "cycle" {
		buf := make([]byte, 8)
		if _, err := mpi.Recv(buf, (w.Rank()+1)%w.Size(), 7, w); err != nil {
			log.Fatalf("rank %d: %v", w.Rank(), err)
		}
	}
	if args[0] == "die" && len(args) > 1 {
		// Every rank's line written before any rank dies, or the job may
		// stop before a slow rank has printed it.
		if err := mpi.Barrier(w); err != nil {
			log.Fatalf("rank %d: barrier: %v", w.Rank(), err)
		}
		if r, _ := strconv.Atoi(args[1]); r == w.Rank() {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	select {}
}
