package sm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/internal/lowlevel"

	"golang.org/x/sys/unix"
)

// The segment is one file per job and host, mapped by every local rank:
//
//	header (4 KiB): magic, layout version, local size, ring size, job id,
//	                the count of ranks that mapped it
//	rank blocks:    per local rank, three cache lines: its wake-up word,
//	                its count of sleeping threads, its pid and state
//	readable:       per local rank a row of words, one per local rank: 1
//	                where the row's rank may read that rank's memory
//	                (cross-memory attach), written by the row's rank only
//	copy slots:     per ordered pair (receiver, sender) of local ranks, a
//	                line in which the two share out the copy of one large
//	                message (shared.go)
//	blocking ways:  per ordered pair (receiver, sender) of local ranks, a
//	                line of words, one per size class, in which the receiver
//	                says which way the sender's blocking sends should take
//	                (blocking.go)
//	rings:          per ordered pair (sender, receiver) of local ranks, a
//	                line with the consumer's head and what its reads of the
//	                sender's timed copies took (shm.ReadCosts), then
//	                ring_size bytes of records
//
// Every field that two processes write or read concurrently has a cache
// line of its own, so a producer's stores never evict the consumer's line;
// the readable table, written at AddProcs and on a refusal only, is packed,
// and so is a pair's line of blocking ways, written when a way changes.
const (
	segMagic      = "GOMPISM\x00"
	layoutVersion = 7
	lineSize      = 64
	headerSize    = 4096
	rankBlockSize = 3 * lineSize
	ringCtlSize   = lineSize
	maxJobID      = 64
)

// A ring's control line holds its head, then its reader's costs.
var _ [ringCtlSize - 8 - unsafe.Sizeof(shm.ReadCosts{})]struct{}

// Header field offsets.
const (
	offMagic     = 0
	offVersion   = 8
	offLocalSize = 12
	offRingSize  = 16
	offJobIDLen  = 24
	offJobID     = 32
	offAttached  = 128
)

// Rank states, in the rank block.
const (
	stateNone uint32 = iota
	stateAttached
	stateFinalized
)

// layout computes where everything lives for a number of local ranks and a
// ring size.
type layout struct {
	localSize   int
	ringSize    int
	readableOff int
	slotsOff    int
	waysOff     int
	ringsOff    int
	stride      int
	total       int
}

func newLayout(localSize, ringSize int) layout {
	l := layout{localSize: localSize, ringSize: ringSize}
	l.readableOff = headerSize + localSize*rankBlockSize
	l.slotsOff = l.readableOff + alignUp(localSize*localSize*4, lineSize)
	l.waysOff = l.slotsOff + localSize*localSize*lineSize
	l.ringsOff = alignUp(l.waysOff+localSize*localSize*lineSize, 4096)
	l.stride = ringCtlSize + ringSize
	l.total = l.ringsOff + localSize*localSize*l.stride
	return l
}

func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

// segment is one process's mapping of the job's segment.
type segment struct {
	path string
	mem  []byte
	lay  layout
}

// segmentPath names the segment of a job in dir.
func segmentPath(dir, jobID string) string {
	return filepath.Join(dir, "gompi."+jobID+".sm")
}

// createSegment makes the segment file for a job and maps it. The file
// must not exist: one that does is a stale segment or another job's, and
// is refused rather than reused.
func createSegment(path, jobID string, lay layout) (*segment, error) {
	if len(jobID) == 0 || len(jobID) > maxJobID {
		return nil, fmt.Errorf("job id %q: want 1 to %d bytes", jobID, maxJobID)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("segment %s already exists: it is left from an earlier job or belongs to another; "+
			"remove it, or choose another directory with btl_sm_backing_directory", path)
	}
	if err != nil {
		return nil, fmt.Errorf("creating the segment: %w", err)
	}
	defer f.Close()
	// Reserve the memory now: a tmpfs that runs out later would kill the
	// rank with SIGBUS when it touches the page.
	if err := unix.Fallocate(int(f.Fd()), 0, 0, int64(lay.total)); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("reserving %d bytes for the segment %s: %w (a smaller btl_sm_ring_size, or "+
			"btl_sm_backing_directory on a larger file system, may help)", lay.total, path, err)
	}
	// Populated at once: a page first touched in a send or a poll costs a
	// fault, tens of microseconds on a virtual machine.
	mem, err := unix.Mmap(int(f.Fd()), 0, lay.total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("mapping the segment %s: %w", path, err)
	}
	s := &segment{path: path, mem: mem, lay: lay}
	binary.LittleEndian.PutUint32(mem[offVersion:], layoutVersion)
	binary.LittleEndian.PutUint32(mem[offLocalSize:], uint32(lay.localSize))
	binary.LittleEndian.PutUint64(mem[offRingSize:], uint64(lay.ringSize))
	binary.LittleEndian.PutUint32(mem[offJobIDLen:], uint32(len(jobID)))
	copy(mem[offJobID:offJobID+maxJobID], jobID)
	// The magic last: a segment with it is complete.
	lowlevel.Uint64At(mem, offMagic).Store(binary.LittleEndian.Uint64([]byte(segMagic)))
	return s, nil
}

// openSegment maps the segment that another local rank created, after
// checking that it is this job's and of this layout.
func openSegment(path, jobID string, localSize int) (*segment, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the segment: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", path, err)
	}
	if fi.Size() < headerSize {
		return nil, fmt.Errorf("segment %s is %d bytes, too small to be a gompi segment", path, fi.Size())
	}
	hdr := make([]byte, headerSize)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return nil, fmt.Errorf("reading the segment %s: %w", path, err)
	}
	lay, err := checkHeader(hdr, jobID, localSize)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", path, err)
	}
	if fi.Size() < int64(lay.total) {
		return nil, fmt.Errorf("segment %s is %d bytes; its layout needs %d", path, fi.Size(), lay.total)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, lay.total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mapping the segment %s: %w", path, err)
	}
	return &segment{path: path, mem: mem, lay: lay}, nil
}

// checkHeader refuses a segment that is not this job's or not of this
// layout, naming what differs.
func checkHeader(hdr []byte, jobID string, localSize int) (layout, error) {
	if !bytes.Equal(hdr[offMagic:offMagic+8], []byte(segMagic)) {
		return layout{}, fmt.Errorf("not a gompi shared-memory segment (magic %q)", hdr[offMagic:offMagic+8])
	}
	if v := binary.LittleEndian.Uint32(hdr[offVersion:]); v != layoutVersion {
		return layout{}, fmt.Errorf("layout version %d; this gompi uses version %d", v, layoutVersion)
	}
	n := binary.LittleEndian.Uint32(hdr[offJobIDLen:])
	if n > maxJobID {
		return layout{}, fmt.Errorf("job id of %d bytes; at most %d", n, maxJobID)
	}
	if got := string(hdr[offJobID : offJobID+n]); got != jobID {
		return layout{}, fmt.Errorf("belongs to job %q, not to this job %q", got, jobID)
	}
	if ls := int(binary.LittleEndian.Uint32(hdr[offLocalSize:])); ls != localSize {
		return layout{}, fmt.Errorf("made for %d local ranks; this host has %d", ls, localSize)
	}
	rs := binary.LittleEndian.Uint64(hdr[offRingSize:])
	if rs < minRingSize || rs > maxRingSize || rs&(rs-1) != 0 {
		return layout{}, fmt.Errorf("ring size %d out of range", rs)
	}
	return newLayout(localSize, int(rs)), nil
}

// retire gives the job's memory back: the mapping is replaced by zero
// pages that cannot be written. A poller that looks without a lock (an
// empty poll takes none) may still read it after Finalize, and finds empty
// rings instead of a fault. Only the address range stays reserved.
func (s *segment) retire() error {
	if s.mem == nil {
		return nil
	}
	_, err := unix.MmapPtr(-1, 0, unsafe.Pointer(unsafe.SliceData(s.mem)), uintptr(len(s.mem)),
		unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	if err != nil {
		return fmt.Errorf("releasing the segment's memory: %w", err)
	}
	return nil
}

// unlink removes the segment's name; the mappings stay valid.
func (s *segment) unlink() error {
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func (s *segment) u32(off int) *atomic.Uint32 {
	return lowlevel.Uint32At(s.mem, off)
}

func (s *segment) u64(off int) *atomic.Uint64 {
	return lowlevel.Uint64At(s.mem, off)
}

// attached counts the local ranks that mapped the segment.
func (s *segment) attached() *atomic.Uint32 { return s.u32(offAttached) }

// rankBlock is a local rank's shared words.
type rankBlock struct {
	wake     *atomic.Uint32 // futex word: bumped to wake the rank
	sleeping *atomic.Uint32 // threads of the rank that may sleep on wake
	pid      *atomic.Uint32
	state    *atomic.Uint32
}

// rouse wakes the rank if some thread of it sleeps on its wake word.
func (b rankBlock) rouse() {
	if b.sleeping.Load() != 0 {
		b.wake.Add(1)
		lowlevel.FutexWake(b.wake)
	}
}

func (s *segment) rank(local int) rankBlock {
	off := headerSize + local*rankBlockSize
	return rankBlock{
		wake:     s.u32(off),
		sleeping: s.u32(off + lineSize),
		pid:      s.u32(off + 2*lineSize),
		state:    s.u32(off + 2*lineSize + 4),
	}
}

// readable is the word in which local rank reader says whether it may read
// local rank target's memory. A sender asks its receiver's word before it
// exposes a buffer: the kernel's permission need not be symmetric (Yama's
// ptrace scope, differing credentials).
func (s *segment) readable(reader, target int) *atomic.Uint32 {
	return s.u32(s.lay.readableOff + (reader*s.lay.localSize+target)*4)
}

// copySlot is the line in which local rank receiver and local rank
// sender share out the copy of a message (shared.go).
func (s *segment) copySlot(receiver, sender int) *copySlot {
	return (*copySlot)(unsafe.Pointer(&s.mem[s.lay.slotsOff+(receiver*s.lay.localSize+sender)*lineSize]))
}

// blockingWays is the line in which local rank receiver tells local rank
// sender which way its blocking sends should take (blocking.go).
func (s *segment) blockingWays(receiver, sender int) *blockingWays {
	return (*blockingWays)(unsafe.Pointer(&s.mem[s.lay.waysOff+(receiver*s.lay.localSize+sender)*lineSize]))
}

// ring returns the ring that carries fragments from local rank from to
// local rank to.
func (s *segment) ring(from, to int) ring {
	off := s.lay.ringsOff + (from*s.lay.localSize+to)*s.lay.stride
	return ring{
		head:  s.u64(off),
		reads: (*shm.ReadCosts)(unsafe.Pointer(&s.mem[off+8])),
		data:  s.mem[off+ringCtlSize : off+ringCtlSize+s.lay.ringSize : off+ringCtlSize+s.lay.ringSize],
	}
}
