package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/gompi/gompi/mpi"
)

// crash: rank 1 dies with status 3 while rank 0 waits for it.
func crash(w mpi.Comm) error {
	if w.Rank() == 1 {
		os.Exit(3)
	}
	_, err := mpi.Recv(make([]byte, 1), 1, 0, w)
	// Exiting now would race rank 1's exit to gompirun, which reports
	// the first failure it sees: wait to be stopped instead.
	fmt.Printf("crash rank %d: recv from a crashed rank returned: %v\n", w.Rank(), err)
	time.Sleep(time.Hour)
	return fmt.Errorf("recv from a crashed rank returned: %v", err)
}

// hang: every rank waits for a message nobody sends.
func hang(w mpi.Comm) error {
	_, err := mpi.Recv(make([]byte, 1), (w.Rank()+1)%w.Size(), 0, w)
	return err
}

// fatal: with ErrorsAreFatal, rank 1's invalid send aborts the whole job
// with the error class as exit code, while rank 0 waits.
func fatal(w mpi.Comm) error {
	w.SetErrorHandler(mpi.ErrorsAreFatal)
	if w.Rank() == 1 {
		err := mpi.Send([]byte{1}, w.Size()+5, 0, w)
		return fmt.Errorf("an invalid send returned instead of aborting: %v", err)
	}
	_, err := mpi.Recv(make([]byte, 1), 1, 0, w)
	return fmt.Errorf("recv returned: %v", err)
}

// abort: rank 1 calls Abort with code 7 while rank 0 waits for a message
// that never comes; the job must end with that code.
func abort(w mpi.Comm) error {
	if w.Rank() == 1 {
		err := mpi.Abort(w, 7)
		return fmt.Errorf("mpi.Abort returned: %v", err)
	}
	_, err := mpi.Recv(make([]byte, 1), 1, 0, w)
	return fmt.Errorf("recv returned: %v", err)
}

// killMid: rank 1 streams messages to rank 0 and kills itself with
// SIGKILL in the middle; the survivors' receives must fail or the job be
// stopped, never hang. The sizes are the arguments after the scenario, in
// turn (256 KiB without any). Each rank first prints its pid, job id and
// session directory, for the test to check that nothing of the job is
// left, and waits for the others in a barrier, so that every rank prints.
//
// Rank 1 sends killMidAt messages one by one, then starts killMidWindow
// more with Isend and kills itself without waiting for them: it dies in
// the middle of the window, with a rendezvous message's request to send
// and first fragment written but the rest never, and records that Isend
// held back for a batch maybe not yet published. Every rank treats errors
// as fatal: a survivor that sees rank 1 fail aborts blaming it, so that
// gompirun reports the kill as the job's cause whichever it learns first.
func killMid(w mpi.Comm) error {
	const killMidAt, killMidWindow = 10, 16
	if err := w.SetErrorHandler(mpi.ErrorsAreFatal); err != nil {
		return err
	}
	sizes := []int{256 << 10}
	if len(os.Args) > 2 {
		sizes = sizes[:0]
		for _, a := range os.Args[2:] {
			n, err := strconv.Atoi(a)
			if err != nil || n < 0 {
				return fmt.Errorf("size %q: want a non-negative integer", a)
			}
			sizes = append(sizes, n)
		}
	}
	fmt.Printf("killmid rank %d pid %d job %s session %s\n", w.Rank(), os.Getpid(),
		os.Getenv("GOMPI_JOB_ID"), os.Getenv("GOMPI_SESSION_DIR"))
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() > 1 {
		_, err := mpi.Recv(make([]byte, 1), 0, 0, w)
		return err
	}
	buf := make([]byte, slices.Max(sizes))
	if w.Rank() == 1 {
		for i := range killMidAt {
			if err := mpi.Send(buf[:sizes[i%len(sizes)]], 0, 0, w); err != nil {
				return err
			}
		}
		for i := range killMidWindow {
			if _, err := mpi.Isend(buf[:sizes[(killMidAt+i)%len(sizes)]], 0, 0, w); err != nil {
				return err
			}
		}
		err := syscall.Kill(os.Getpid(), syscall.SIGKILL)
		return fmt.Errorf("alive after SIGKILL to itself (%v)", err)
	}
	for range killMidAt + killMidWindow + 1 {
		if _, err := mpi.Recv(buf, 1, 0, w); err != nil {
			return err
		}
	}
	return fmt.Errorf("received more messages than a rank that was killed sent")
}
