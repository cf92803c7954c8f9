package sm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/btl"
)

// A ring carries fragments from one local rank to another: a single
// producer (the sender, one goroutine at a time) and a single consumer
// (the receiver, one poller at a time). Offsets count bytes since the
// ring was made; a record starts at its offset modulo the ring's size.
//
// A record publishes itself: its first word is its end offset, stored
// last, and the consumer polls the first word of the next record. A small
// message thus costs one cache-line transfer, where a shared tail counter
// cost two (the counter's line, then the record's).
//
// Memory ordering: the producer writes a record with plain stores (or a
// string copy, whose own stores shm.Writer fences), makes
// sure the first word where the record ends is zero, then stores the
// record's first word atomically; the consumer loads that word before
// reading the rest. So the consumer never takes an earlier lap's bytes for
// the next record: that word stays zero until the next record is
// complete. One line always stays free for that zero. The consumer reads a
// record, then stores head; the producer loads head before writing over
// that space. Those are release/acquire pairs: the stores that end a
// record and free its space are release stores (lowlevel.StoreReleaseUint64), and only the
// store that publishes a batch is a full fence, for the wake-up protocol.
//
// The consumer only reads the records' lines. Had it zeroed them instead,
// the producer would fetch each line back from the consumer's cache before
// writing it again: 16 KiB fragments went at half the speed.
type ring struct {
	head  *atomic.Uint64 // written by the consumer only
	reads *shm.ReadCosts // likewise: what reading the producer's timed copies took
	data  []byte         // len is a power of two, at least a line
}

// A record is a 16-byte header, the upper layer's header, then the
// payload, padded to a cache line so that every line's first word may
// start a record, and a record never wraps: a pad record fills the end of
// the ring instead.
//
//	0 end offset u64 | 8 header length u16 | 10 kind u8 | 11 seen u8 | 12 payload length u32
//
// kind's upper 4 bits are the shm.Mark of the payload's copy: the consumer
// times its delivery of a record whose copy the producer timed, and says
// what it took in the ring's shm.ReadCosts, so that the producer's Writer
// weighs both sides of each way (non-temporal stores spare the consumer
// the fetch of each line from the producer's cache). seen is where the
// producer's consumer of the opposite ring stood when the record was
// written, in lines modulo 256 (producer.answered).
const (
	recHeader = 16
	recAlign  = lineSize
	kindFrag  = 1
	kindPad   = 2
	kindHelp  = 3 // the receiver asks for help with a copy (shared.go): an 8-byte header, the copy's number
	kindMask  = 0x0f
	markShift = 4
	maxHeader = btl.MaxHeaderSize
)

// prefault touches every page of the ring in this process, so that the
// first lap costs no more than the next. Mapping the segment with
// MAP_POPULATE fills the kernel's page tables, but on a virtual machine
// with shadow page tables (this project's CI machines) the first access to
// each page from each process still traps to the hypervisor, 5-6 us a
// page; a 0-byte ping-pong's first 4096 messages took 1.4 us each instead
// of 0.25, and a 32 KiB allreduce's first 8 calls 150 us instead of 11.
// Reading is enough: the writes that follow then cost nothing extra. Each
// side does it at its first record, not at AddProcs: a pair that never
// talks costs nothing (prefaulting every ring at AddProcs made the Init of
// 16 ranks on 2 CPUs 14% slower).
func (r ring) prefault() {
	last := len(r.data) - 8 // the data need not start on a page
	for off := 0; off < last; off += pageSize {
		r.stamp(uint64(off)).Load()
	}
	r.stamp(uint64(last)).Load()
}

// pageSize is prefault's stride: no larger than any page.
const pageSize = 4096

func recordSize(hdr, payload int) int { return alignUp(recHeader+hdr+payload, recAlign) }

// stamp is the first word of the record at pos.
func (r *ring) stamp(pos uint64) *atomic.Uint64 {
	return lowlevel.Uint64At(r.data, int(pos))
}

// producer is the sending side's state of a ring.
type producer struct {
	ring
	tail      uint64 // where the next record goes
	headCache uint64 // head as last seen: reloaded only when the ring looks full
	zeroed    uint64 // the first word of every line from the last record's end to here is zero
	ahead     uint64 // the lines up to here were prefetched for writing

	// Records written but not published yet, in ring order: put stages
	// each record, publish makes them visible. A sender that holds records
	// back (Post) publishes many at once: the consumer waits on the first
	// one's line, so only that line moves between the caches while the
	// sender waits, once for the batch instead of once per record.
	staged  [maxStaged]staged
	nstaged int

	// w copies payloads in, the faster way for large ones.
	w shm.Writer

	// answered is the head of the ring the other way, which this rank's
	// consumer stores: put records it in each record's seen byte, so that
	// the peer learns whether this record answers its last one
	// (consumer.answers).
	answered *atomic.Uint64

	// next is where the next record starts, or'ed with the line count of
	// the last record if it was small (at most reserveLines), else 0: a
	// poller of this rank reads it to take those lines ahead of time
	// (reserve). Written with release stores, read by any poller.
	next atomic.Uint64
}

// reserveLines bounds the lines reserve takes: as many as pending
// prefetches for the receiver, which takes a small record's lines with
// its first.
const reserveLines = maxAhead + 1

// staged is a record whose first word still reads zero.
type staged struct{ pos, end uint64 }

// maxStaged bounds the records held back: Post's batch, and one more put,
// which stages at most two (a pad and its record); put publishes first
// when they would not fit.
const maxStaged = postBatch + 2

// How put prepares the lines ahead. The consumer must find zero in the
// first word where the next record will start, and every line put writes
// was read by the consumer a lap before: a store to it waits for the line
// to come back from the consumer's cache, and stores that wait fill the
// store buffer, after which every store and locked instruction of the
// sender waits too.
//
//   - A record sent at once, of at most zeroAheadMax bytes, zeroes the
//     lines' first words zeroChunk bytes ahead: a ping-pong of small
//     messages then waits for the zeroed line's fetch once per batch
//     instead of once per message (8 bytes: 1,000 ns a round trip with a
//     zero per record, 570 in batches).
//   - A larger one zeroes only the line where the next record starts: a
//     batch's fetches cost more than that one line, which comes along with
//     the record's own, and the next large record writes over most of it
//     (a transport round trip of 4 KiB 3.7 -> 2.9 us, 512 bytes 1.4 ->
//     1.2, when lines cross slowly).
//   - A record that Post holds back for a batch zeroes only that line too,
//     and prefetches the next writeAhead bytes for writing: a prefetch
//     does not wait, and the lines are here when the window's next
//     records reach them (bw of 256 bytes-16 KiB 1.1-1.2 times). In a
//     ping-pong the prefetches cost 512 bytes-4 KiB a tenth.
const (
	zeroChunk    = 4096
	zeroAheadMax = 8 * recAlign
	writeAhead   = 2048
)

// put writes one record, or returns false when the ring has no room now.
// held says that the sender holds the record back for a batch (Post); the
// lines ahead are prepared accordingly (zeroChunk).
func (p *producer) put(hdr, payload []byte, held bool) bool {
	return p.putKind(kindFrag, hdr, payload, nil, held)
}

// source is a record's payload when a btl.Source packs it: its n bytes
// from off.
type source struct {
	btl.Source
	off, n int
}

// wholeFill is the largest payload a source packs in one pass.
const wholeFill = 4 * recAlign

// fill packs the payload into dst, its bytes from first on, then those
// before, which lie in the record's first line: that line last, as put
// writes it. A payload of a few lines is packed whole, in one pass: its
// writes take no longer than the two passes' setup, and a Source packs
// whole elements faster than parts of them. The rest goes through the
// Writer, which has it packed into the ring or, for its string copy and
// non-temporal stores, apart: with far CPUs, 4 KiB rows of 16 KiB-1 MiB
// then took 0.43-0.70 of the time packed into the ring, columns of 16-64
// KiB 0.80-0.91. It returns the mark of the Writer's copy.
func (s *source) fill(w *shm.Writer, dst []byte, first int) shm.Mark {
	if len(dst) <= wholeFill {
		s.Pack(dst, s.off)
		return 0
	}
	var mark shm.Mark
	if first < len(dst) {
		mark = w.CopyPacked(dst[first:], s.Source, s.off+first)
	}
	if first > 0 {
		s.Pack(dst[:first], s.off)
	}
	return mark
}

// putKind is put for a record of any kind, whose payload is payload, or
// src's when src is set: a Source packs itself into the record, which
// spares a non-contiguous payload a copy. src is a pointer so that the
// arguments of a payload in a slice still fit in registers.
func (p *producer) putKind(kind byte, hdr, payload []byte, src *source, held bool) bool {
	if p.tail == 0 {
		p.prefault()
	}
	size := uint64(len(p.data))
	n := len(payload)
	if src != nil {
		n = src.n
	}
	need := uint64(recordSize(len(hdr), n))
	pos := p.tail & (size - 1)
	pad := uint64(0)
	if size-pos < need {
		pad = size - pos
	}
	if p.tail+pad+need+recAlign-p.headCache > size {
		p.headCache = p.head.Load()
		if p.tail+pad+need+recAlign-p.headCache > size {
			p.publish() // the consumer frees room only in what it sees
			return false
		}
	}
	if p.nstaged+2 > len(p.staged) {
		p.publish()
	}
	// The consumer reads the first word where each record ends, and after a
	// pad where the record starts: those must be zero until published.
	// Lines inside the record need nothing: no record starts there.
	start := p.tail + pad
	if pad > 0 && start >= p.zeroed {
		p.clear(start)
	}
	end := start + need
	if end+recAlign > p.zeroed {
		to := end + recAlign
		if !held && need <= zeroAheadMax {
			to = min(to+zeroChunk, p.headCache+size)
		}
		for off := max(p.zeroed, end); off < to; off += recAlign {
			p.clear(off)
		}
		p.zeroed = to
	}
	if held {
		if to := min(end+recAlign+writeAhead, p.headCache+size); to > p.ahead {
			p.prefetchw(max(p.ahead, end+recAlign), to)
			p.ahead = to
		}
	}
	if pad > 0 {
		p.data[pos+10], p.data[pos+11] = kindPad, p.seen() // answers may look at a pad
		p.stage(pos, pad)
		pos = 0
	}
	rec := p.data[pos : pos+need]
	// The record's first line last: the consumer polls it, and each of its
	// loads takes the line away from a writer that is not done with it.
	off := recHeader + len(hdr)
	first := min(n, max(recAlign-off, 0)) // payload bytes in the first line
	rest := rec[off+first:]
	if n-first < shm.WriterMin && len(rest) > recAlign {
		// The receiver read these lines a lap ago: ask for all of them at
		// once rather than one store miss after another. (A Writer does so
		// for larger copies, or copies whole lines.)
		shm.PrefetchW(rest)
	}
	var mark shm.Mark
	if src == nil {
		mark = p.w.Copy(rest, payload[first:])
	} else {
		mark = src.fill(&p.w, rec[off:off+n], first)
		first = 0 // payload is nil: the copy below is none
	}
	// Through an array, which a record fills at least: the compiler no
	// longer proves these stores in bounds of rec past the Source's
	// branch, and the checks cost a small send's putKind a sixth more
	// instructions.
	line := (*[recAlign]byte)(rec)
	binary.LittleEndian.PutUint16(line[8:], uint16(len(hdr)))
	line[10], line[11] = kind|byte(mark)<<markShift, p.seen()
	binary.LittleEndian.PutUint32(line[12:], uint32(n))
	if len(hdr) == btl.SmallHeaderSize {
		// 8 bytes at a time: a small header was just written so
		// (btl.SmallHeader.Put), and copy's 16-byte load would wait for
		// both stores instead of taking them from the store buffer.
		binary.LittleEndian.PutUint64(line[recHeader:], binary.LittleEndian.Uint64(hdr))
		binary.LittleEndian.PutUint64(line[recHeader+8:], binary.LittleEndian.Uint64(hdr[8:]))
	} else {
		copy(rec[recHeader:], hdr)
	}
	copy(rec[off:], payload[:first])
	p.stage(pos, need)
	hint := uint64(0)
	if lines := need / recAlign; lines <= reserveLines {
		hint = p.tail&(size-1) | lines
	}
	if p.next.Load() != hint {
		lowlevel.StoreReleaseUint64(&p.next, hint)
	}
	return true
}

// seen is the seen byte of a record written now: where this rank has read
// the ring the other way up to (the rings have one size).
func (p *producer) seen() byte { return p.lineByte(p.answered.Load()) }

// lineByte is the line of the ring at offset off, modulo 256: the seen
// byte's unit.
func (r *ring) lineByte(off uint64) byte {
	return byte((off & uint64(len(r.data)-1)) / recAlign)
}

// reserve takes the lines where the next record will go, if the last one
// was small, into this processor's cache for writing, without waiting. A
// poller calls it when a record arrives from the ring's receiver: in a
// ping-pong the answer goes there next, and the receiver polls the line it
// will start on. Without it the answer's first store waits for that line
// to come back from the receiver's cache and the receiver then fetches it
// again, two transfers between the caches on every hop; reserved while the
// message that arrived is delivered, the line is here when the answer is
// written, and only the receiver's fetch is left (8-byte latency 0.52 ->
// 0.36 us). The receiver may poll the line back in the meantime: then
// this rank's store waits for it, as it did without the reservation. A
// hint read while the producer writes is at worst stale: a prefetch
// changes no data.
func (p *producer) reserve() {
	h := p.next.Load()
	lines := h & (recAlign - 1)
	if lines == 0 {
		return
	}
	off := h &^ (recAlign - 1)
	end := min(off+lines*recAlign, uint64(len(p.data)))
	shm.PrefetchW(p.data[off:end])
}

// prefetchw prefetches the ring's lines from offset from to offset to for
// writing.
func (p *producer) prefetchw(from, to uint64) {
	size := uint64(len(p.data))
	for from < to {
		pos := from & (size - 1)
		n := min(to-from, size-pos)
		shm.PrefetchW(p.data[pos : pos+n])
		from += n
	}
}

// clear zeroes the first word of the line at offset off.
func (p *producer) clear(off uint64) {
	*lowlevel.Word64At(p.data, int(off&uint64(len(p.data)-1))) = 0
}

// stage ends the record of length bytes at pos, unpublished.
func (p *producer) stage(pos, length uint64) {
	p.tail += length
	p.staged[p.nstaged] = staged{pos, p.tail}
	p.nstaged++
}

// publish makes the staged records visible, the last first: the consumer,
// which waits on the first, then finds all of them at once. The others'
// first words need only release stores (lowlevel.StoreReleaseUint64): every record's bytes
// are in place before any first word says so. The first one's store is a
// full fence, so that a sender that reads a sleeping flag after
// publishing reads it after its records are visible.
func (p *producer) publish() {
	if p.nstaged == 0 {
		return
	}
	for i := p.nstaged - 1; i > 0; i-- {
		lowlevel.StoreReleaseUint64(p.stamp(p.staged[i].pos), p.staged[i].end)
	}
	p.stamp(p.staged[0].pos).Store(p.staged[0].end)
	p.nstaged = 0
}

// consumer is the receiving side's state of a ring.
type consumer struct {
	ring
	head   uint64 // this side's copy of head
	from   int    // world rank of the producer
	broken bool   // a malformed record was found: the ring is not read again
	// ahead is how many lines after its first the last record filled, if
	// at most maxAhead, else 0: pending prefetches that many.
	ahead atomic.Uint32
	// help answers a help record (shared.go) with the copy's number.
	help func(seq uint64)
}

// pending reports whether a record waits to be read. It reads the shared
// head, not the consumer's copy: any poller may ask, without the lock that
// lets one of them drain.
//
// It also prefetches the lines that the next record fills after its
// first, if the last one was small: they are then fetched with the first
// line, when its word says the record is there, instead of after it. A
// 64-256 byte message took two line transfers in a row; the latency of
// those sizes fell by a fifth (0.64-0.72 -> 0.52-0.60 us). More than
// maxAhead lines, and a sender writing a large record would lose them to
// the prefetches while it writes: 1-4 KiB latency rose by 3-6 % when every
// poll prefetched four lines.
func (c *consumer) pending() bool {
	head := c.ring.head.Load()
	pos := head & uint64(len(c.data)-1)
	if n := uint64(c.ahead.Load()); n > 0 && pos+recAlign < uint64(len(c.data)) {
		end := min(pos+(n+1)*recAlign, uint64(len(c.data)))
		shm.Prefetch(c.data[pos+recAlign : end])
	}
	return c.stamp(pos).Load() > head
}

// freeEvery is how many records drain delivers between stores of head.
// When it was a full fence, a store per record kept the next record's
// line from being fetched before the last one was delivered; it is a
// release store now, but each store still takes head's line away from a
// producer that reads it.
const freeEvery = 16

// drain delivers every record published so far to recv, freeing their
// space as it goes. A malformed record stops it with an error: the ring
// can no longer be trusted.
func (c *consumer) drain(recv btl.Receiver) (int, error) {
	if c.head == 0 {
		c.prefault()
	}
	size := uint64(len(c.data))
	n := 0
	freed := c.head
	for {
		if n%freeEvery == 0 && c.head != freed {
			freed = c.head
			lowlevel.StoreReleaseUint64(c.ring.head, freed)
		}
		pos := c.head & (size - 1)
		end := c.stamp(pos).Load()
		if end <= c.head {
			if c.head != freed {
				lowlevel.StoreReleaseUint64(c.ring.head, c.head)
			}
			return n, nil
		}
		length := end - c.head
		if length%recAlign != 0 || length > size-pos {
			return n, fmt.Errorf("record of %d bytes at offset %d does not fit the ring", length, pos)
		}
		rec := c.data[pos : pos+length : pos+length]
		switch kind := rec[10] & kindMask; kind {
		case kindFrag:
			h := int(binary.LittleEndian.Uint16(rec[8:]))
			pl := int(binary.LittleEndian.Uint32(rec[12:]))
			if recordSize(h, pl) != int(length) || h == 0 {
				return n, fmt.Errorf("record at offset %d: header %d and payload %d bytes in a record of %d",
					pos, h, pl, length)
			}
			body := rec[recHeader : recHeader+h+pl]
			var t0 time.Time
			mark := shm.Mark(rec[10] >> markShift)
			if mark != 0 {
				t0 = time.Now()
			}
			if length > (maxAhead+1)*recAlign {
				// More lines than pending prefetched: ask for all of them now,
				// not as the receiver's copy reaches each (4 KiB 1.96 ->
				// 1.8 us with the sender's prefetches).
				shm.Prefetch(rec[recAlign:length])
			}
			recv.Deliver(c.from, body[:h:h], body[h:], false)
			if mark != 0 {
				c.reads.Record(mark, pl, time.Since(t0))
			}
			n++
			c.expect(length)
		case kindHelp:
			if length != recAlign || binary.LittleEndian.Uint16(rec[8:]) != 8 || binary.LittleEndian.Uint32(rec[12:]) != 0 {
				return n, fmt.Errorf("help record at offset %d is malformed", pos)
			}
			if c.help != nil {
				c.help(binary.LittleEndian.Uint64(rec[recHeader:]))
			}
		case kindPad:
			if pos+length != size {
				return n, fmt.Errorf("pad record at offset %d does not reach the end of the ring", pos)
			}
		default:
			return n, fmt.Errorf("record at offset %d of unknown kind %d", pos, kind)
		}
		c.head = end
	}
}

// answers reports whether the record that drain delivers next was
// written after its producer had read every record of this rank's up to
// next, where this rank's next record to it will start (producer.next): a
// ping-pong's answer, whose producer now polls the line at next, rather
// than a message of an exchange, crossed with this rank's last one, whose
// producer has yet to read that. The caller holds the ring for draining;
// pending saw the record.
func (c *consumer) answers(next uint64) bool {
	pos := c.head & uint64(len(c.data)-1)
	return c.data[pos+11] == c.lineByte(next)
}

// maxAhead bounds the lines pending prefetches: more, and a sender of
// large records has its lines taken away while it writes them.
const maxAhead = 4

// expect sets ahead from a record of length bytes.
func (c *consumer) expect(length uint64) {
	n := uint32(length/recAlign - 1)
	if n > maxAhead {
		n = 0
	}
	if c.ahead.Load() != n {
		c.ahead.Store(n)
	}
}
