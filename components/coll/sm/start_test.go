package sm

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// startFirst is tab as pmpi drives it for non-blocking calls: each call
// of a collective with a Start function is offered to it first, and one
// that it started is finished by the blocking function after yields()
// yields, so that the others' calls interleave with it. *started is set
// when a Start function did part or all of a call.
func startFirst(tab *coll.Table, yields func() int, started *bool) *coll.Table {
	st := *tab
	s := tab.Start()
	finish := func(err error, rest func() error) error {
		switch {
		case errors.Is(err, coll.ErrStarted):
			*started = true
			for range yields() {
				runtime.Gosched()
			}
			return rest()
		case errors.Is(err, coll.ErrNotStarted):
			return rest()
		case err == nil:
			*started = true
		}
		return err
	}
	st.Barrier = func(c coll.Comm) error {
		return finish(s.Barrier(c), func() error { return tab.Barrier(c) })
	}
	st.Bcast = func(c coll.Comm, buf []byte, root int) error {
		return finish(s.Bcast(c, buf, root), func() error { return tab.Bcast(c, buf, root) })
	}
	st.Reduce = func(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
		return finish(s.Reduce(c, send, recv, op, root), func() error { return tab.Reduce(c, send, recv, op, root) })
	}
	st.Gather = func(c coll.Comm, send, recv []byte, root int) error {
		return finish(s.Gather(c, send, recv, root), func() error { return tab.Gather(c, send, recv, root) })
	}
	st.Scatter = func(c coll.Comm, send, recv []byte, root int) error {
		return finish(s.Scatter(c, send, recv, root), func() error { return tab.Scatter(c, send, recv, root) })
	}
	st.Allgather = func(c coll.Comm, send, recv []byte) error {
		return finish(s.Allgather(c, send, recv), func() error { return tab.Allgather(c, send, recv) })
	}
	st.Allreduce = func(c coll.Comm, send, recv []byte, op coll.Op) error {
		return finish(s.Allreduce(c, send, recv, op), func() error { return tab.Allreduce(c, send, recv, op) })
	}
	st.Alltoall = func(c coll.Comm, send, recv []byte) error {
		return finish(s.Alltoall(c, send, recv), func() error { return tab.Alltoall(c, send, recv) })
	}
	return &st
}

// TestStartedCalls runs the mixed sequence of TestManyEpochs with every
// call of a collective that sm can start offered to its Start first, as
// non-blocking calls are, and finished after a varying number of yields;
// then the same with blocks of 64 KiB, whose calls of 2 KiB or more (16
// KiB on more than 2 ranks) are of timed classes, on communicators that
// say they serve requests, as pmpi's for non-blocking calls do.
func TestStartedCalls(t *testing.T) {
	for _, tc := range []struct {
		n              int
		oversubscribed bool
		blocks         int // 0: TestManyEpochs's world
	}{{2, false, 0}, {3, false, 0}, {4, true, 0}, {5, false, 0}, {2, false, 64 << 10}, {3, false, 64 << 10}} {
		t.Run(fmt.Sprintf("n%d/oversubscribed=%v/blocks=%d", tc.n, tc.oversubscribed, tc.blocks), func(t *testing.T) {
			var w *world
			var calls []call
			if tc.blocks == 0 {
				w, calls = epochsWorld(t, tc.n, tc.oversubscribed)
			} else {
				w = newWorld(t, tc.n)
				w.build(t, w.host(), func(int) config { return config{maxBytes: tc.blocks, maxRanks: 16, dir: w.dir} })
				least := pairMin
				if tc.n > 2 {
					least = manyMin
				}
				calls = append(sequence(tc.n, tc.blocks, 60), call{k: kBarrier}, call{k: kAllgather, size: least, seed: 60})
				for _, c := range w.comms {
					c.nonBlocking.Store(true)
				}
			}
			w.run(t, func(r int, c *testComm) error {
				x := uint32(r + 1)
				var started bool
				tab := startFirst(w.tables[r], func() int {
					x = x*1664525 + 1013904223
					return int(x>>24) % 8
				}, &started)
				// As runCalls: a rank that fails goes on, so that the
				// next module's messages still match.
				var first error
				for i, call := range calls {
					started = false
					if err := call.do(tab, c, r, tc.n); err != nil && first == nil {
						first = fmt.Errorf("call %d (%v): %w", i, call, err)
						w.abort.Store(true)
					}
				}
				// The last call, after a barrier, finds its block free.
				if tc.blocks > 0 && !started && first == nil {
					first = fmt.Errorf("the allgather of %d bytes after a barrier (a timed class) did not start early", calls[len(calls)-1].size)
				}
				return first
			})
		})
	}
}

// TestStartOutcomes checks what each Start function does on 2 ranks with
// the ranks' starts in a fixed order: the first to start an allreduce,
// alltoall, allgather or barrier, or a reduce's or gather's root, writes
// its block and leaves the call to its blocking function; the second
// finds every block written and completes the call at its start, as a
// rank that only writes (not a reduce's or gather's root) does anyway; a bcast's root completes at its start, and so
// does the other rank once the root's block is there, but not before; a
// root whose last block is unread cannot write again.
func TestStartOutcomes(t *testing.T) {
	w := newWorld(t, 2)
	w.buildSm(t, 64)
	op := colltest.SumCase
	in := colltest.Inputs(2, func(q int) []byte { return op.Input(7, q, 4) })
	sum := colltest.Fold(op.Op, in)
	a2aIn := colltest.Inputs(2, func(q int) []byte { return colltest.Data(8, q, 2*6) })
	a2aWant := func(r int) []byte { return append(bytes.Clone(a2aIn[0][r*6:(r+1)*6]), a2aIn[1][r*6:(r+1)*6]...) }
	bc := colltest.Data(9, 0, 24)
	// turn[r] is sent to rank r by the other, buffered and closed by the
	// sender as it returns, so that a rank that fails leaves none waiting.
	turn := []chan struct{}{make(chan struct{}, 8), make(chan struct{}, 8)}
	expect := func(what string, got, want error) error {
		if !errors.Is(got, want) { // nil matches nil
			return fmt.Errorf("%s: start returned %v, want %v", what, got, want)
		}
		return nil
	}
	w.run(t, func(r int, c *testComm) error {
		defer close(turn[1-r])
		tab := w.tables[r]
		s := tab.Start()
		// Rank 0 starts each call first, rank 1 after it. Rank 0's call,
		// begun, is ready (coll.Module.Ready) once rank 1 has started.
		first := func(what string, start func() error) error {
			if r == 1 {
				<-turn[1]
			}
			want := coll.ErrStarted
			if r == 1 {
				want = nil
			}
			err := expect(what, start(), want)
			if r == 1 {
				turn[0] <- struct{}{}
				return err
			}
			kind := slices.Index(coll.Collectives, strings.Fields(what)[0])
			if err == nil && tab.Ready(kind) {
				err = fmt.Errorf("%s: ready before rank 1 started", what)
			}
			turn[1] <- struct{}{}
			<-turn[0]
			if err == nil && !tab.Ready(kind) {
				err = fmt.Errorf("%s: not ready once rank 1 started", what)
			}
			return err
		}
		recv, red := make([]byte, 4*op.Op.ElemSize()), make([]byte, 4*op.Op.ElemSize())
		a2a, gath, all := make([]byte, 12), make([]byte, 2*24), make([]byte, 2*24)
		mine := colltest.Data(10, r, 24)
		gathered := append(colltest.Data(10, 0, 24), colltest.Data(10, 1, 24)...)
		for _, x := range []struct {
			name          string
			start, finish func() error
			got, want     []byte // rank 1's and rank 0's after the finish
		}{
			{"allreduce", func() error { return s.Allreduce(c, in[r], recv, op.Op) },
				func() error { return tab.Allreduce(c, in[r], recv, op.Op) }, recv, sum},
			{"reduce to rank 0", func() error { return s.Reduce(c, in[r], red, op.Op, 0) },
				func() error { return tab.Reduce(c, in[r], red, op.Op, 0) }, red, sum},
			{"alltoall", func() error { return s.Alltoall(c, a2aIn[r], a2a) },
				func() error { return tab.Alltoall(c, a2aIn[r], a2a) }, a2a, a2aWant(r)},
			{"gather to rank 0", func() error { return s.Gather(c, mine, gath, 0) },
				func() error { return tab.Gather(c, mine, gath, 0) }, gath, gathered},
			{"allgather", func() error { return s.Allgather(c, mine, all) },
				func() error { return tab.Allgather(c, mine, all) }, all, gathered},
			{"barrier", func() error { return s.Barrier(c) }, func() error { return tab.Barrier(c) }, nil, nil},
		} {
			if err := first(x.name, x.start); err != nil {
				return err
			}
			if r == 0 {
				if err := x.finish(); err != nil {
					return err
				}
			}
			if x.want != nil && (r == 0 || !strings.HasSuffix(x.name, "to rank 0")) {
				if err := colltest.ExpectEqual(x.got, x.want, x.name, r); err != nil {
					return err
				}
			}
		}
		// bcast: rank 1 starts before the root has written, then after.
		buf := make([]byte, len(bc))
		if r == 0 {
			copy(buf, bc)
			<-turn[0]
			if err := expect("bcast at the root", s.Bcast(c, buf, 0), nil); err != nil {
				return err
			}
			// Rank 1 has not read the root's block: no second write yet.
			if err := expect("second bcast at the root", s.Bcast(c, buf, 0), coll.ErrNotStarted); err != nil {
				return err
			}
			turn[1] <- struct{}{}
			return tab.Bcast(c, buf, 0)
		}
		if err := expect("bcast before the root's", s.Bcast(c, buf, 0), coll.ErrNotStarted); err != nil {
			return err
		}
		turn[0] <- struct{}{}
		<-turn[1]
		if err := expect("bcast after the root's", s.Bcast(c, buf, 0), nil); err != nil {
			return err
		}
		if err := colltest.ExpectEqual(buf, bc, "bcast", r); err != nil {
			return err
		}
		clear(buf)
		if err := tab.Bcast(c, buf, 0); err != nil {
			return err
		}
		return colltest.ExpectEqual(buf, bc, "second bcast", r)
	})
}

// TestStartableTimed: a call of a timed class starts early when the
// class's current path is the segment, before its first trial (firstPath)
// or after one that chose it, and never when the path is the next
// component's; starting counts no call of the class.
func TestStartableTimed(t *testing.T) {
	m := &module{n: 2, limit: 1 << 20, pathMode: modeTimed, seg: &segment{}}
	for _, tc := range []struct {
		name string
		size int
		want bool
	}{
		{"allgather", pairMin, true},           // firstPath: the segment
		{"bcast", pairBcastNextMin, false},     // firstPath: the next component
		{"bcast", pairMin - 1, true},           // untimed
		{"allreduce", 1 << 20, true},           // never timed
		{"alltoall", 1<<20 + 1, false},         // more than a round
		{"reduce", pairBcastNextMin / 2, true}, // 2 ranks: timed, the segment first
	} {
		if got := m.startable(tc.name, tc.size); got != tc.want {
			t.Errorf("%s of %d bytes: startable %v, want %v", tc.name, tc.size, got, tc.want)
		}
	}
	timer := &m.pathTimers[timedIndex("allgather")][sizeClass(pairMin)]
	if timer.calls != 0 {
		t.Fatalf("starting counted %d calls of the class", timer.calls)
	}
	timer.use = pathNext // a trial chose the next component
	if m.startable("allgather", pairMin) {
		t.Error("an allgather whose class takes the next component's path starts on the segment")
	}
	timer.use = pathSegment
	if !m.startable("allgather", pairMin) {
		t.Error("an allgather whose class took the segment after its trial does not start")
	}
	m.pathMode = modeNext
	if m.startable("allgather", pairMin) {
		t.Error("coll_sm_path next: an allgather starts on the segment")
	}
}

// TestStartBarrierOversubscribed: on an oversubscribed host rank 0 raises
// its word of a barrier last. Rank 1, starting first, raises its own and
// is begun, not ready; rank 0 then finds every other word raised and
// completes the barrier at its start, which makes rank 1's ready.
func TestStartBarrierOversubscribed(t *testing.T) {
	w := newWorld(t, 2)
	host := w.host()
	host.Oversubscribed = true
	w.build(t, host, func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: w.dir} })
	barrier := slices.Index(coll.Collectives, "barrier")
	turn := []chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}
	w.run(t, func(r int, c *testComm) error {
		defer close(turn[1-r])
		tab := w.tables[r]
		// Calls that set the segment up first, as the module's first calls.
		for range 300 {
			if err := tab.Barrier(c); err != nil {
				return err
			}
		}
		if r == 0 {
			<-turn[0]
			if err := tab.Start().Barrier(c); err != nil {
				return fmt.Errorf("rank 0's start, after rank 1's: %v, want the barrier done", err)
			}
			turn[1] <- struct{}{}
			return nil
		}
		if err := tab.Start().Barrier(c); !errors.Is(err, coll.ErrStarted) {
			return fmt.Errorf("rank 1's start, first: %v, want %v", err, coll.ErrStarted)
		}
		if tab.Ready(barrier) {
			return errors.New("rank 1's barrier is ready before rank 0 started")
		}
		turn[0] <- struct{}{}
		<-turn[1]
		if !tab.Ready(barrier) {
			return errors.New("rank 1's barrier is not ready once rank 0 completed it")
		}
		return tab.Barrier(c)
	})
}
