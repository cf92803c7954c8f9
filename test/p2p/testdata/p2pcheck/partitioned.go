package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gompi/gompi/mpi"
)

func init() {
	scenarios["partitioned"] = partitioned
	scenarios["partitioned-errors"] = partitionedErrors
}

// partRecord has padding, so that its datatype packs.
type partRecord struct {
	X float64
	N int32
}

// partitioned: each rank sends to its right neighbour and receives from
// its left one with partitioned requests that cut the buffer differently
// on the two sides, over eager and rendezvous sizes and a padded struct,
// restarted several times; partitions are made ready from several
// goroutines in a shuffled order while the receiver watches them arrive.
// Two pairs of one tag match in the order of their Init calls whatever
// the order of their starts, and pairs of two tags by tag.
func partitioned(w mpi.Comm) error {
	n, me := w.Size(), w.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	for _, c := range []struct{ elems, sendParts, recvParts int }{
		{64, 8, 4}, {64, 4, 16}, {3 * 1 << 16, 12, 3}, {96, 1, 96}, {0, 0, 0},
	} {
		if err := partRounds(w, c.elems, c.sendParts, c.recvParts, right, left); err != nil {
			return fmt.Errorf("%d float64 in %d and %d partitions: %w", c.elems, c.sendParts, c.recvParts, err)
		}
	}
	if err := partStructs(w, right, left); err != nil {
		return err
	}
	if err := partOrder(w, right, left); err != nil {
		return err
	}
	for _, parts := range [][2]int{{3, 3}, {2, 3}} {
		if err := partEmpty(w, parts[0], parts[1], right, left); err != nil {
			return fmt.Errorf("empty partitions, %d sent and %d received: %w", parts[0], parts[1], err)
		}
	}
	return partProcNull(w)
}

// partEmpty: partitions of no data arrive when the sender readies them,
// not before: with as many partitions on each side, each with the
// sender's of its number, else all with the last. Barriers order the
// sender's steps after the receiver's looks.
func partEmpty(w mpi.Comm, sendParts, recvParts, right, left int) error {
	s, err := mpi.PsendInit([]float64{}, sendParts, right, 11, w)
	if err != nil {
		return err
	}
	r, err := mpi.PrecvInit([]float64{}, recvParts, left, 11, w)
	if err != nil {
		return err
	}
	notYet := func(when string, from int) error {
		for p := from; p < recvParts; p++ {
			if ok, err := r.Parrived(p); err != nil || ok {
				return fmt.Errorf("%s: partition %d arrived %v (%v), want not", when, p, ok, err)
			}
		}
		return nil
	}
	for round := range 2 {
		if err := r.Start(); err != nil {
			return err
		}
		if err := notYet("before the send started", 0); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if err := errors.Join(mpi.Barrier(w), s.Start(), s.Pready(0), mpi.Barrier(w)); err != nil {
			return err
		}
		first := 1
		if sendParts != recvParts {
			first = 0
		}
		if err := notYet("with the sender's partition 0 ready", first); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if err := errors.Join(mpi.Barrier(w), s.PreadyRange(1, sendParts-1)); err != nil {
			return err
		}
		if err := watchArrivals(r, recvParts); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if err := mpi.WaitAll(r, s); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
	}
	return errors.Join(s.Free(), r.Free())
}

func partRounds(w mpi.Comm, elems, sendParts, recvParts, right, left int) error {
	out, in := make([]float64, elems), make([]float64, elems)
	s, err := mpi.PsendInit(out, sendParts, right, 7, w)
	if err != nil {
		return err
	}
	r, err := mpi.PrecvInit(in, recvParts, left, 7, w)
	if err != nil {
		return err
	}
	for round := range 4 {
		for i := range out {
			out[i] = float64(w.Rank()*1e6 + round*1e4 + i)
		}
		if err := mpi.Startall(r, s); err != nil {
			return err
		}
		if err := readyShuffled(s, sendParts, round); err != nil {
			return err
		}
		if err := watchArrivals(r, recvParts); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		st, err := r.Wait()
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if _, err := s.Wait(); err != nil {
			return fmt.Errorf("round %d: send: %w", round, err)
		}
		if st.Source != left || st.Tag != 7 || mpi.GetCount[float64](st) != elems {
			return fmt.Errorf("round %d: status source %d tag %d count %d, want %d, 7, %d", round, st.Source, st.Tag, mpi.GetCount[float64](st), left, elems)
		}
		for i, v := range in {
			if want := float64(left*1e6 + round*1e4 + i); v != want {
				return fmt.Errorf("round %d: element %d is %v, want %v", round, i, v, want)
			}
		}
	}
	return errors.Join(s.Free(), r.Free())
}

// readyShuffled marks the parts of s ready from three goroutines, in an
// order that changes with the round (backwards from a rotation), through
// Pready, PreadyList and PreadyRange.
func readyShuffled(s mpi.Request, parts, round int) error {
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for g := range 3 {
		var mine []int
		for i := g; i < parts; i += 3 {
			mine = append(mine, (parts-1-i+round)%parts)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch g {
			case 0:
				for _, p := range mine {
					errs[g] = errors.Join(errs[g], s.Pready(p))
				}
			case 1:
				errs[g] = s.PreadyList(mine...)
			case 2:
				for _, p := range mine {
					errs[g] = errors.Join(errs[g], s.PreadyRange(p, p))
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// watchArrivals polls every partition of r until all have arrived; a
// partition seen arrived must stay so.
func watchArrivals(r mpi.Request, parts int) error {
	seen := make([]bool, parts)
	for left := parts; left > 0; {
		for p := range parts {
			ok, err := r.Parrived(p)
			if err != nil {
				return err
			}
			if seen[p] && !ok {
				return fmt.Errorf("partition %d arrived, then had not", p)
			}
			if ok && !seen[p] {
				seen[p] = true
				left--
			}
		}
	}
	return nil
}

// partStructs sends padded records, 4 partitions of 6 against 3 of 8.
func partStructs(w mpi.Comm, right, left int) error {
	out, in := make([]partRecord, 24), make([]partRecord, 24)
	for i := range out {
		out[i] = partRecord{X: float64(w.Rank()) + float64(i)/100, N: int32(w.Rank()*100 + i)}
	}
	s, err := mpi.PsendInit(out, 4, right, 8, w)
	if err != nil {
		return err
	}
	r, err := mpi.PrecvInit(in, 3, left, 8, w)
	if err != nil {
		return err
	}
	if err := mpi.Startall(s, r); err != nil {
		return err
	}
	if err := s.PreadyRange(0, 3); err != nil {
		return err
	}
	if err := mpi.WaitAll(s, r); err != nil {
		return fmt.Errorf("records: %w", err)
	}
	for i, v := range in {
		if want := (partRecord{X: float64(left) + float64(i)/100, N: int32(left*100 + i)}); v != want {
			return fmt.Errorf("record %d is %+v, want %+v", i, v, want)
		}
	}
	return errors.Join(s.Free(), r.Free())
}

// partOrder: two sends of tag 9 match the receives of tag 9 in the order
// of their Init calls though they start the other way round; a send of
// tag 10 made before them matches the receive of tag 10 made after.
func partOrder(w mpi.Comm, right, left int) error {
	bufs := make([][]int32, 6)
	for i := range bufs {
		bufs[i] = make([]int32, 8)
		if i < 3 {
			for k := range bufs[i] {
				bufs[i][k] = int32(w.Rank()*100 + i*10 + k)
			}
		}
	}
	var reqs [6]mpi.Request
	var err error
	mk := func(i int, f func() (mpi.Request, error)) {
		if err == nil {
			reqs[i], err = f()
		}
	}
	mk(0, func() (mpi.Request, error) { return mpi.PsendInit(bufs[0], 2, right, 10, w) })
	mk(1, func() (mpi.Request, error) { return mpi.PsendInit(bufs[1], 4, right, 9, w) })
	mk(2, func() (mpi.Request, error) { return mpi.PsendInit(bufs[2], 8, right, 9, w) })
	mk(3, func() (mpi.Request, error) { return mpi.PrecvInit(bufs[3], 1, left, 9, w) })
	mk(4, func() (mpi.Request, error) { return mpi.PrecvInit(bufs[4], 2, left, 9, w) })
	mk(5, func() (mpi.Request, error) { return mpi.PrecvInit(bufs[5], 8, left, 10, w) })
	if err != nil {
		return err
	}
	for _, i := range []int{5, 4, 3, 2, 1, 0} {
		if err := reqs[i].Start(); err != nil {
			return err
		}
	}
	for i, parts := range []int{2, 4, 8} {
		if err := reqs[i].PreadyRange(0, parts-1); err != nil {
			return err
		}
	}
	if err := mpi.WaitAll(reqs[:]...); err != nil {
		return fmt.Errorf("order: %w", err)
	}
	for got, from := range map[int]int{3: 1, 4: 2, 5: 0} {
		for k, v := range bufs[got] {
			if want := int32(left*100 + from*10 + k); v != want {
				return fmt.Errorf("receive %d took element %d = %d, want %d (from send %d)", got-3, k, v, want, from)
			}
		}
	}
	for _, r := range reqs {
		if err := r.Free(); err != nil {
			return err
		}
	}
	return nil
}

// partProcNull: a partitioned send to ProcNull and receive from it
// complete at once; the receive's status is ProcNull's.
func partProcNull(w mpi.Comm) error {
	buf := make([]byte, 8)
	s, err := mpi.PsendInit(buf, 2, mpi.ProcNull, 1, w)
	if err != nil {
		return err
	}
	r, err := mpi.PrecvInit(buf, 4, mpi.ProcNull, 1, w)
	if err != nil {
		return err
	}
	if err := mpi.Startall(s, r); err != nil {
		return err
	}
	if err := s.PreadyList(1, 0); err != nil {
		return err
	}
	if ok, err := r.Parrived(3); !ok || err != nil {
		return fmt.Errorf("parrived from ProcNull: %v, %v", ok, err)
	}
	st, err := r.Wait()
	if err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("receive from ProcNull: source %d, %v", st.Source, err)
	}
	if _, err := s.Wait(); err != nil {
		return err
	}
	return errors.Join(s.Free(), r.Free())
}

// partitionedErrors: wrong calls fail with the class MPI gives and say
// what is allowed; a receive whose sender sends more bytes fails with
// ErrTruncate on 2 ranks.
func partitionedErrors(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	peer := 1 - w.Rank()
	buf := make([]int64, 8)
	want := func(what string, err, class error) error {
		if !errors.Is(err, class) || errors.Is(err, mpi.ErrOther) {
			return fmt.Errorf("%s: %v, want %v alone", what, err, class)
		}
		return nil
	}
	if ok, err := (mpi.Request{}).Parrived(0); !ok || err != nil {
		return fmt.Errorf("parrived on the zero Request: %v, %v (want true, as on MPI_REQUEST_NULL)", ok, err)
	}
	_, err := mpi.PrecvInit(buf, 2, mpi.AnySource, 1, w)
	if e := want("precv from AnySource", err, mpi.ErrArg); e != nil {
		return e
	}
	_, err = mpi.PsendInit(buf, 3, peer, 1, w)
	if e := want("8 elements in 3 partitions", err, mpi.ErrCount); e != nil {
		return e
	}
	if w.Rank() == 0 {
		s, err := mpi.PsendInit(buf, 4, peer, 2, w)
		if err != nil {
			return err
		}
		if e := want("pready before start", s.Pready(0), mpi.ErrRequest); e != nil {
			return e
		}
		if _, err := s.Parrived(0); want("parrived on a send", err, mpi.ErrRequest) != nil {
			return fmt.Errorf("parrived on a send: %v", err)
		}
		if err := s.Start(); err != nil {
			return err
		}
		if e := want("free while active", s.Free(), mpi.ErrRequest); e != nil {
			return e
		}
		if e := want("partition 4 of 4", s.Pready(4), mpi.ErrArg); e != nil {
			return e
		}
		// A refused list sends none of its partitions: 1 is still
		// not ready below.
		if e := want("a list with partition 9 of 4", s.PreadyList(1, 9), mpi.ErrArg); e != nil {
			return e
		}
		if e := want("a list naming 1 twice", s.PreadyList(1, 1), mpi.ErrArg); e != nil {
			return e
		}
		if e := want("a range past the end", s.PreadyRange(1, 4), mpi.ErrArg); e != nil {
			return e
		}
		if err := s.PreadyRange(0, 3); err != nil {
			return err
		}
		if e := want("pready twice", s.Pready(2), mpi.ErrRequest); e != nil {
			return e
		}
		if _, err := s.Wait(); err != nil {
			return err
		}
		return s.Free()
	}
	r, err := mpi.PrecvInit(buf[:4], 2, peer, 2, w)
	if err != nil {
		return err
	}
	if err := r.Start(); err != nil {
		return err
	}
	_, err = r.Wait()
	if e := want("a receive of 32 bytes from a send of 64", err, mpi.ErrTruncate); e != nil {
		return e
	}
	return r.Free()
}
