package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"

	"github.com/gompi/gompi/mpi"
)

func init() {
	scenarios["sizes"] = sizes
	scenarios["stress"] = stress
	scenarios["gc"] = gcDuringTransfers
	scenarios["killmid"] = killMid
}

// sizes: rank 0 sends one message of each size named on the command line
// (after the scenario) to rank 1, blocking and non-blocking, and rank 1
// checks every byte and the count: sizes on each protocol boundary.
func sizes(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	var list []int
	for _, a := range os.Args[2:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return fmt.Errorf("size %q: want a non-negative integer", a)
		}
		list = append(list, n)
	}
	if len(list) == 0 {
		return fmt.Errorf("no sizes given")
	}
	for i, n := range list {
		id := uint64(i + 1)
		if w.Rank() == 0 {
			buf := make([]byte, n)
			pattern(buf, id)
			if err := mpi.Send(buf, 1, i, w); err != nil {
				return fmt.Errorf("send of %d bytes: %w", n, err)
			}
			pattern(buf, id+1000)
			r, err := mpi.Isend(buf, 1, i, w)
			if err == nil {
				_, err = r.Wait()
			}
			if err != nil {
				return fmt.Errorf("isend of %d bytes: %w", n, err)
			}
			continue
		}
		for _, want := range []uint64{id, id + 1000} {
			buf := make([]byte, n+1) // one spare byte: the count must say n
			st, err := mpi.Recv(buf, 0, i, w)
			if err != nil {
				return fmt.Errorf("recv of %d bytes: %w", n, err)
			}
			if st.Count != n {
				return fmt.Errorf("recv of %d bytes: count %d", n, st.Count)
			}
			if err := checkPattern(buf[:n], want); err != nil {
				return fmt.Errorf("%d bytes: %w", n, err)
			}
			if buf[n] != 0 {
				return fmt.Errorf("%d bytes: the byte after the message was written", n)
			}
		}
	}
	return nil
}

// stress: on every rank, four goroutines each exchange messages of mixed
// sizes with the same goroutine of every other rank at once, on tags of
// their own; every message is checked.
func stress(w mpi.Comm) error {
	const goroutines, rounds = 4, 40
	sizes := []int{0, 7, 4096, 20_000, 70_000, 300_000}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				var reqs []mpi.Request
				var ins [][]byte
				var ids []uint64
				for peer := range w.Size() {
					if peer == w.Rank() {
						continue
					}
					n := sizes[(round+g+peer+w.Rank())%len(sizes)] // the same on both sides
					in := make([]byte, n)
					r, err := mpi.Irecv(in, peer, g, w)
					if err != nil {
						errs <- err
						return
					}
					reqs = append(reqs, r)
					ins = append(ins, in)
					ids = append(ids, uint64(peer<<20|g<<12|round))
					out := make([]byte, n)
					pattern(out, uint64(w.Rank()<<20|g<<12|round))
					s, err := mpi.Isend(out, peer, g, w)
					if err != nil {
						errs <- err
						return
					}
					reqs = append(reqs, s)
				}
				if err := mpi.WaitAll(reqs...); err != nil {
					errs <- err
					return
				}
				for i, in := range ins {
					if err := checkPattern(in, ids[i]); err != nil {
						errs <- fmt.Errorf("goroutine %d round %d: %w", g, round, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// gcDuringTransfers: rank 0 sends large messages from buffers it keeps no
// reference to, while a goroutine forces garbage collections, and rank 1
// receives them late: a buffer read straight from the sender's memory
// must still hold the message.
func gcDuringTransfers(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	const n, size = 20, 1 << 20
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				_ = make([]byte, 4<<20) // garbage, so that freed memory would be reused
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	if w.Rank() == 0 {
		reqs := make([]mpi.Request, n)
		for i := range n {
			r, err := isendFresh(w, size, uint64(i))
			if err != nil {
				return err
			}
			reqs[i] = r
		}
		if err := mpi.Send([]byte{1}, 1, 99, w); err != nil { // the receiver starts now
			return err
		}
		return mpi.WaitAll(reqs...)
	}
	if _, err := mpi.Recv(make([]byte, 1), 0, 99, w); err != nil {
		return err
	}
	for i := range n {
		runtime.GC()
		buf := make([]byte, size)
		if _, err := mpi.Recv(buf, 0, i, w); err != nil {
			return err
		}
		if err := checkPattern(buf, uint64(i)); err != nil {
			return err
		}
	}
	return nil
}

// isendFresh sends a new buffer that only the request refers to.
func isendFresh(w mpi.Comm, size int, id uint64) (mpi.Request, error) {
	buf := make([]byte, size)
	pattern(buf, id)
	return mpi.Isend(buf, 1, int(id), w)
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
