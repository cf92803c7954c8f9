package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/gompi/gompi/mpi"
)

// ssend: a synchronous send must not complete while its receiver has not
// posted the receive; rank 1 posts only when rank 0 says so.
func ssend(w mpi.Comm) error {
	switch w.Rank() {
	case 0:
		r, err := mpi.Issend([]int64{7}, 1, 3, w)
		if err != nil {
			return err
		}
		deadline := time.Now().Add(300 * time.Millisecond)
		for time.Now().Before(deadline) {
			if _, done, err := r.Test(); err != nil || done {
				return fmt.Errorf("synchronous send completed before the receive was posted (err %v)", err)
			}
			time.Sleep(time.Millisecond)
		}
		if err := mpi.Send([]byte("go"), 1, 4, w); err != nil {
			return err
		}
		_, err = r.Wait()
		return err
	case 1:
		if _, err := mpi.Recv(make([]byte, 2), 0, 4, w); err != nil {
			return err
		}
		buf := make([]int64, 1)
		if _, err := mpi.Recv(buf, 0, 3, w); err != nil || buf[0] != 7 {
			return fmt.Errorf("recv: %v, got %d", err, buf[0])
		}
	}
	return nil
}

// eager: rank 0 sends windows of small messages with Isend to rank 1.
// Each Request is active until waited on, though the message has left;
// waiting on one twice is harmless, and every message arrives whole and in
// order, the last ones of a window too, which the transport may have held
// back until rank 0's next call.
func eager(w mpi.Comm) error {
	const window, rounds = 64, 3
	for round := range rounds {
		switch w.Rank() {
		case 0:
			reqs := make([]mpi.Request, window)
			for i := range window {
				out := make([]byte, i)
				pattern(out, uint64(round*window+i))
				r, err := mpi.Isend(out, 1, i, w)
				if err != nil {
					return err
				}
				if !r.Active() {
					return fmt.Errorf("round %d: the Isend of %d bytes is not active", round, i)
				}
				reqs[i] = r
			}
			first := reqs[0]
			for range 2 {
				if st, err := first.Wait(); err != nil || st.Cancelled {
					return fmt.Errorf("wait on a completed eager send: %+v, %v", st, err)
				}
			}
			if round < rounds-1 {
				if err := mpi.WaitAll(reqs...); err != nil {
					return err
				}
			} else {
				// WaitAny returns every send once, then Undefined. The first
				// was waited on above through a copy, which freed it.
				seen := make([]bool, window)
				for {
					i, _, err := mpi.WaitAny(reqs)
					if err != nil {
						return err
					}
					if i == mpi.Undefined {
						break
					}
					if i < 0 || i >= window || seen[i] || reqs[i] != (mpi.Request{}) {
						return fmt.Errorf("WaitAny returned send %d again, out of range or left in place", i)
					}
					seen[i] = true
				}
				for i, ok := range seen {
					if !ok && i > 0 {
						return fmt.Errorf("WaitAny never returned send %d", i)
					}
				}
				if seen[0] {
					return errors.New("WaitAny returned the send waited on before through a copy")
				}
			}
			for i, r := range reqs {
				if r.Active() {
					return fmt.Errorf("round %d: send %d active after it completed", round, i)
				}
			}
			if _, err := mpi.Recv(make([]byte, 1), 1, 1000, w); err != nil {
				return err
			}
		case 1:
			bufs, reqs := make([][]byte, window), make([]mpi.Request, window)
			for i := range window {
				bufs[i] = make([]byte, window)
				r, err := mpi.Irecv(bufs[i], 0, i, w)
				if err != nil {
					return err
				}
				reqs[i] = r
			}
			sts := make([]mpi.Status, window)
			if err := mpi.WaitAllStatus(reqs, sts); err != nil {
				return err
			}
			for i, st := range sts {
				if st.Source != 0 || st.Tag != i || st.Count != i {
					return fmt.Errorf("round %d, message %d: source %d, tag %d, count %d", round, i, st.Source, st.Tag, st.Count)
				}
				if err := checkPattern(bufs[i][:i], uint64(round*window+i)); err != nil {
					return fmt.Errorf("round %d: %w", round, err)
				}
			}
			if err := mpi.Send([]byte{1}, 0, 1000, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// complete: the calls that complete several requests (WaitSome, TestAny,
// TestAll, TestAllStatus) on receives of messages that rank 1 sends with
// Ssend, one round per call. Rank 1 sends only when rank 0 says so, so
// that rank 0's tests before then must find nothing done. Every rank
// first checks Wtick's resolution: above 0 and at most 1 us.
func complete(w mpi.Comm) error {
	if tick := mpi.Wtick(); !(tick > 0 && tick <= 1e-6) {
		return fmt.Errorf("wtick is %g s, want a resolution above 0 and at most 1 us", tick)
	}
	const n = 6
	rounds := []string{"waitsome", "testany", "testall", "testallstatus"}
	value := func(round, i int) int32 { return int32(100*round + i) }
	for round, how := range rounds {
		if w.Rank() == 1 {
			if _, err := mpi.Recv(make([]byte, 1), 0, 100+round, w); err != nil {
				return err
			}
			for i := n - 1; i >= 0; i-- { // against the order of the receives
				if err := mpi.Ssend([]int32{value(round, i)}, 0, i, w); err != nil {
					return fmt.Errorf("%s: ssend %d: %w", how, i, err)
				}
			}
			continue
		}
		if w.Rank() != 0 {
			continue
		}
		bufs, reqs := make([][]int32, n), make([]mpi.Request, n)
		for i := range n {
			bufs[i] = make([]int32, 1)
			r, err := mpi.Irecv(bufs[i], 1, i, w)
			if err != nil {
				return err
			}
			reqs[i] = r
		}
		// Nothing was sent yet: nothing may be complete.
		if i, _, found, err := mpi.TestAny(reqs); err != nil || found {
			return fmt.Errorf("%s: TestAny before any send: index %d, found %v, %v", how, i, found, err)
		}
		if done, err := mpi.TestAll(reqs...); err != nil || done {
			return fmt.Errorf("%s: TestAll before any send: %v, %v", how, done, err)
		}
		if done, err := mpi.TestAllStatus(reqs, make([]mpi.Status, n)); err != nil || done {
			return fmt.Errorf("%s: TestAllStatus before any send: %v, %v", how, done, err)
		}
		if err := mpi.Send([]byte{1}, 1, 100+round, w); err != nil {
			return err
		}
		sts := make([]mpi.Status, n)
		seen := make([]bool, n)
		statuses := how != "testall" // TestAll gives none
		take := func(i int, st mpi.Status) error {
			if i < 0 || i >= n || seen[i] {
				return fmt.Errorf("%s: index %d completed again or out of range", how, i)
			}
			if reqs[i].Active() {
				return fmt.Errorf("%s: request %d still active after it completed", how, i)
			}
			seen[i], sts[i] = true, st
			return nil
		}
		switch how {
		case "waitsome":
			idx, got := make([]int, len(reqs)), make([]mpi.Status, len(reqs))
			for {
				k, err := mpi.WaitSome(reqs, idx, got)
				if err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
				if k == mpi.Undefined {
					break // no active request left
				}
				for j, i := range idx[:k] {
					if err := take(i, got[j]); err != nil {
						return err
					}
				}
			}
		case "testany":
			for {
				i, st, found, err := mpi.TestAny(reqs)
				if err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
				if !found {
					continue
				}
				if i == mpi.Undefined {
					break // no active request left
				}
				if err := take(i, st); err != nil {
					return err
				}
			}
		case "testall":
			for done := false; !done; {
				var err error
				if done, err = mpi.TestAll(reqs...); err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
			}
			for i := range n {
				if err := take(i, mpi.Status{}); err != nil {
					return err
				}
			}
		case "testallstatus":
			got := make([]mpi.Status, n)
			for done := false; !done; {
				var err error
				if done, err = mpi.TestAllStatus(reqs, got); err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
			}
			for i := range n {
				if err := take(i, got[i]); err != nil {
					return err
				}
			}
		}
		for i := range n {
			if !seen[i] || bufs[i][0] != value(round, i) {
				return fmt.Errorf("%s: receive %d: seen %v, value %d; want value %d", how, i, seen[i], bufs[i][0], value(round, i))
			}
			if st := sts[i]; statuses && (st.Source != 1 || st.Tag != i || st.Count != 1) {
				return fmt.Errorf("%s: receive %d: source %d, tag %d, count %d; want source 1, tag %d, count 1",
					how, i, st.Source, st.Tag, st.Count, i)
			}
		}
		// Every request is inactive now: the calls say so.
		if k, err := mpi.WaitSome(reqs, make([]int, len(reqs)), nil); k != mpi.Undefined || err != nil {
			return fmt.Errorf("%s: WaitSome on inactive requests: %d, %v; want Undefined", how, k, err)
		}
		if i, _, found, err := mpi.TestAny(reqs); i != mpi.Undefined || !found || err != nil {
			return fmt.Errorf("%s: TestAny on inactive requests: index %d, found %v, %v", how, i, found, err)
		}
		if done, err := mpi.TestAll(reqs...); !done || err != nil {
			return fmt.Errorf("%s: TestAll on inactive requests: %v, %v", how, done, err)
		}
	}
	return nil
}
