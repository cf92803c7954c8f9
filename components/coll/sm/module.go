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
// Epochs: the n-th call that goes through the segment is epoch n on every
// member (MPI has every member call a communicator's collectives in the
// same order, and a call's size, which decides whether it goes through
// the segment, is alike on every member). In epoch e a rank uses only its
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

	lim   limits
	w     shm.Writer // copies this rank's contributions into its blocks
	epoch uint64
	call  string   // the collective of the current epoch, for the state report
	seen  []uint64 // by rank: the highest epoch seen raised
	next  *coll.Module
	log   hclog.Logger

	// Single copy (single.go): whether it may be used, and once the first
	// large call settled it, whether every member can read every other.
	single       bool
	singleAlways bool // tests: single copy wherever it can serve, paying or not
	verdict      uint32
	probe        *[1]uint64 // read by the others to test cross-memory attach
	pids         []int      // by rank
	ds           []desc     // by rank: the current call's descriptors
	tmp          []byte     // an operand read for a fold

	// Announcements (announce.go): the collective calls on the
	// communicator, the current one, whether it is published, and by
	// parity the call each of the last two epochs belongs to.
	calls uint64
	cur   callInfo
	told  bool
	mine  [2]callInfo
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
			m.lim.base, coll.ErrNoProvider))
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

// write copies data into this rank's block of parity p, once every member
// is done with what the block held two epochs ago.
func (m *module) write(p uint64, data []byte) error {
	if m.epoch > 2 {
		for r := range m.n {
			if err := m.await(r, m.epoch-1); err != nil {
				return err
			}
		}
	}
	b := m.seg.block(m.me, p)
	*lenWord(b) = uint64(len(data))
	m.w.Copy(b[offData:], data) // lines the others read last time: the faster copy
	return nil
}

// read waits for rank r's block of the current epoch and returns its data,
// which must be want bytes long.
func (m *module) read(r int, p uint64, want int) ([]byte, error) {
	if err := m.await(r, m.epoch); err != nil {
		return nil, err
	}
	b := m.seg.block(r, p)
	if err := sameLength(r, int(*lenWord(b)), want); err != nil {
		// A block from another path (single copy's addresses) says less.
		if mine, theirs := m.mine[p], m.announcedBy(r); theirs.since(mine.seq) == 0 && theirs.path != mine.path {
			return nil, disagree(r, theirs, mine)
		}
		return nil, err
	}
	return b[offData : offData+want], nil
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
	pollEvery   = 64
	spinFor     = 1 << 14
	sleepAfter  = time.Millisecond
	napFor      = time.Millisecond
	reportAfter = 10 * time.Millisecond
)

// await waits until rank r has raised a word to at least e. The word of
// parity e&1 is the one to watch: words only grow, and r's other word
// holds an epoch of the other parity.
func (m *module) await(r int, e uint64) error {
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
		// 10 ms.
		runtime.Gosched()
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

func (m *module) fits(n int) bool { return n <= m.lim.base }

// limits are the largest contributions, in bytes per rank, that go
// through the blocks: a whole block, and for bcast less where ranks
// outnumber CPUs (segmentLimits).
type limits struct{ base, bcast int }

// segmentLimits are the limits for blocks of block bytes (segmentBlock).
// Against single copy and tuned, 32 KiB-256 KiB: with a CPU per rank (2
// ranks) the blocks win to 64 KiB (bcast, reduce and allgather of 32 KiB
// 0.5-0.7 of single copy's time, alltoall of 16 KiB blocks 0.5) and lose
// from 128 KiB; with ranks outnumbering CPUs (4 and 8 on 2) a writer that
// leaves at once, where single copy keeps it until its readers are done,
// wins to 256 KiB (allgather 0.3-0.7, reduce 0.1-0.6, allreduce 0.3-0.7,
// alltoall of 32 KiB blocks on 8 ranks 0.4 of tuned's time), bcast to 128
// KiB. (Before the blocks were written with shm.Writer, their copy lost
// from 32 KiB with a CPU per rank, and alltoall's from 16 KiB.)
func segmentLimits(block int, oversubscribed bool) limits {
	if oversubscribed {
		return limits{base: block, bcast: min(block, 128<<10)}
	}
	return limits{base: block, bcast: block}
}

// segmentBlock is the size of a block: what the largest limit needs.
func segmentBlock(maxBytes int, oversubscribed bool) int {
	if oversubscribed {
		return maxBytes
	}
	return min(maxBytes, 64<<10)
}

// large serves a call too large for the blocks: by single copy where it
// pays and every member can read every other's memory, else through the
// next module.
func (m *module) large(name string, size int, next, single func() error) error {
	if !m.singleAlways && !singlePays(name, m.n, size) {
		m.announce(name, size, pathNext)
		return next()
	}
	m.announce(name, size, pathSingle)
	ok, err := m.singleCopy()
	switch {
	case err != nil:
		return m.fail(name, err)
	case !ok:
		m.reroute(pathNext)
		return next()
	}
	return m.fail(name, single())
}

// barrier: every rank raises its word and waits for every other's. When
// the host is oversubscribed, rank 0 alone waits for every other rank and
// then raises its word, which the others wait for: rank 0 leaves first, so
// that what it does next (a bcast's write) is done before the others,
// which a context switch may keep away for microseconds, come to need it.
func (m *module) barrier(c coll.Comm) error {
	m.announce("barrier", 0, pathSegment)
	return m.fail("barrier", m.sync("barrier"))
}

// sync is a barrier epoch of collective name.
func (m *module) sync(name string) error {
	p := m.begin(name)
	fanIn := m.yield && m.me == 0
	if m.yield && m.me != 0 {
		m.raise(p)
		return m.await(0, m.epoch)
	}
	if !fanIn {
		m.raise(p)
	}
	for r := range m.n {
		if r == m.me {
			continue
		}
		if err := m.await(r, m.epoch); err != nil {
			return err
		}
	}
	if fanIn {
		m.raise(p)
	}
	return nil
}

func (m *module) bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return m.fail("bcast", err)
	}
	if len(buf) > m.lim.bcast {
		return m.large("bcast", len(buf), func() error { return m.next.Bcast(c, buf, root) },
			func() error { return m.bcastSingle(buf, root) })
	}
	m.announce("bcast", len(buf), pathSegment)
	p := m.begin("bcast")
	if m.me == root {
		if err := m.write(p, buf); err != nil {
			return m.fail("bcast", err)
		}
		m.raise(p)
		return nil
	}
	data, err := m.read(root, p, len(buf))
	if err == nil {
		copy(buf, data)
	}
	m.raise(p) // even after a mismatch: the root's next write waits for it
	return m.fail("bcast", err)
}

// contribute writes send as this rank's block of a new epoch, a call of
// collective name, and raises it.
func (m *module) contribute(name string, send []byte) (uint64, error) {
	p := m.begin(name)
	if err := m.write(p, send); err != nil {
		return p, err
	}
	m.raise(p)
	return p, nil
}

// combine reduces bytes lo to lo+len(recv) of the blocks of ranks 0 to
// last into recv, in rank order: recv becomes b0 ⊕ b1 ⊕ ... ⊕ b(last),
// the same expression on every rank, so that a non-commutative operation
// gets its operands in order.
func (m *module) combine(p uint64, send, recv []byte, op coll.Op, last, lo int) error {
	hi := lo + len(recv)
	b, err := m.block(last, p, send)
	if err != nil {
		return err
	}
	copy(recv, b[lo:hi])
	for r := last - 1; r >= 0; r-- {
		if b, err = m.block(r, p, send); err != nil {
			return err
		}
		op.Reduce(b[lo:hi], recv)
	}
	return nil
}

// block is rank r's contribution to the current epoch: send for this rank.
func (m *module) block(r int, p uint64, send []byte) ([]byte, error) {
	if r == m.me {
		return send, nil
	}
	return m.read(r, p, len(send))
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
	if !m.fits(len(send)) {
		return m.large("reduce", len(send), func() error { return m.next.Reduce(c, send, recv, op, root) },
			func() error { return m.reduceSingle(send, recv, op, root) })
	}
	m.announce("reduce", len(send), pathSegment)
	p, err := m.contribute("reduce", send)
	if err == nil && m.me == root {
		err = m.combine(p, send, recv, op, m.n-1, 0)
	}
	return m.fail("reduce", err)
}

func (m *module) allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	err := coll.CheckOp(op, len(send))
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("allreduce", err)
	}
	if !m.fits(len(send)) {
		return m.large("allreduce", len(send), func() error { return m.next.Allreduce(c, send, recv, op) },
			func() error { return m.allreduceSingle(send, recv, op) })
	}
	m.announce("allreduce", len(send), pathSegment)
	p, err := m.contribute("allreduce", send)
	if err == nil {
		err = m.combine(p, send, recv, op, m.n-1, 0)
	}
	return m.fail("allreduce", err)
}

// gatherInto copies every rank's block of the current epoch into recv in
// rank order.
func (m *module) gatherInto(p uint64, send, recv []byte) error {
	k := len(send)
	for r := range m.n {
		b, err := m.block(r, p, send)
		if err != nil {
			return err
		}
		copy(recv[r*k:(r+1)*k], b)
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
	if !m.fits(len(send)) {
		return m.large("gather", len(send), func() error { return m.next.Gather(c, send, recv, root) },
			func() error { return m.gatherSingle(send, recv, root) })
	}
	m.announce("gather", len(send), pathSegment)
	p, err := m.contribute("gather", send)
	if err == nil && m.me == root {
		err = m.gatherInto(p, send, recv)
	}
	return m.fail("gather", err)
}

func (m *module) allgather(c coll.Comm, send, recv []byte) error {
	if err := coll.CheckLen("recv", len(recv), m.n*len(send), "the communicator's size times the send buffer's length"); err != nil {
		return m.fail("allgather", err)
	}
	if !m.fits(len(send)) {
		return m.large("allgather", len(send), func() error { return m.next.Allgather(c, send, recv) },
			func() error { return m.allgatherSingle(send, recv) })
	}
	m.announce("allgather", len(send), pathSegment)
	p, err := m.contribute("allgather", send)
	if err == nil {
		err = m.gatherInto(p, send, recv)
	}
	return m.fail("allgather", err)
}

// scatter: the root's whole send buffer is its contribution; each rank
// reads its own block of it. Every rank's size is alike (the root's send
// is n times each recv), so all take the same path.
func (m *module) scatter(c coll.Comm, send, recv []byte, root int) error {
	err := coll.CheckRoot(c, root)
	if err == nil && m.me == root {
		err = coll.CheckLen("send", len(send), m.n*len(recv), "the communicator's size times the receive buffer's length")
	}
	if err != nil {
		return m.fail("scatter", err)
	}
	if !m.fits(m.n * len(recv)) {
		return m.large("scatter", m.n*len(recv), func() error { return m.next.Scatter(c, send, recv, root) },
			func() error { return m.scatterSingle(send, recv, root) })
	}
	m.announce("scatter", m.n*len(recv), pathSegment)
	p := m.begin("scatter")
	k := len(recv)
	if m.me == root {
		if err := m.write(p, send); err != nil {
			return m.fail("scatter", err)
		}
		m.raise(p)
		copy(recv, send[root*k:(root+1)*k])
		return nil
	}
	data, err := m.read(root, p, m.n*k)
	if err == nil {
		copy(recv, data[m.me*k:(m.me+1)*k])
	}
	m.raise(p)
	return m.fail("scatter", err)
}

// alltoall: every rank's whole send buffer is its contribution; each rank
// reads its block of every other's.
func (m *module) alltoall(c coll.Comm, send, recv []byte) error {
	k := len(send) / m.n
	err := coll.CheckLen("send", len(send), m.n*k, "a whole block per rank")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("alltoall", err)
	}
	if !m.fits(len(send)) {
		return m.large("alltoall", len(send), func() error { return m.next.Alltoall(c, send, recv) },
			func() error { return m.alltoallSingle(send, recv) })
	}
	m.announce("alltoall", len(send), pathSegment)
	p, err := m.contribute("alltoall", send)
	for r := 0; r < m.n && err == nil; r++ {
		var b []byte
		if b, err = m.block(r, p, send); err == nil {
			copy(recv[r*k:(r+1)*k], b[m.me*k:(m.me+1)*k])
		}
	}
	return m.fail("alltoall", err)
}

// allgatherv: every rank knows every count, so the largest decides alike
// everywhere whether the call fits.
func (m *module) allgatherv(c coll.Comm, send, recv []byte, counts, displs []int) error {
	err := coll.CheckBlocks(c, "recv", counts, displs, len(recv))
	if err != nil {
		return m.fail("allgatherv", err)
	}
	if !m.fits(slices.Max(counts)) {
		m.announce("allgatherv", slices.Max(counts), pathNext)
		return m.next.Allgatherv(c, send, recv, counts, displs)
	}
	if err := coll.CheckLen("send", len(send), counts[m.me], "this rank's count"); err != nil {
		return m.fail("allgatherv", err)
	}
	m.announce("allgatherv", slices.Max(counts), pathSegment)
	p, err := m.contribute("allgatherv", send)
	for r := 0; r < m.n && err == nil; r++ {
		var b []byte
		if r == m.me {
			b = send
		} else {
			b, err = m.read(r, p, counts[r])
		}
		copy(recv[displs[r]:displs[r]+counts[r]], b)
	}
	return m.fail("allgatherv", err)
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
	total, lo := 0, 0
	for r, k := range counts {
		if k < 0 || k%op.ElemSize() != 0 {
			return m.fail("reduce_scatter", fmt.Errorf("the count of rank %d is %d bytes, want a whole number of %d-byte elements", r, k, op.ElemSize()))
		}
		if r == m.me {
			lo = total
		}
		total += k
	}
	if !m.fits(total) {
		m.announce("reduce_scatter", total, pathNext)
		return m.next.ReduceScatter(c, send, recv, counts, op)
	}
	err := coll.CheckLen("send", len(send), total, "the sum of the counts")
	if err == nil {
		err = coll.CheckLen("recv", len(recv), counts[m.me], "this rank's count")
	}
	if err != nil {
		return m.fail("reduce_scatter", err)
	}
	m.announce("reduce_scatter", total, pathSegment)
	p, err := m.contribute("reduce_scatter", send)
	if err == nil {
		err = m.combine(p, send, recv, op, m.n-1, lo)
	}
	return m.fail("reduce_scatter", err)
}

func (m *module) reduceScatterBlock(c coll.Comm, send, recv []byte, op coll.Op) error {
	if !m.fits(m.n * len(recv)) {
		m.announce("reduce_scatter_block", m.n*len(recv), pathNext)
		return m.next.ReduceScatterBlock(c, send, recv, op)
	}
	err := coll.CheckOp(op, len(recv))
	if err == nil {
		err = coll.CheckLen("send", len(send), m.n*len(recv), "the communicator's size times the receive buffer's length")
	}
	if err != nil {
		return m.fail("reduce_scatter_block", err)
	}
	m.announce("reduce_scatter_block", m.n*len(recv), pathSegment)
	p, err := m.contribute("reduce_scatter_block", send)
	if err == nil {
		err = m.combine(p, send, recv, op, m.n-1, m.me*len(recv))
	}
	return m.fail("reduce_scatter_block", err)
}

// scan leaves at rank i the reduction of the blocks of ranks 0 to i.
func (m *module) scan(c coll.Comm, send, recv []byte, op coll.Op) error {
	if !m.fits(len(send)) {
		m.announce("scan", len(send), pathNext)
		return m.next.Scan(c, send, recv, op)
	}
	err := coll.CheckOp(op, len(send))
	if err == nil {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("scan", err)
	}
	m.announce("scan", len(send), pathSegment)
	p, err := m.contribute("scan", send)
	if err == nil {
		err = m.combine(p, send, recv, op, m.me, 0)
	}
	return m.fail("scan", err)
}

// exscan leaves at rank i the reduction of ranks 0 to i-1; rank 0's recv
// is left as it was.
func (m *module) exscan(c coll.Comm, send, recv []byte, op coll.Op) error {
	if !m.fits(len(send)) {
		m.announce("exscan", len(send), pathNext)
		return m.next.Exscan(c, send, recv, op)
	}
	err := coll.CheckOp(op, len(send))
	if err == nil && m.me > 0 {
		err = coll.CheckLen("recv", len(recv), len(send), "the send buffer's length")
	}
	if err != nil {
		return m.fail("exscan", err)
	}
	m.announce("exscan", len(send), pathSegment)
	p, err := m.contribute("exscan", send)
	if err == nil && m.me > 0 {
		err = m.combine(p, send, recv, op, m.me-1, 0)
	}
	return m.fail("exscan", err)
}
