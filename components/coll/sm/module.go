package sm

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

// module is one rank's view of a communicator's segment.
//
// Epochs: the calls that go through the segment are numbered epochs alike
// on every member: one per call, or per round of a call that goes in
// rounds, two per round of a split allreduce, one for the timed path's
// swap of timings. MPI has every member call a communicator's collectives
// in the same order, and what decides a call's path and rounds (its size,
// and the timed path's choice, made from the same figures on every
// member) is alike on every member. In epoch e a rank uses only its
// blocks of parity e&1, and it raises its block's epoch word to e once it
// has written its data, or, if it writes none, once it has read what it
// needed: a rank's word at e-1 therefore says it is done with epoch e-2.
// So before writing its block at epoch e, a rank waits until every member
// has raised a word to e-1; when the last call gathered from every member
// this is already known (seen) and costs nothing.
type module struct {
	seg    *segment
	comm   coll.Comm
	poller coll.Poller
	me, n  int
	yield  bool // the host is oversubscribed: waits give the CPU away at once

	limit int        // a block: the most one epoch carries of a rank's contribution
	w     shm.Writer // copies this rank's contributions into its blocks
	epoch uint64
	call  string   // the collective of the current epoch, for the state report
	seen  []uint64 // by rank: the highest epoch seen raised
	next  *coll.Module
	log   hclog.Logger

	// Announcements (announce.go): the collective calls on the
	// communicator, the current one, whether it is published, and by
	// parity the call each of the last two epochs belongs to.
	calls uint64
	cur   callInfo
	told  bool
	mine  [2]callInfo

	// The timed path (timed.go): coll_sm_path, and the timing of its
	// calls by collective and size class.
	pathMode   string
	pathTimers [len(timedCalls)][sizeClasses]pathTimer
}

func (m *module) collectives() *coll.Module {
	return &coll.Module{
		Barrier:   m.barrier,
		Bcast:     m.bcast,
		Reduce:    m.reduce,
		Allreduce: m.allreduce,
		Gather:    m.gather,
		Scatter:   m.scatter,
		Allgather: m.allgather,
		Alltoall:  m.alltoall,

		Allgatherv:         m.allgatherv,
		ReduceScatter:      m.reduceScatter,
		ReduceScatterBlock: m.reduceScatterBlock,
		Scan:               m.scan,
		Exscan:             m.exscan,

		Free:  m.seg.unmap,
		Below: m.below,
	}
}

// below keeps what the next modules provide, for the calls too large for
// the segment; a collective none of them provides fails those calls.
func (m *module) below(next *coll.Module) {
	none := func(name string) error {
		return m.fail(name, fmt.Errorf("more than coll_sm's limit (%d bytes, coll_sm_max_bytes or less) per rank and %w",
			m.limit, coll.ErrNoProvider))
	}
	if next.Bcast == nil {
		next.Bcast = func(coll.Comm, []byte, int) error { return none("bcast") }
	}
	if next.Reduce == nil {
		next.Reduce = func(coll.Comm, []byte, []byte, coll.Op, int) error { return none("reduce") }
	}
	if next.Allreduce == nil {
		next.Allreduce = func(coll.Comm, []byte, []byte, coll.Op) error { return none("allreduce") }
	}
	if next.Gather == nil {
		next.Gather = func(coll.Comm, []byte, []byte, int) error { return none("gather") }
	}
	if next.Scatter == nil {
		next.Scatter = func(coll.Comm, []byte, []byte, int) error { return none("scatter") }
	}
	if next.Allgather == nil {
		next.Allgather = func(coll.Comm, []byte, []byte) error { return none("allgather") }
	}
	if next.Alltoall == nil {
		next.Alltoall = func(coll.Comm, []byte, []byte) error { return none("alltoall") }
	}
	if next.Allgatherv == nil {
		next.Allgatherv = func(coll.Comm, []byte, []byte, []int, []int) error { return none("allgatherv") }
	}
	if next.ReduceScatter == nil {
		next.ReduceScatter = func(coll.Comm, []byte, []byte, []int, coll.Op) error { return none("reduce_scatter") }
	}
	if next.ReduceScatterBlock == nil {
		next.ReduceScatterBlock = func(coll.Comm, []byte, []byte, coll.Op) error { return none("reduce_scatter_block") }
	}
	if next.Scan == nil {
		next.Scan = func(coll.Comm, []byte, []byte, coll.Op) error { return none("scan") }
	}
	if next.Exscan == nil {
		next.Exscan = func(coll.Comm, []byte, []byte, coll.Op) error { return none("exscan") }
	}
	m.next = next
}

// begin starts the next epoch, a call of collective name, and returns its
// parity.
func (m *module) begin(name string) uint64 {
	m.call = name
	m.epoch++
	m.mine[m.epoch&1] = m.cur
	return m.epoch & 1
}

// raise publishes this rank's block of the epoch: its data, if any, was
// written before.
func (m *module) raise(p uint64) {
	epochWord(m.seg.block(m.me, p)).Store(m.epoch)
	m.seen[m.me] = m.epoch
	// The store above and a sleeper's count before its last look are a
	// Dekker pair (both sequentially consistent): a rank that looked
	// before the store is counted here.
	if sleepers, wake := m.seg.wakeLine(m.me); sleepers.Load() != 0 {
		wake.Add(1)
		wakeAll(wake)
	}
}

// pass raises this rank's word of parity p in a call where it read the
// root's block, a contribution of total bytes, and wrote none of its own
// (a bcast's or scatter's non-root); err is the read's. Its length word
// then says this rank's call and root, so that a rank that takes it for
// the root finds that the roots disagree: written only after a read that
// succeeded, which says that the root's write of this epoch waited until
// every member was done with the block's previous one. After an error
// this rank announces its call instead.
func (m *module) pass(p uint64, total int, err error) {
	if err == nil {
		*lenWord(m.seg.block(m.me, p)) = m.lengthWord(total)
	} else {
		m.tell()
	}
	m.raise(p)
}

// write copies data into this rank's block of parity p, once every member
// is done with what the block held two epochs ago. total is the size of
// the contribution data belongs to: data itself, or a piece of it when
// the call goes in rounds (rounds.go).
func (m *module) write(p uint64, total int, data []byte) error {
	b, err := m.claim(p, total)
	if err == nil {
		m.w.Copy(b, data) // lines the others read last time: the faster copy
	}
	return err
}

// claim waits until every member is done with what this rank's block of
// parity p held two epochs ago, and returns the block's data for this
// rank to fill; its length word says total.
func (m *module) claim(p uint64, total int) ([]byte, error) {
	return m.claimAs(p, m.lengthWord(total))
}

// claimAs is claim that writes length word w: a lengthWord, or a
// markWord in a call that carries no data.
func (m *module) claimAs(p uint64, w uint64) ([]byte, error) {
	if m.epoch > 2 {
		for r := range m.n {
			if err := m.await(r, m.epoch-1); err != nil {
				return nil, err
			}
		}
	}
	b := m.seg.block(m.me, p)
	*lenWord(b) = w
	return b[offData:], nil
}

// lengthWord is a block's length word for a contribution of total bytes
// to the current call: the length modulo 2 GiB, the call's root plus one
// (0: no root), and the call's number on the communicator (announce.go),
// so that a block left from an earlier call is never taken for this
// one's, nor a block written under another root for this root's.
func (m *module) lengthWord(total int) uint64 {
	return uint64(total)&lenMask | uint64(m.cur.root+1)<<lenBits | (m.calls&seqMask)<<(lenBits+rootBits)
}

const (
	lenBits  = 31
	lenMask  = 1<<lenBits - 1
	rootBits = 64 - seqBits - lenBits
	rootMask = 1<<rootBits - 1
)

// noData, in the root bits of a length word, marks the word of a call
// that carries no data (a barrier): its length bits hold the collective
// (callIndex), so that a rank in another collective in the same epoch
// can name it (markWord).
const noData = rootMask

// Every root plus one fits in the length word, below noData.
const _ uint = noData - 1 - maxMaxRanks

// markWord is a block's length word in a call of collective name that
// carries no data.
func (m *module) markWord(name string) uint64 {
	return uint64(callIndex(name)) | noData<<lenBits | (m.calls&seqMask)<<(lenBits+rootBits)
}

// otherCall is the error of rank r, whose length word w in this epoch is
// not the one this rank's call of collective mine expects, if w is the
// word of a call that carries no data (markWord) with this call's number,
// which it names; nil otherwise. (A word of another number is one left
// from an earlier call: it says nothing of where r is.)
func (m *module) otherCall(r int, w uint64, mine string) error {
	if int(w>>lenBits&rootMask) != noData || int(w&lenMask) >= len(callNames) || w>>(lenBits+rootBits) != m.calls&seqMask {
		return nil
	}
	return differentCalls(r, callNames[w&lenMask], mine, m.calls)
}

// lengthOf is the length that length word w gives, for a contribution of
// total bytes expected: the nearest to total of those that agree with
// w's bits.
func lengthOf(w uint64, total int) int {
	return total + int(int64((w-uint64(total))<<(64-lenBits))>>(64-lenBits))
}

// read waits for rank r's block of the current epoch and returns its
// first n bytes; the block must be of a contribution of total bytes (n
// of them when the call goes in rounds).
func (m *module) read(r int, p uint64, total, n int) ([]byte, error) {
	b := m.seg.block(r, p)
	var ahead []byte
	if !m.yield { // where ranks share CPUs, a look is followed by a context switch
		ahead = aheadOf(b, n)
	}
	if err := m.awaitLines(r, m.epoch, ahead); err != nil {
		return nil, err
	}
	if w := *lenWord(b); w != m.lengthWord(total) {
		// A member that went to the next component wrote no block.
		mine, theirs := m.mine[p], m.announcedBy(r)
		if theirs.since(mine.seq) == 0 && theirs.path != mine.path {
			return nil, disagree(r, theirs, mine)
		}
		if err := m.otherCall(r, w, mine.name); err != nil {
			return nil, err
		}
		if w>>(lenBits+rootBits) != m.calls&seqMask {
			// r raised its word without writing a block: after an error,
			// which it announced (pass), or in this call with a count
			// small enough for one round, where this rank's took several
			// (rounds.go).
			if theirs.since(mine.seq) == 0 && theirs.name == mine.name && theirs.otherRoot(mine) {
				return nil, rootsDisagree(r, theirs.root, mine)
			}
			return nil, fmt.Errorf("rank %d takes part in call %d on this communicator with a smaller count "+
				"than this rank's %d bytes: the ranks' counts disagree: %w", r, m.calls, total, coll.ErrTooShort)
		}
		if root := int(w>>lenBits&rootMask) - 1; root != mine.root {
			return nil, rootsDisagree(r, root, mine)
		}
		return nil, sameLength(r, lengthOf(w, total), total)
	}
	return b[offData : offData+n], nil
}

// sameLength checks that rank r's contribution of n bytes is the want
// bytes this rank expects.
func sameLength(r, n, want int) error {
	switch {
	case n > want:
		return fmt.Errorf("rank %d contributed %d bytes where this rank expects %d: %w", r, n, want, coll.ErrTooLong)
	case n < want:
		return fmt.Errorf("rank %d contributed %d bytes where this rank expects %d: %w", r, n, want, coll.ErrTooShort)
	}
	return nil
}

// Waiting: spin on the word, and every pollEvery loads let the engine
// progress (a peer may wait for this rank's point-to-point traffic) and
// learn of failed members; give the CPU away at once when the host is
// oversubscribed, after spinFor loads otherwise; once the wait has lasted
// sleepAfter, sleep until the rank waited for raises a word, napFor at
// most between polls. A rank asleep is one the scheduler runs as soon as
// it is woken, where one that spins or yields waits for its turn behind
// whatever else is running: under load, sleeping is what keeps a
// collective from costing scheduler slices.
const (
	pollEvery    = 64
	goschedEvery = pollEvery * 16
	spinFor      = 1 << 14
	sleepAfter   = time.Millisecond
	napFor       = time.Millisecond
	reportAfter  = 10 * time.Millisecond
)

// prefetchMax is the largest contribution whose lines past the first a
// reader prefetches while it waits for the epoch word: data written
// before the word then comes over while the word does, instead of after
// it. Two ranks with a CPU each, 4 alternating rounds, 64-256 B: bcast
// a third less time a call, reduce a quarter, allreduce, allgather and
// alltoall 3-14 %; with 1 KiB prefetched too (16 more lines at every
// look), allreduce of 1 KiB took 11 % more, the prefetches taking the
// lines away from the writer while it fills them.
const prefetchMax = 512

// aheadOf is what read prefetches of block b, which holds n bytes of
// data: the lines after the epoch word's own, or nil.
func aheadOf(b []byte, n int) []byte {
	if n <= line-offData || n > prefetchMax {
		return nil
	}
	return b[line : offData+n]
}

// await waits until rank r has raised a word to at least e. The word of
// parity e&1 is the one to watch: words only grow, and r's other word
// holds an epoch of the other parity.
func (m *module) await(r int, e uint64) error { return m.awaitLines(r, e, nil) }

// awaitLines is await that prefetches ahead at every look at the word.
func (m *module) awaitLines(r int, e uint64, ahead []byte) error {
	if m.seen[r] >= e {
		return nil
	}
	w := epochWord(m.seg.block(r, e&1))
	var start time.Time
	var blocked func()
	sleepy := false
	for i := 1; ; i++ {
		if v := w.Load(); v >= e {
			m.seen[r] = v
			if blocked != nil {
				blocked()
			}
			return nil
		}
		if ahead != nil {
			shm.Prefetch(ahead)
		}
		if i%pollEvery != 0 {
			continue
		}
		if err := m.poller.Poll(); err != nil {
			if blocked != nil {
				blocked()
			}
			return err
		}
		if i%(pollEvery*16) == 0 {
			m.tell()
			if err := m.mismatch(r, m.mine[e&1], func() bool { return w.Load() >= e }); err != nil {
				if blocked != nil {
					blocked()
				}
				return err
			}
		}
		// With one P (a rank bound to one CPU), the engine's background
		// transfers and the transports' goroutines run only when the
		// waiting goroutine yields, or when the runtime preempts it after
		// 10 ms. A spinning rank lets them every goschedEvery loads: this
		// loop loads one word, pollEvery loads take 0.1-0.3 us, and a
		// Gosched that often cost a 2-rank allreduce's fast calls a
		// quarter of their time.
		if m.yield || i%goschedEvery == 0 {
			runtime.Gosched()
		}
		switch {
		case sleepy:
			m.sleep(r, w, e)
			if blocked == nil && time.Since(start) > reportAfter {
				blocked = m.poller.Blocked(m.call, r)
			}
			continue
		case !m.yield && i < spinFor:
			continue
		case i%(pollEvery*16) == 0:
			if start.IsZero() {
				start = time.Now()
			} else {
				sleepy = time.Since(start) > sleepAfter
			}
		}
		yield()
	}
}

// sleep sleeps until rank r raises a word, napFor at most, unless w
// already holds e.
func (m *module) sleep(r int, w *atomic.Uint64, e uint64) {
	sleepers, wake := m.seg.wakeLine(r)
	sleepers.Add(1)
	v := wake.Load()
	if w.Load() < e {
		sleepOn(wake, v, napFor)
	}
	sleepers.Add(^uint32(0)) // minus one
}

// yield gives the CPU to another process; runtime.Gosched only yields to
// this process's goroutines.
func yield() { _, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// fail wraps an error of collective name.
func (m *module) fail(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("coll sm: %s on %s: %w", name, m.comm.Name(), err)
}

func (m *module) fits(n int) bool { return n <= m.limit }

// toNext sends a call of collective name of size bytes to the next
// component: a call too large for a block where rounds do not pay
// (roundsPay), or a call that its timed path sends there (timed.go).
func (m *module) toNext(name string, root, size int, next func() error) error {
	m.announce(name, root, size, pathNext)
	return next()
}

// barrier: every rank raises its word and waits for every other's. When
// the host is oversubscribed, rank 0 alone waits for every other rank and
// then raises its word, which the others wait for: rank 0 leaves first, so
// that what it does next (a bcast's write) is done before the others,
// which a context switch may keep away for microseconds, come to need it.
func (m *module) barrier(c coll.Comm) error {
	m.announce("barrier", noRoot, 0, pathSegment)
	return m.fail("barrier", m.sync("barrier"))
}

// sync is a barrier epoch of collective name. Its length word says the
// collective (markWord), and it checks every word it waited for the same
// way: a rank in another collective in this epoch fails the call on both
// sides instead of passing for a member of the barrier.
func (m *module) sync(name string) error {
	p := m.begin(name)
	if _, err := m.claimAs(p, m.markWord(name)); err != nil {
		return err
	}
	fanIn := m.yield && m.me == 0
	if m.yield && m.me != 0 {
		m.raise(p)
		return m.sameCall(0, p, name)
	}
	if !fanIn {
		m.raise(p)
	}
	for r := range m.n {
		if r == m.me {
			continue
		}
		if err := m.sameCall(r, p, name); err != nil {
			return err
		}
	}
	if fanIn {
		m.raise(p)
	}
	return nil
}

// sameCall waits for rank r's word of this epoch, of parity p, and checks
// that r is in the same call of collective name, which carries no data.
func (m *module) sameCall(r int, p uint64, name string) error {
	if err := m.await(r, m.epoch); err != nil {
		return err
	}
	w := *lenWord(m.seg.block(r, p))
	if w == m.markWord(name) {
		return nil
	}
	if err := m.otherCall(r, w, name); err != nil {
		return err
	}
	if w>>(lenBits+rootBits) == m.calls&seqMask {
		return fmt.Errorf("rank %d is in a collective that carries data (%d bytes from it) where this rank is in %s "+
			"(collective call %d on this communicator): the ranks call different collectives", r, w&lenMask, name, m.calls)
	}
	return fmt.Errorf("rank %d raised its word of this rank's %s, collective call %d on this communicator, in another call: "+
		"the ranks call different collectives", r, name, m.calls)
}

func (m *module) bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return m.fail("bcast", err)
	}
	total := len(buf)
	multi, pc, err := m.route("bcast", total, true)
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("bcast", root, total, func() error { return m.next.Bcast(c, buf, root) }))
	}
	m.announce("bcast", root, total, pathSegment)
	return pc.done(m.fail("bcast", inRounds(total, piece(m.limit, multi, total, 1), multi, func(lo, hi int, first bool) error {
		p := m.begin("bcast")
		if m.me == root {
			if err := m.write(p, total, buf[lo:hi]); err != nil {
				return err
			}
			m.raise(p)
			return m.agree(p, total, nil, first)
		}
		if first { // only to say its count (agree)
			if _, err := m.claim(p, total); err != nil {
				return err
			}
			m.raise(p)
			if err := m.agree(p, total, nil, first); err != nil {
				return err
			}
		}
		data, err := m.read(root, p, total, hi-lo)
		if err == nil {
			copy(buf[lo:hi], data)
		}
		if !first {
			m.pass(p, total, err) // even after a mismatch: the root's next write waits for it
		}
		return err
	})))
}

// allreduceSplit is a round of an allreduce that splits the reduction:
// every rank reduces its share (an n-th of the piece's elements) of
// every block, in rank order, into recv and into its block of a second
// epoch, then copies every other rank's share out of theirs. The flat
// round has every rank reduce the whole piece from every block: n times
// the reads and the operations, which ranks that share CPUs pay in full.
// The result is the same expression, element by element.
func (m *module) allreduceSplit(total int, mine, recv []byte, op coll.Op, first bool) error {
	p, err := m.contribute("allreduce", total, mine, first)
	if err != nil {
		return err
	}
	es, elems := op.ElemSize(), len(mine)/op.ElemSize()
	share := func(r int) (lo, hi int) { return r * elems / m.n * es, (r + 1) * elems / m.n * es }
	lo, hi := share(m.me)
	if err := m.combine(p, total, mine, recv[lo:hi], op, m.n-1, lo); err != nil {
		return err
	}
	q := m.begin("allreduce")
	b, err := m.claim(q, total)
	if err != nil {
		return err
	}
	m.w.Copy(b[lo:hi], recv[lo:hi]) // lines the others read two epochs ago
	m.raise(q)
	for r := range m.n {
		if r == m.me {
			continue
		}
		lo, hi := share(r)
		data, err := m.read(r, q, total, hi)
		if err != nil {
			return err
		}
		copy(recv[lo:hi], data[lo:hi])
	}
	return nil
}

// contribute writes data, bytes of a contribution of total bytes, as this
// rank's block of a new epoch, a call of collective name, and raises it;
// in a call's first round of several it then checks that every member's
// count is alike (agree).
func (m *module) contribute(name string, total int, data []byte, first bool) (uint64, error) {
	p := m.begin(name)
	if err := m.write(p, total, data); err != nil {
		return p, err
	}
	m.raise(p)
	return p, m.agree(p, total, nil, first)
}

// combine reduces bytes off to off+len(recv) of the blocks of ranks 0 to
// last into recv, in rank order: recv becomes b0 ⊕ b1 ⊕ ... ⊕ b(last),
// the same expression on every rank, so that a non-commutative operation
// gets its operands in order. mine is this rank's block, a contribution of
// total bytes or a piece of it.
func (m *module) combine(p uint64, total int, mine, recv []byte, op coll.Op, last, off int) error {
	hi := off + len(recv)
	b, err := m.block(last, p, total, mine)
	if err != nil {
		return err
	}
	copy(recv, b[off:hi])
	for r := last - 1; r >= 0; r-- {
		if b, err = m.block(r, p, total, mine); err != nil {
			return err
		}
		op.Reduce(b[off:hi], recv)
	}
	return nil
}

// block is rank r's block of the current epoch, as long as mine, this
// rank's: a contribution of total bytes or a piece of it.
func (m *module) block(r int, p uint64, total int, mine []byte) ([]byte, error) {
	if r == m.me {
		return mine, nil
	}
	return m.read(r, p, total, len(mine))
}

func (m *module) reduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	err := coll.CheckRoot(c, root)
	if err == nil {
		err = coll.CheckOp(op, len(send))
	}
	if err == nil && m.me == root {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("reduce", err)
	}
	total := len(send)
	// Timed only where tuned combines in rank order too: the same result.
	multi, pc, err := m.route("reduce", total, root == 0 || !op.Commutative())
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("reduce", root, total, func() error { return m.next.Reduce(c, send, recv, op, root) }))
	}
	m.announce("reduce", root, total, pathSegment)
	return pc.done(m.fail("reduce", inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("reduce", total, send[lo:hi], first)
		if err == nil && m.me == root {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.n-1, 0)
		}
		return err
	})))
}

func (m *module) allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	err := coll.CheckOp(op, len(send))
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("allreduce", err)
	}
	total := len(send)
	multi := !m.fits(total)
	if multi && !m.roundsPay("allreduce", total) {
		return m.toNext("allreduce", noRoot, total, func() error { return m.next.Allreduce(c, send, recv, op) })
	}
	m.announce("allreduce", noRoot, total, pathSegment)
	if m.splitPays(total) {
		return m.fail("allreduce", inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
			return m.allreduceSplit(total, send[lo:hi], recv[lo:hi], op, first)
		}))
	}
	return m.fail("allreduce", inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("allreduce", total, send[lo:hi], first)
		if err == nil {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.n-1, 0)
		}
		return err
	}))
}

// gatherInto copies bytes lo to hi of every rank's contribution of total
// bytes, its block of the current epoch, into recv in rank order; mine is
// this rank's.
func (m *module) gatherInto(p uint64, total, lo, hi int, mine, recv []byte) error {
	for r := range m.n {
		b, err := m.block(r, p, total, mine)
		if err != nil {
			return err
		}
		copy(recv[r*total+lo:r*total+hi], b)
	}
	return nil
}

func (m *module) gather(c coll.Comm, send, recv []byte, root int) error {
	err := coll.CheckRoot(c, root)
	if err == nil && m.me == root {
		err = coll.CheckLen("recv", len(recv), m.n*len(send), "the communicator's size times the send buffer's length")
	}
	if err != nil {
		return m.fail("gather", err)
	}
	total := len(send)
	multi := !m.fits(total)
	if multi && !m.roundsPay("gather", total) {
		return m.toNext("gather", root, total, func() error { return m.next.Gather(c, send, recv, root) })
	}
	m.announce("gather", root, total, pathSegment)
	return m.fail("gather", inRounds(total, piece(m.limit, multi, total, 1), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("gather", total, send[lo:hi], first)
		if err == nil && m.me == root {
			err = m.gatherInto(p, total, lo, hi, send[lo:hi], recv)
		}
		return err
	}))
}

func (m *module) allgather(c coll.Comm, send, recv []byte) error {
	if err := coll.CheckLen("recv", len(recv), m.n*len(send), "the communicator's size times the send buffer's length"); err != nil {
		return m.fail("allgather", err)
	}
	total := len(send)
	multi, pc, err := m.route("allgather", total, true)
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("allgather", noRoot, total, func() error { return m.next.Allgather(c, send, recv) }))
	}
	m.announce("allgather", noRoot, total, pathSegment)
	return pc.done(m.fail("allgather", inRounds(total, piece(m.limit, multi, total, 1), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("allgather", total, send[lo:hi], first)
		if err == nil {
			err = m.gatherInto(p, total, lo, hi, send[lo:hi], recv)
		}
		return err
	})))
}

// scatter: the root's whole send buffer is its contribution; each rank
// reads its own block of it. Every rank's size is alike (the root's send
// is n times each recv), so all take the same path. In rounds, the root
// writes the next piece of every rank's block.
func (m *module) scatter(c coll.Comm, send, recv []byte, root int) error {
	err := coll.CheckRoot(c, root)
	if err == nil && m.me == root {
		err = coll.CheckLen("send", len(send), m.n*len(recv), "the communicator's size times the receive buffer's length")
	}
	if err != nil {
		return m.fail("scatter", err)
	}
	k := len(recv)
	total := m.n * k
	multi := !m.fits(total)
	if multi && !m.roundsPay("scatter", total) {
		return m.toNext("scatter", root, total, func() error { return m.next.Scatter(c, send, recv, root) })
	}
	m.announce("scatter", root, total, pathSegment)
	if m.me == root {
		copy(recv, send[root*k:(root+1)*k])
	}
	return m.fail("scatter", inRounds(k, m.share(multi, k), multi, func(lo, hi int, first bool) error {
		p := m.begin("scatter")
		w := hi - lo
		if m.me == root || first {
			b, err := m.claim(p, total)
			if err != nil {
				return err
			}
			if m.me == root {
				for r := range m.n {
					if r != root {
						m.w.Copy(b[r*w:(r+1)*w], send[r*k+lo:r*k+hi])
					}
				}
			}
			m.raise(p)
			if err := m.agree(p, total, nil, first); err != nil || m.me == root {
				return err
			}
		}
		data, err := m.read(root, p, total, m.n*w)
		if err == nil {
			copy(recv[lo:hi], data[m.me*w:(m.me+1)*w])
		}
		if !first {
			m.pass(p, total, err)
		}
		return err
	}))
}

// alltoall: every rank's whole send buffer is its contribution; each rank
// reads its block of every other's. In rounds, each rank writes the next
// piece of its block for every rank.
func (m *module) alltoall(c coll.Comm, send, recv []byte) error {
	k := len(send) / m.n
	err := coll.CheckLen("send", len(send), m.n*k, "a whole block per rank")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("alltoall", err)
	}
	total := len(send)
	multi, pc, err := m.route("alltoall", total, true)
	if err != nil {
		return err
	}
	if pc.path == pathNext {
		return pc.done(m.toNext("alltoall", noRoot, total, func() error { return m.next.Alltoall(c, send, recv) }))
	}
	m.announce("alltoall", noRoot, total, pathSegment)
	shm.CopyCached(recv[m.me*k:(m.me+1)*k], send[m.me*k:(m.me+1)*k])
	return pc.done(m.fail("alltoall", inRounds(k, m.share(multi, k), multi, func(lo, hi int, first bool) error {
		p := m.begin("alltoall")
		w := hi - lo
		b, err := m.claim(p, total)
		if err != nil {
			return err
		}
		for r := range m.n {
			if r != m.me {
				m.w.Copy(b[r*w:(r+1)*w], send[r*k+lo:r*k+hi])
			}
		}
		m.raise(p)
		err = m.agree(p, total, nil, first)
		for r := 0; r < m.n && err == nil; r++ {
			var data []byte
			if r != m.me {
				if data, err = m.read(r, p, total, m.n*w); err == nil {
					copy(recv[r*k+lo:r*k+hi], data[m.me*w:(m.me+1)*w])
				}
			}
		}
		return err
	})))
}

// allgatherv: every rank knows every count, so the largest decides alike
// everywhere whether the call fits, and how many rounds it takes.
func (m *module) allgatherv(c coll.Comm, send, recv []byte, counts, displs []int) error {
	err := coll.CheckBlocks(c, "recv", counts, displs, len(recv))
	if err != nil {
		return m.fail("allgatherv", err)
	}
	most := slices.Max(counts)
	multi := !m.fits(most)
	if multi && !m.roundsPay("allgatherv", most) {
		return m.toNext("allgatherv", noRoot, most, func() error { return m.next.Allgatherv(c, send, recv, counts, displs) })
	}
	if err := coll.CheckLen("send", len(send), counts[m.me], "this rank's count"); err != nil {
		return m.fail("allgatherv", err)
	}
	m.announce("allgatherv", noRoot, most, pathSegment)
	return m.fail("allgatherv", inRounds(most, piece(m.limit, multi, most, 1), multi, func(lo, hi int, first bool) error {
		// Every member's count is its own: agree with counts, not len(send).
		p, err := m.contribute("allgatherv", len(send), send[min(lo, len(send)):min(hi, len(send))], false)
		if err == nil {
			err = m.agree(p, 0, counts, first)
		}
		for r := 0; r < m.n && err == nil; r++ {
			a, b := min(lo, counts[r]), min(hi, counts[r])
			var data []byte
			if r == m.me {
				data = send[a:b] // this rank's count is len(send)
			} else {
				data, err = m.read(r, p, counts[r], b-a)
			}
			copy(recv[displs[r]+a:displs[r]+b], data)
		}
		return err
	}))
}

// reduceScatter: rank i's part of the result is counts[i] bytes from the
// sum of the counts before it; each rank reduces its part of every block.
func (m *module) reduceScatter(c coll.Comm, send, recv []byte, counts []int, op coll.Op) error {
	if len(counts) != m.n {
		return m.fail("reduce_scatter", fmt.Errorf("%d counts, want one per rank (%d)", len(counts), m.n))
	}
	if err := coll.CheckOp(op, 0); err != nil {
		return m.fail("reduce_scatter", err)
	}
	total, off := 0, 0
	for r, k := range counts {
		if k < 0 || k%op.ElemSize() != 0 {
			return m.fail("reduce_scatter", fmt.Errorf("the count of rank %d is %d bytes, want a whole number of %d-byte elements", r, k, op.ElemSize()))
		}
		if r == m.me {
			off = total
		}
		total += k
	}
	if !m.fits(total) && !m.roundsPay("reduce_scatter", total) {
		return m.toNext("reduce_scatter", noRoot, total, func() error { return m.next.ReduceScatter(c, send, recv, counts, op) })
	}
	err := coll.CheckLen("send", len(send), total, "the sum of the counts")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), counts[m.me], "this rank's count")
	}
	if err != nil {
		return m.fail("reduce_scatter", err)
	}
	m.announce("reduce_scatter", noRoot, total, pathSegment)
	return m.fail("reduce_scatter", m.reduceParts("reduce_scatter", send, recv, op, off))
}

func (m *module) reduceScatterBlock(c coll.Comm, send, recv []byte, op coll.Op) error {
	if !m.fits(m.n*len(recv)) && !m.roundsPay("reduce_scatter_block", m.n*len(recv)) {
		return m.toNext("reduce_scatter_block", noRoot, m.n*len(recv), func() error { return m.next.ReduceScatterBlock(c, send, recv, op) })
	}
	err := coll.CheckOp(op, len(recv))
	if err == nil {
		err = coll.CheckLen("send", len(send), m.n*len(recv), "the communicator's size times the receive buffer's length")
	}
	if err != nil {
		return m.fail("reduce_scatter_block", err)
	}
	m.announce("reduce_scatter_block", noRoot, m.n*len(recv), pathSegment)
	return m.fail("reduce_scatter_block", m.reduceParts("reduce_scatter_block", send, recv, op, m.me*len(recv)))
}

// reduceParts is the reduce-scatters: every rank contributes its whole
// vector send, and reduces into recv its part, which starts at byte off,
// of everyone's.
func (m *module) reduceParts(name string, send, recv []byte, op coll.Op, off int) error {
	total := len(send)
	multi := !m.fits(total)
	return inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute(name, total, send[lo:hi], first)
		if a, b := max(lo, off), min(hi, off+len(recv)); err == nil && a < b {
			err = m.combine(p, total, send[lo:hi], recv[a-off:b-off], op, m.n-1, a-lo)
		}
		return err
	})
}

// scan leaves at rank i the reduction of the blocks of ranks 0 to i.
func (m *module) scan(c coll.Comm, send, recv []byte, op coll.Op) error {
	multi := !m.fits(len(send))
	if multi && !m.roundsPay("scan", len(send)) {
		return m.toNext("scan", noRoot, len(send), func() error { return m.next.Scan(c, send, recv, op) })
	}
	err := coll.CheckOp(op, len(send))
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("scan", err)
	}
	m.announce("scan", noRoot, len(send), pathSegment)
	total := len(send)
	return m.fail("scan", inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("scan", total, send[lo:hi], first)
		if err == nil {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.me, 0)
		}
		return err
	}))
}

// exscan leaves at rank i the reduction of ranks 0 to i-1; rank 0's recv
// is left as it was.
func (m *module) exscan(c coll.Comm, send, recv []byte, op coll.Op) error {
	multi := !m.fits(len(send))
	if multi && !m.roundsPay("exscan", len(send)) {
		return m.toNext("exscan", noRoot, len(send), func() error { return m.next.Exscan(c, send, recv, op) })
	}
	err := coll.CheckOp(op, len(send))
	if err == nil && m.me > 0 {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("exscan", err)
	}
	m.announce("exscan", noRoot, len(send), pathSegment)
	total := len(send)
	return m.fail("exscan", inRounds(total, piece(m.limit, multi, total, op.ElemSize()), multi, func(lo, hi int, first bool) error {
		p, err := m.contribute("exscan", total, send[lo:hi], first)
		if err == nil && m.me > 0 {
			err = m.combine(p, total, send[lo:hi], recv[lo:hi], op, m.me-1, 0)
		}
		return err
	}))
}
