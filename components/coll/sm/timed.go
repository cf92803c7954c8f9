package sm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/gompi/gompi/frameworks/coll"
)

// The timed path of large calls.
// Through the segment, every line of a contribution is written anew and
// crosses to the other CPUs' caches; as tuned's messages, btl sm copies
// it inline or, from its single-copy threshold, reads the send buffer
// with one cross-memory copy (two CPUs copying from 256 KiB on), which
// finds a buffer unchanged since the call before still in the reader's
// cache. Which is faster depends on the machine's state, not on the code:
// the same builds, minutes apart, had the segment at 0.3-0.9 of the
// messages' time at 128 KiB-1 MiB on 2 ranks and at 1.2-1.6 at 64-256
// KiB (docs/performance.md), and when the two CPUs are far apart (an
// 8-byte ping-pong at 0.38 us instead of 0.17) an allgather of 8-32 KiB
// through the segment took 1.4-3.1 times Open MPI's time where near CPUs
// had it at 0.7-1.0, and alltoall on 4 ranks at 32-128 KiB 1.6-2.6 where
// near CPUs had it at 0.6-0.7. So a bcast, allgather or alltoall (a
// reduce only on 2 ranks: on more, tuned's tree associates the operands
// otherwise than the segment's fold, and the result could change with
// the path) times both paths and takes the faster, per collective and
// size class: a trial makes a run of calls on each path (not
// alternating: a call after one on the other path finds the caches as
// that path left them, which made the segment look faster and the
// messages slower than either is call after call), every rank then gives
// the others its median call on each through the segment, and all take
// the path whose medians add up to less (OSU's figure is the mean of the
// ranks' times: a bcast's root, which only writes, counts as much as a
// rank that waits). All ranks make their trials at the same calls and
// decide from the same figures, so they always take the same path.
// coll_sm_path fixes the path instead.
//
// A trial costs its slower path's calls and a swap, which a program
// that makes a few dozen calls of a class pays on every one of them: at
// the first calls, 4 ranks' allgather of 16 KiB took 60-300 us a call
// through tuned against 25-50 through the segment, and 20 calls with a
// trial among them 2.4-2.7 times Open MPI's time. A class's first calls
// therefore take the path that firstPath names, and its first trial
// comes after trialFrom calls.

// Path modes (coll_sm_path).
const (
	modeTimed   = "timed"
	modeSegment = "segment"
	modeNext    = "next"
)

const (
	// pairMin is the smallest call that the rule serves on 2 ranks, and
	// manyMin on more: below them the segment was the faster in every
	// state measured (on more ranks, which share CPUs here, a trial's calls
	// through tuned took 3-6 times the segment's at 2-8 KiB).
	pairMin = 2 << 10
	manyMin = 16 << 10
	// sizeClasses are the size classes timed apart, each a power of two
	// wide: 2 KiB, 4 KiB, ..., 8 MiB and above.
	sizeClasses = 13
	// trialCalls is how many calls in a row a trial makes on each path; the
	// first of each run is not counted (it finds the other path's state).
	trialCalls = 4
	// trialFrom is the call of a class at which its first trial begins:
	// past the first 100 calls, which a program that calls a collective a
	// few dozen times makes all on firstPath's path, and before OSU's 200
	// warm-up calls of a small size end (its 110 calls of a size above 8
	// KiB all take firstPath's path).
	trialFrom = 128
	// trialPeriod is how many calls of a class pass between trials, so
	// that a run whose machine changes state follows it: a trial's slower
	// calls cost a run 1/256 of the difference.
	trialPeriod = 1024
	// pairBcastNextMin is the smallest bcast that goes to the next
	// component before the first trial on 2 ranks; every other call goes
	// through the segment. The segment took 0.5-0.97 of the time of tuned's
	// messages (each one read by its receiver) for alltoall, allgather and
	// reduce at 32 KiB-1 MiB, and for bcast up to 256 KiB, whether a line
	// crossed between the CPUs in 100 ns or in 500; a bcast of 1 MiB took
	// 1.4-1.6 times as long with far CPUs. On more ranks, which share
	// CPUs here, tuned's first calls took 3-10 times the segment's; where
	// far CPUs make the segment the slower (alltoall on 4 ranks from 32
	// KiB), the trials find it.
	pairBcastNextMin = 512 << 10
)

// timedCalls are the collectives that the rule serves, by index.
// allreduce is not among them: the segment was the faster at every size
// in every state measured. A reduce is, on 2 ranks, when its result does
// not depend on the path (see module.reduce).
var timedCalls = [...]string{"bcast", "reduce", "allgather", "alltoall"}

// pathTimer is the timing of one collective's calls of one size class.
type pathTimer struct {
	calls int                              // calls of the class so far
	took  [2][trialCalls - 1]time.Duration // this rank's counted calls by path (segment, next)
	use   int                              // the path the last trial chose; 0 before the first
}

// timedCall is one call on a timed path: its path and, during a
// trial, the timer that counts it in its slot.
type timedCall struct {
	path  int
	timer *pathTimer
	slot  int
	start time.Time
}

// untimed reports whether a call of size bytes a rank is too small for
// the timed path, or the blocks too small for rounds: its path follows
// from its size alone.
func (m *module) untimed(size int) bool {
	least := pairMin
	if m.n > 2 {
		least = manyMin
	}
	return size < least || m.limit < m.n*line
}

// timedPath returns the path of a call of collective name of size bytes,
// with the timer of a counted trial call; path 0 where the rule does not
// apply: a call that cannot go through the segment (segmentOK false), a
// small call, a reduce on more than 2 ranks, blocks too small for rounds.
// At the end of a trial it swaps this rank's figures with the others'
// through the segment. A call that is not counted (a non-blocking or
// persistent call's: see route) takes the class's path and leaves its
// count alone.
func (m *module) timedPath(name string, size int, segmentOK, counted bool) (timedCall, error) {
	if !segmentOK || name == "reduce" && m.n != 2 || m.untimed(size) {
		return timedCall{}, nil
	}
	switch m.pathMode {
	case modeSegment:
		return timedCall{path: pathSegment}, nil
	case modeNext:
		return timedCall{path: pathNext}, nil
	}
	if m.pathTimers == nil {
		m.pathTimers = new([len(timedCalls)][sizeClasses]pathTimer)
	}
	t := &m.pathTimers[timedIndex(name)][sizeClass(size)]
	if !counted {
		if t.use != 0 {
			return timedCall{path: t.use}, nil
		}
		return timedCall{path: firstPath(name, m.n, size)}, nil
	}
	k := t.calls
	t.calls++
	j := (k - trialFrom) % trialPeriod
	switch {
	case k < trialFrom:
		return timedCall{path: firstPath(name, m.n, size)}, nil
	case j < 2*trialCalls:
		c := timedCall{path: pathSegment + j/trialCalls}
		if j%trialCalls != 0 {
			c.timer, c.slot, c.start = t, j%trialCalls-1, time.Now()
		}
		return c, nil
	case j > 2*trialCalls:
		return timedCall{path: t.use}, nil
	}
	// The call after the trial: swap, decide, go.
	mine := [2]time.Duration{median(t.took[0][:]), median(t.took[1][:])}
	seg, next, err := m.swapMedians(mine)
	if err != nil {
		return timedCall{}, err
	}
	t.use = pathSegment
	if next < seg {
		t.use = pathNext
	}
	m.log.Debug("timed both paths of a collective", "collective", name, "from_bytes", sizeClassMin(size),
		"segment", seg, "next", next, "path", pathNames[t.use])
	return timedCall{path: t.use}, nil
}

// counts reports whether a call on comm counts for its class's trials:
// whether it is blocking (coll.NonBlocking).
func counts(comm coll.Comm) bool {
	nb, ok := comm.(coll.NonBlocking)
	return !ok || !nb.NonBlocking()
}

// firstPath is the path of a class's calls of collective name before its
// first trial, by the rank count and the call's size (see
// pairBcastNextMin).
func firstPath(name string, n, size int) int {
	if name == "bcast" && n == 2 && size >= pairBcastNextMin {
		return pathNext
	}
	return pathSegment
}

// route decides where a call of collective name of total bytes a rank
// makes on comm goes: whether it takes several rounds, and its path,
// timed (path) where timed allows it, else the next component's when the
// blocks are too small for rounds that pay (roundsPay), else the
// segment's. A call that serves a non-blocking or persistent collective
// (coll.NonBlocking) counts for no trial: its time holds the program's
// work since the start (doc.go).
func (m *module) route(comm coll.Comm, name string, total int, timed bool) (multi bool, c timedCall, err error) {
	multi = !m.fits(total)
	toNext := multi && !m.roundsPay(name, total)
	if timed {
		// The type assertion only where the rule may apply: off the small
		// calls' path.
		counted := m.untimed(total) || counts(comm)
		if c, err = m.timedPath(name, total, !toNext, counted); err != nil {
			return multi, c, err
		}
	}
	if c.path == 0 {
		c.path = pathSegment
		if toNext {
			c.path = pathNext
		}
	}
	return multi, c, nil
}

// done counts a trial call, which took path c.path, and returns its
// error. A failed call counts as the slowest.
func (c timedCall) done(err error) error {
	if t := c.timer; t != nil {
		d := time.Duration(math.MaxInt64)
		if err == nil {
			d = time.Since(c.start)
		}
		t.took[c.path-pathSegment][c.slot] = d
	}
	return err
}

// median is the median of a trial's counted calls on one path; it sorts
// them.
func median(took []time.Duration) time.Duration {
	slices.Sort(took)
	n := len(took)
	if n%2 == 1 {
		return took[n/2]
	}
	return took[n/2-1] + (took[n/2]-took[n/2-1])/2
}

// swapMedians gives the other ranks this rank's median call on each path
// and returns every rank's added up: a call of its own through the
// segment, which all ranks make at the same point of their calls.
func (m *module) swapMedians(mine [2]time.Duration) (seg, next time.Duration, err error) {
	const name, size = "path timing", 16
	var b [size]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(mine[0]))
	binary.LittleEndian.PutUint64(b[8:], uint64(mine[1]))
	m.announce(name, noRoot, size, pathSegment)
	p, err := m.contribute(name, size, b[:], false)
	if err != nil {
		return 0, 0, m.fail(fmt.Errorf("%s: %w", name, err))
	}
	// Every rank adds the same figures in the same order.
	for r := range m.n {
		data := b[:]
		if r != m.me {
			if data, err = m.read(r, p, size, size); err != nil {
				return 0, 0, m.fail(fmt.Errorf("%s: %w", name, err))
			}
		}
		seg = addSat(seg, time.Duration(binary.LittleEndian.Uint64(data[:8])))
		next = addSat(next, time.Duration(binary.LittleEndian.Uint64(data[8:])))
	}
	return seg, next, nil
}

// addSat adds two durations, an untimed path's maximum staying the maximum.
func addSat(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func timedIndex(name string) int {
	for i, n := range timedCalls {
		if n == name {
			return i
		}
	}
	panic(fmt.Sprintf("coll sm: %s has no timed path", name))
}

// sizeClass is the size class of a call of size bytes, at least pairMin.
func sizeClass(size int) int {
	return min(bits.Len(uint(size))-bits.Len(uint(pairMin)), sizeClasses-1)
}

// sizeClassMin is the smallest size of size's class.
func sizeClassMin(size int) int { return pairMin << sizeClass(size) }
