package sm

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

// The segment: a header line, a wake-up line per rank, then two blocks per
// rank (rank r's block of parity p is block 2r+p). A block starts with its
// epoch word and the length of its data, so that a contribution of up to
// 48 bytes travels in the epoch's own cache line. Rank r's wake-up line
// holds the number of ranks asleep waiting for r's words (offSleepers)
// and the futex word they sleep on (offWake), and r's latest call and
// its root (announce.go).
const (
	magic       = 0x6c6c6f6369706d67 // "gmpicoll", little-endian
	version     = 8
	offSleepers = 0
	offWake     = 4
	line        = 64
	headerBytes = line
	offEpoch    = 0  // uint64: the epoch whose data the block holds
	offLen      = 8  // uint64: the contribution's length, its call and root (lengthWord)
	offData     = 16 // the data of a contribution that fits in the epoch's line (dataOff)
)

// dataOff is where the data of a contribution of total bytes starts in a
// block: in the epoch word's line if it fits there, so that a small call
// moves one line, else at the next line. Copies in and out of a block are
// then as line-aligned as the user's buffer (Go's large slices are
// page-aligned): with data 16 bytes into a line, a string copy from an
// aligned buffer went 16 bytes out of step and a 4-rank NeighborAlltoall
// of 256 KiB-1 MiB took 1.13-1.18 times as long.
func dataOff(total int) int {
	if total <= line-offData {
		return offData
	}
	return line
}

// layout is the geometry of a communicator's segment.
type layout struct {
	ranks, maxBytes int
	stride          int // bytes per block, whole cache lines
}

func newLayout(ranks, maxBytes int) layout {
	return layout{ranks: ranks, maxBytes: maxBytes, stride: (line + maxBytes + line - 1) &^ (line - 1)}
}

func (l layout) blocks() int { return headerBytes + l.ranks*line }

func (l layout) size() int { return l.blocks() + 2*l.ranks*l.stride }

// segment is one rank's mapping of a communicator's segment.
type segment struct {
	mem []byte
	lay layout
}

// offToken is the header's word that names the segment among those a
// process has mapped (a random number its creator drew), for the reuse of
// pooled segments (pool.go).
const offToken = 24

// token is the segment's name among those a process has mapped.
func (s *segment) token() uint64 { return binary.LittleEndian.Uint64(s.mem[offToken:]) }

// newToken draws a segment's token: never 0, which names none.
func newToken() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return max(binary.LittleEndian.Uint64(b[:]), 1)
}

// block returns the block of rank r and parity p.
func (s *segment) block(r int, p uint64) []byte {
	off := s.lay.blocks() + (2*r+int(p))*s.lay.stride
	return s.mem[off : off+s.lay.stride : off+s.lay.stride]
}

// wakeWord32 and wakeWord64 are the words at byte off of rank r's wake-up
// line.
func (s *segment) wakeWord32(r, off int) *atomic.Uint32 {
	return lowlevel.Uint32At(s.mem, headerBytes+r*line+off)
}

func (s *segment) wakeWord64(r, off int) *atomic.Uint64 {
	return lowlevel.Uint64At(s.mem, headerBytes+r*line+off)
}

// wakeLine returns rank r's sleeper count and futex word.
func (s *segment) wakeLine(r int) (sleepers, wake *atomic.Uint32) {
	return s.wakeWord32(r, offSleepers), s.wakeWord32(r, offWake)
}

func epochWord(b []byte) *atomic.Uint64 { return lowlevel.Uint64At(b, offEpoch) }

// The length is a plain word: it is written before the epoch word is
// raised and read after it is seen, which orders it.
func lenWord(b []byte) *uint64 { return lowlevel.Word64At(b, offLen) }

func (s *segment) unmap() error {
	if s == nil || s.mem == nil {
		return nil
	}
	err := unix.Munmap(s.mem)
	s.mem = nil
	return err
}

// segmentPath names a communicator's segment after its id, which begins
// with the job's: the launcher's clean-up of a killed job removes
// gompi.<job>.* from /dev/shm.
func segmentPath(dir, id string) string { return filepath.Join(dir, "gompi."+id+".coll") }

// attach maps the communicator's segment on every member: rank 0 creates
// it and tells the others where, each maps it and answers, rank 0 removes
// its name and tells everyone whether all succeeded. It returns nil, with
// no error, on every member if any could not map it (the component then
// declines); an error is a message that failed.
func attach(c coll.Comm, place placement, log hclog.Logger) (*segment, error) {
	if c.Rank() == 0 {
		return attachRoot(c, place, log)
	}
	var ok [1]byte
	if err := c.Recv(ok[:], 0, coll.TagShared); err != nil {
		return nil, setupErr(err)
	}
	if ok[0] == 0 {
		return nil, nil // rank 0 could not create it and expects no answer
	}
	dir := place.dir
	if ok[0] == inSession {
		dir = place.session
	}
	seg, err := openSegment(segmentPath(dir, place.id), place.lay)
	ok[0] = 1 // mapped
	if err != nil {
		log.Debug("cannot map the communicator's segment; the component declines it", "comm", c.Name(), "error", err)
		ok[0] = 0
	}
	if err := c.Send(ok[:], 0, coll.TagShared); err != nil {
		_ = seg.unmap()
		return nil, setupErr(err)
	}
	err = c.Recv(ok[:], 0, coll.TagShared)
	if err != nil || ok[0] == 0 {
		_ = seg.unmap()
		return nil, setupErr(err)
	}
	return seg, nil
}

// Where rank 0 made the segment, as it tells the others (0: nowhere).
const (
	inDir     = 1
	inSession = 2
)

func attachRoot(c coll.Comm, place placement, log hclog.Logger) (*segment, error) {
	where := byte(inDir)
	path := segmentPath(place.dir, place.id)
	seg, err := createSegment(path, place.lay)
	if err != nil && place.session != "" && place.dir != place.session && shm.DirRefused(err) {
		place.refused(err)
		where, path = inSession, segmentPath(place.session, place.id)
		seg, err = createSegment(path, place.lay)
	}
	if err != nil {
		log.Debug("cannot create the communicator's segment; the component declines it", "comm", c.Name(), "error", err)
	}
	created := []byte{0}
	if seg != nil {
		created[0] = where
	}
	var errs []error
	for r := 1; r < c.Size(); r++ {
		errs = append(errs, c.Send(created, r, coll.TagShared))
	}
	if seg == nil {
		return nil, setupErr(errors.Join(errs...))
	}
	verdict := []byte{1}
	for r := 1; r < c.Size(); r++ {
		var ok [1]byte // 1: mapped
		if err := c.Recv(ok[:], r, coll.TagShared); err != nil {
			errs = append(errs, err)
		}
		verdict[0] &= ok[0]
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("cannot remove the communicator's segment file", "path", path, "error", err)
	}
	for r := 1; r < c.Size(); r++ {
		errs = append(errs, c.Send(verdict, r, coll.TagShared))
	}
	if err := errors.Join(errs...); err != nil || verdict[0] == 0 {
		_ = seg.unmap()
		return nil, setupErr(err)
	}
	return seg, nil
}

// setupErr says that err came from the segment's set-up, a step of the
// call that only sm knows of.
func setupErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("segment set-up: %w", err)
}

// createSegment makes the segment's file, which must not exist (one that
// does is a stale one or another job's), sizes it, maps it and writes the
// header.
func createSegment(path string, lay layout) (*segment, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Reserve the memory now: a tmpfs that runs out later would kill the
	// rank with SIGBUS in a collective instead of making sm decline.
	err = unix.Fallocate(int(f.Fd()), 0, 0, int64(lay.size()))
	var seg *segment
	if err == nil {
		seg, err = mapFile(f, lay)
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	h := seg.mem[:headerBytes]
	binary.LittleEndian.PutUint64(h[0:], magic)
	binary.LittleEndian.PutUint32(h[8:], version)
	binary.LittleEndian.PutUint32(h[12:], uint32(lay.ranks))
	binary.LittleEndian.PutUint64(h[16:], uint64(lay.maxBytes))
	binary.LittleEndian.PutUint64(h[offToken:], newToken())
	return seg, nil
}

// openSegment maps a segment that rank 0 created and checks that its
// header describes the layout this rank expects.
func openSegment(path string, lay layout) (*segment, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != int64(lay.size()) {
		if err == nil {
			err = fmt.Errorf("%s holds %d bytes, want %d", path, fi.Size(), lay.size())
		}
		return nil, err
	}
	seg, err := mapFile(f, lay)
	if err != nil {
		return nil, err
	}
	h := seg.mem[:headerBytes]
	m, v := binary.LittleEndian.Uint64(h[0:]), binary.LittleEndian.Uint32(h[8:])
	n, b := binary.LittleEndian.Uint32(h[12:]), binary.LittleEndian.Uint64(h[16:])
	if m != magic || v != version || int(n) != lay.ranks || int(b) != lay.maxBytes {
		_ = seg.unmap()
		return nil, fmt.Errorf("%s is not this communicator's segment (magic %#x version %d, %d ranks, %d bytes per block; want %#x %d, %d, %d)",
			path, m, v, n, b, uint64(magic), version, lay.ranks, lay.maxBytes)
	}
	return seg, nil
}

// mapFile maps the segment without touching it: a page is faulted in
// by the first call that uses it, so a communicator pays only for the
// blocks its calls fill. Populating the whole mapping and reading every
// page (5-6 us a page on a virtual machine, where the first access from
// each process traps even after MAP_POPULATE) made the set-up 2-4 times
// longer: 1.7-10 ms at 2-8 ranks against 0.6-4 ms.
func mapFile(f *os.File, lay layout) (*segment, error) {
	mem, err := unix.Mmap(int(f.Fd()), 0, lay.size(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return &segment{mem: mem, lay: lay}, nil
}
