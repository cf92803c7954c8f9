package sm

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// A blocking send of btl_sm_single_copy_threshold bytes or more can go two
// ways: streamed through the ring, its sender writing fragments while the
// receiver copies them out, no system call; or read by the receiver
// straight from the sender's memory. Which is faster depends on the
// machine's state, which changes within seconds: where a copy through the
// ring is fast a stream took 0.55-0.75 of a read's time (1 MiB one way
// 36-55 us against 49-72), where it is slow 1.5-10 times (64 KiB-4 MiB).
// So the receiver times both ways for each sender and size class and
// writes which to take into the pair's line of blocking ways; the sender
// reads its word there at each blocking send, and sends two the other way
// every so often, so that both times stay current. The first receive that
// took a way after the other is not counted: it found the caches cold for
// its way, and took up to twice as long as the next (64 KiB read 30 us
// against 13 after streams).

// sizeClasses is how many sizes are timed apart: powers of two, the first
// holding every size below 128 KiB, the last every size from 2 GiB.
const sizeClasses = 16

// sizeClass is the class of a payload of size bytes.
func sizeClass(size int) int {
	return min(max(bits.Len(uint(size))-17, 0), sizeClasses-1)
}

// blockingWays is a line of the segment: for each size class, a word in
// which the receiver says how the sender's blocking sends go. 0 until the
// receiver has timed both ways; then wayStream if they stream, and in the
// bits above, log2 of how often the other way is timed again.
type blockingWays [sizeClasses]atomic.Uint32

// Untimed, a send is read: where the ring is slow a stream took up to 5
// times a read's time, where it is fast a read less than twice a
// stream's.
const wayStream = 1

// Probe intervals, in blocking sends of a class to one peer, powers of
// two: untimedEvery while a way is untimed; once both are, the smallest
// at least probeCost times the other way's time over the chosen one's,
// from 1<<minEveryLog to 1<<maxEveryLog. Every change of way costs: the
// first transfer each way after the other took up to twice as long as
// the next, so the probes of a way as fast as the chosen one, one probe
// and one return, cost about 3/256 of the sender's time. A chosen way
// that gets slower is seen at once, since it is timed at every send; the
// other way that gets faster waits for its next probe.
const (
	untimedEvery = 16
	probeCost    = 64
	minEveryLog  = 8
	maxEveryLog  = 10
)

// hysteresis: the way changes only when the other was faster by more
// than 1/hysteresis of the chosen one's time, as two ways whose times
// differ by less than the noise would change places at every other
// timing, at the cost of a cold transfer each time.
const hysteresis = 8

// SingleCopyBlocking reports whether a blocking send of size bytes, at
// least SingleCopyMin(rank), is read by the receiver rather than streamed
// (btl.BlockingCopier).
func (m *Module) SingleCopyBlocking(rank, size int) bool {
	switch {
	case m.oversubscribed:
		return true // the two copiers of a stream would take turns on one CPU
	case m.cfg.blockingCopyMin > 0 && size >= m.cfg.blockingCopyMin:
		return true
	case m.cfg.blockingCopy != "timed" || rank < 0 || rank >= len(m.peers) || m.peers[rank] == nil:
		return false
	}
	p := m.peers[rank]
	c := sizeClass(size)
	w := p.ways[c].Load()
	read := w&wayStream == 0
	every := uint32(untimedEvery)
	if w != 0 {
		every = 1 << (w >> 1)
	}
	if n := p.blockingSends[c].Add(1) & (every - 1); n == 1 || n == 2 {
		return !read
	}
	return read
}

// Took records how long a rendezvous receive of size bytes from rank
// took, and tells the sender if the faster way for its size class
// changed (btl.BlockingCopier).
func (m *Module) Took(rank, size int, read bool, d time.Duration) {
	if rank < 0 || rank >= len(m.peers) || m.peers[rank] == nil || size <= 0 {
		return
	}
	p := m.peers[rank]
	ps := max(d.Nanoseconds(), 0) * 1000 / int64(size) // picoseconds a byte
	way := 0
	if read {
		way = 1
	}
	c := sizeClass(size)
	if p.lastWay[c].Swap(uint32(way+1)) != uint32(way+1) {
		return // the first this way in a row: cold caches
	}
	t := &p.took[c][way]
	t[1].Store(t[0].Load())
	t[0].Store(max(ps, 1)) // a way timed counts as timed, whatever the clock
	stream, rd := p.cost(c, 0), p.cost(c, 1)
	if stream == 0 || rd == 0 {
		return
	}
	was := p.timed[c].Load()
	v := was & wayStream // read unless timed otherwise
	switch {
	case v == 0 && stream < rd-rd/hysteresis:
		v = wayStream
	case v == wayStream && rd < stream-stream/hysteresis:
		v = 0
	}
	other, chosen := stream, rd
	if v == wayStream {
		other, chosen = rd, stream
	}
	shift := uint32(bits.Len64(uint64((probeCost*other - 1) / chosen))) // log2 of the power of two from probeCost*other/chosen
	v |= min(max(shift, minEveryLog), maxEveryLog) << 1
	if was != v {
		p.timed[c].Store(v)
	}
}

// cost is the time a byte of receives from p in size class c that took
// the way way (1: read), 0 if untimed: the less of its last two
// timings, so that one slow receive (a descheduled receiver) does not
// change the way.
func (p *peer) cost(c, way int) int64 {
	t := &p.took[c][way]
	last, before := t[0].Load(), t[1].Load()
	if before == 0 {
		return last
	}
	return min(last, before)
}
