package main

import (
	"errors"
	"fmt"
	"maps"

	"github.com/gompi/gompi/mpi"
)

// idup checks Comm.Idup and IdupWithInfo: several outstanding at once,
// interleaved with an Iallreduce and waited in reverse order, each new
// communicator works and is apart from the others, attributes are copied
// at the call, hints carried over or taken from the info; a communicator
// used before its request completes is refused; a failing copy callback
// fails the request, and the parent goes on.
func idup(world mpi.Comm, _ []string) error {
	for _, f := range []func(mpi.Comm) error{idupOutstanding, idupTooSoon, idupFailingCopy} {
		if err := f(world); err != nil {
			return err
		}
	}
	return nil
}

func idupOutstanding(world mpi.Comm) error {
	var c calls
	kv, err := c.keyval()
	if err != nil {
		return err
	}
	if err := world.SetAttr(kv, "w"); err != nil {
		return err
	}
	hints, worldHints := mpi.InfoCreate(), mpi.InfoCreate()
	if err := errors.Join(hints.Set("mpi_assert_no_any_tag", "true"), worldHints.Set("mpi_assert_no_any_source", "true"),
		world.SetInfo(worldHints)); err != nil {
		return err
	}
	// A bad hint value fails the call, on every rank alike: nothing starts.
	bad := mpi.InfoCreate()
	if err := bad.Set("mpi_assert_exact_length", "maybe"); err != nil {
		return err
	}
	if d, _, err := world.IdupWithInfo(bad); !d.IsNull() || wantErr("idup with a bad hint", err, mpi.ErrArg, `mpi_assert_exact_length="maybe" (want true or false)`) != nil {
		return fmt.Errorf("idup with a bad hint: got %v, %v; want no communicator and ErrArg naming the hint", d, err)
	}
	d1, r1, err := world.Idup()
	if err != nil {
		return err
	}
	me, n := world.Rank(), world.Size()
	sum := []int{0}
	ar, err := mpi.Iallreduce([]int{me}, sum, mpi.Sum, world)
	if err != nil {
		return err
	}
	d2, r2, err := world.IdupWithInfo(hints)
	if err != nil {
		return err
	}
	d3, r3, err := world.Idup()
	if err != nil {
		return err
	}
	d4, r4, err := world.IdupWithInfo(nil)
	if err != nil {
		return err
	}
	// The copies are of world's attributes at the calls: a value set
	// after them is not the duplicates'.
	if err := errors.Join(c.want("idup calls", []any{"w", "w", "w", "w"}, nil), world.SetAttr(kv, "later")); err != nil {
		return err
	}
	for i, r := range []mpi.Request{r4, r3, r2, ar, r1} {
		if _, err := r.Wait(); err != nil {
			return fmt.Errorf("wait %d (reverse order): %v", i, err)
		}
	}
	if sum[0] != n*(n-1)/2 {
		return fmt.Errorf("the iallreduce among the idups gave %d, want %d", sum[0], n*(n-1)/2)
	}
	dups := []mpi.Comm{d1, d2, d3, d4}
	for i, d := range dups {
		if d.Size() != n || d.Rank() != me {
			return fmt.Errorf("idup %d: rank %d of %d, want %d of %d", i, d.Rank(), d.Size(), me, n)
		}
		if err := wantAttr(fmt.Sprintf("idup %d", i), d, kv, "w", true); err != nil {
			return err
		}
		got := []int{0}
		if err := mpi.Allreduce([]int{me + i}, got, mpi.Sum, d); err != nil {
			return fmt.Errorf("allreduce on idup %d: %v", i, err)
		}
		if want := n*(n-1)/2 + n*i; got[0] != want {
			return fmt.Errorf("allreduce on idup %d gave %d, want %d", i, got[0], want)
		}
	}
	if err := idupApart(dups); err != nil {
		return err
	}
	// Idup carries world's hints over; IdupWithInfo takes them from its
	// info instead, none from a nil one.
	none := map[string]string{"mpi_assert_no_any_source": "false", "mpi_assert_no_any_tag": "false",
		"mpi_assert_exact_length": "false", "mpi_assert_allow_overtaking": "false"}
	carried, given := maps.Clone(none), maps.Clone(none)
	carried["mpi_assert_no_any_source"], given["mpi_assert_no_any_tag"] = "true", "true"
	if err := errors.Join(wantHints(d1, carried), wantHints(d2, given), wantHints(d4, none)); err != nil {
		return err
	}
	// world's hints as they were, then everything freed.
	if err := errors.Join(worldHints.Set("mpi_assert_no_any_source", "false"), world.SetInfo(worldHints), d1.Free(), d2.Free(), d3.Free(), d4.Free(), world.DeleteAttr(kv),
		hints.Free(), worldHints.Free(), bad.Free()); err != nil {
		return err
	}
	// world's "w" went when "later" replaced it; then the four copies and "later".
	return errors.Join(c.want("idup frees", []any{"w", "w", "w", "w"}, []any{"w", "w", "w", "w", "w", "later"}), mpi.CommFreeKeyval(&kv))
}

// idupApart checks that the duplicates' contexts are apart: each rank
// sends its rank on every duplicate, tag 0, to the next, and receives
// on each the value of its own duplicate alone.
func idupApart(dups []mpi.Comm) error {
	me, n := dups[0].Rank(), dups[0].Size()
	var reqs []mpi.Request
	got := make([][]int, len(dups))
	for i, d := range dups {
		got[i] = []int{-1}
		r, err := mpi.Irecv(got[i], (me+n-1)%n, 0, d)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	for i := len(dups) - 1; i >= 0; i-- {
		if err := mpi.Send([]int{100*i + me}, (me+1)%n, 0, dups[i]); err != nil {
			return err
		}
	}
	if err := mpi.WaitAll(reqs...); err != nil {
		return err
	}
	for i := range dups {
		if want := 100*i + (me+n-1)%n; got[i][0] != want {
			return fmt.Errorf("idup %d received %d, want %d: the duplicates' messages mixed", i, got[i][0], want)
		}
	}
	return nil
}

// idupTooSoon: rank 0 uses its duplicate before the others have even
// called Idup, so before its request can complete; the call is refused.
func idupTooSoon(world mpi.Comm) error {
	if world.Rank() == 0 {
		d, r, err := world.Idup()
		if err != nil {
			return err
		}
		if err := wantErr("barrier on an idup not complete", mpi.Barrier(d), mpi.ErrComm, "comm MPI_COMM_WORLD.dup is the communicator of an Idup that has not completed"); err != nil {
			return err
		}
		for p := 1; p < world.Size(); p++ {
			if err := mpi.Send([]int{1}, p, 7, world); err != nil {
				return err
			}
		}
		if _, err := r.Wait(); err != nil {
			return err
		}
		return errors.Join(mpi.Barrier(d), d.Free())
	}
	if _, err := mpi.Recv([]int{0}, 0, 7, world); err != nil {
		return err
	}
	d, r, err := world.Idup()
	if err != nil {
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	return errors.Join(mpi.Barrier(d), d.Free())
}

// idupFailingCopy: a copy callback's error fails the request, not the
// call; the attributes already copied are deleted, the duplicate is
// unusable, and world goes on.
func idupFailingCopy(world mpi.Comm) error {
	var good, bad calls
	kvGood, kvBad, err := goodAndFailing(world, &good, &bad)
	if err != nil {
		return err
	}
	d, r, err := world.Idup()
	if err != nil {
		return fmt.Errorf("idup with a failing copy callback failed at the call (want its request to fail): %v", err)
	}
	_, err = r.Wait()
	if !errors.Is(err, errRefused) {
		return fmt.Errorf("wait on an idup whose copy callback fails: got %v, want the callback's error", err)
	}
	if err := wantErr("failed idup", err, mpi.ErrOther, "comm idup on comm MPI_COMM_WORLD: the copy callback of keyval"); err != nil {
		return err
	}
	if err := good.want("failed idup", []any{"g"}, []any{"g"}); err != nil {
		return err
	}
	if err := wantErr("barrier on a failed idup", mpi.Barrier(d), mpi.ErrComm, "an Idup that failed"); err != nil {
		return err
	}
	return errors.Join(mpi.Barrier(world), world.DeleteAttr(kvGood), world.DeleteAttr(kvBad),
		mpi.CommFreeKeyval(&kvGood), mpi.CommFreeKeyval(&kvBad))
}
