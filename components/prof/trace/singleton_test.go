package trace_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/gompi/gompi/components/all"
	_ "github.com/gompi/gompi/components/prof/trace"
	"github.com/gompi/gompi/mpi"
)

// TestSingleton runs the tool inside the test process, a job of one rank,
// so that the race detector watches it: goroutines send to themselves at
// once, and every message must get its arrow. It is the only test here
// that initialises MPI, once per process.
func TestSingleton(t *testing.T) {
	if mpi.Initialized() {
		t.Skip("MPI initialises once per process, and an earlier run of this test did (-count)")
	}
	out := filepath.Join(t.TempDir(), "single.json")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GOMPI_MCA_prof", "trace")
	t.Setenv("GOMPI_MCA_prof_trace_output", out)
	if err := mpi.Init(); err != nil {
		t.Fatal(err)
	}
	world := mpi.CommWorld()
	const goroutines, rounds = 4, 5
	// No goroutine ends before all have called MPI: one that started after
	// another ended could take over its runtime descriptor, and its track.
	var wg sync.WaitGroup
	wg.Add(goroutines)
	errs := make(chan error, goroutines)
	for g := range goroutines {
		go func() {
			errs <- exchange(world, g, rounds)
			wg.Done()
			wg.Wait()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}

	evs := readTrace(t, out)
	starts, ends := map[uint64]bool{}, map[uint64]bool{}
	tracks := map[int]bool{}
	for _, e := range evs {
		switch e.Ph {
		case "s":
			starts[e.ID] = true
		case "f":
			ends[e.ID] = true
		case "X":
			tracks[*e.Tid] = true
		}
	}
	if want := goroutines * rounds * 3; len(starts) != want || len(ends) != want {
		t.Errorf("%d arrow starts and %d ends, want %d of each", len(starts), len(ends), want)
	}
	for id := range starts {
		if !ends[id] {
			t.Errorf("arrow %d has no end", id)
		}
	}
	if len(tracks) < goroutines+1 {
		t.Errorf("%d tracks, want the main goroutine's and %d more", len(tracks), goroutines)
	}
}

// exchange sends to this rank itself on tag g: an Isend to an AnySource
// Irecv completed by WaitAll, a Send to a Recv, and a Sendrecv.
func exchange(world mpi.Comm, g, rounds int) error {
	for i := range rounds {
		in := make([]int32, 1)
		r, err := mpi.Irecv(in, mpi.AnySource, g, world)
		if err != nil {
			return err
		}
		s, err := mpi.Isend([]int32{int32(i)}, 0, g, world)
		if err != nil {
			return err
		}
		if err := mpi.WaitAll(r, s); err != nil {
			return err
		}
		if err := mpi.Send([]int32{int32(i)}, 0, g, world); err != nil {
			return err
		}
		if _, err := mpi.Recv(in, 0, g, world); err != nil {
			return err
		}
		if _, err := mpi.Sendrecv([]int32{1}, 0, g, in, 0, g, world); err != nil {
			return err
		}
		if in[0] != 1 {
			return fmt.Errorf("goroutine %d round %d: got %d", g, i, in[0])
		}
	}
	return nil
}
