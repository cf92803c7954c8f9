package main

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/mpi"
)

func init() { scenarios["grequest"] = grequest }

// grequest: generalized requests completed by goroutines. Test sees one
// before it completes; Wait returns query's status and runs free once;
// WaitAll mixes one with a receive; Free before completion runs free
// after GrequestComplete; Cancel tells cancel whether it completed; an
// error of query is Wait's.
func grequest(w mpi.Comm) error {
	var frees, cancels atomic.Int32
	query := func(st *mpi.Status) error {
		st.Source, st.Tag = 7, 99
		return mpi.StatusSetElements[int64](st, 3)
	}
	free := func() error { frees.Add(1); return nil }
	var lastComplete atomic.Bool
	cancel := func(complete bool) error { cancels.Add(1); lastComplete.Store(complete); return nil }

	r, err := mpi.GrequestStart(query, free, cancel)
	if err != nil {
		return fmt.Errorf("grequest start: %w", err)
	}
	if _, done, err := r.Test(); err != nil || done {
		return fmt.Errorf("test before the operation completed: done %v, %v", done, err)
	}
	if err := r.Cancel(); err != nil || cancels.Load() != 1 || lastComplete.Load() {
		return fmt.Errorf("cancel before completion: %v, %d calls, complete %v", err, cancels.Load(), lastComplete.Load())
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := r.GrequestComplete(); err != nil {
			panic(err)
		}
	})
	st, err := r.Wait()
	wg.Wait()
	n := st.GetElements(mpi.TypeOf[int64]())
	if err != nil || st.Source != 7 || st.Tag != 99 || n != 3 || frees.Load() != 1 {
		return fmt.Errorf("wait: source %d tag %d elements %d, %v, free ran %d times; want 7, 99, 3, nil, once", st.Source, st.Tag, n, err, frees.Load())
	}
	if err := r.GrequestComplete(); err == nil {
		return errors.New("grequest complete of a completed request: no error")
	}

	// WaitAll over a generalized request and a receive of the rank's own
	// message.
	g, err := mpi.GrequestStart(nil, free, nil)
	if err != nil {
		return err
	}
	got := make([]int, 1)
	recv, err := mpi.Irecv(got, w.Rank(), 5, w)
	if err != nil {
		return err
	}
	wg.Go(func() {
		if err := mpi.Send([]int{42}, w.Rank(), 5, w); err == nil {
			err = g.GrequestComplete()
		}
	})
	if err := mpi.WaitAll(g, recv); err != nil || got[0] != 42 || frees.Load() != 2 {
		return fmt.Errorf("waitall: %v, got %v, free ran %d times", err, got, frees.Load())
	}
	wg.Wait()

	// Freed before it completes: free runs once GrequestComplete is called.
	f, err := mpi.GrequestStart(nil, free, cancel)
	if err != nil {
		return err
	}
	if err := f.Free(); err != nil {
		return fmt.Errorf("free of an active generalized request: %w", err)
	}
	if err := mpi.Barrier(w); err != nil { // time for a free that ran too soon to show
		return err
	}
	if frees.Load() != 2 {
		return fmt.Errorf("free ran before GrequestComplete (%d times)", frees.Load())
	}
	if err := f.GrequestComplete(); err != nil {
		return fmt.Errorf("grequest complete of a freed request: %w", err)
	}
	if frees.Load() != 3 {
		return fmt.Errorf("free of a freed generalized request ran %d times by the end of GrequestComplete, want 3", frees.Load())
	}

	// An error of query is Wait's.
	bad, err := mpi.GrequestStart(func(*mpi.Status) error { return &mpi.Error{Class: mpi.ErrOther.Class, Msg: "the operation failed"} }, nil, nil)
	if err != nil {
		return err
	}
	if err := bad.GrequestComplete(); err != nil {
		return err
	}
	if _, err := bad.Wait(); !errors.Is(err, mpi.ErrOther) {
		return fmt.Errorf("wait on a request whose query failed: %v, want ErrOther", err)
	}
	return nil
}
