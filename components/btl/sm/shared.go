package sm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/internal/lowlevel"

	"golang.org/x/sys/unix"
)

// A large message read with a single copy keeps one CPU copying while the
// sender's CPU polls for the FIN. From btl_sm_shared_copy_threshold on, when
// each rank has a CPU, the receiver asks its sender to copy part of it:
// it describes the copy in the pair's slot, sends a help record, and both
// claim pieces from the slot, the receiver from the front
// (process_vm_readv), the sender from the back (process_vm_writev into the
// receiver's buffer), each taking half of what is left, until they meet.
// The receiver returns once the sender's pieces are written too, so both
// buffers stay reachable for as long as either side copies: the sender's
// until the FIN that follows, the receiver's until Read returns. A sender
// that does not poll meanwhile costs the receiver one more system call:
// it takes the rest at once when its first half is done and the sender
// has claimed nothing.
//
// The slot's claim word holds the copy's sequence number with the two
// cursors, so that a help record that arrives after its copy ended, or a
// sender that looks while the receiver starts the next one, claims
// nothing: a claim is a compare-and-swap of the whole word.
type copySlot struct {
	claim atomic.Uint64 // seq<<40 | front<<20 | back, in units of 1<<unitShift bytes
	done  atomic.Uint64 // units the sender has written or given up on
	dst   atomic.Uint64 // the receiver's buffer
	src   atomic.Uint64 // the sender's buffer
	size  atomic.Uint64 // bytes to copy
	bad   atomic.Uint64 // 1<<63 | lo<<20 | hi: units the sender could not write
}

const (
	unitShift = 16 // pieces are multiples of 64 KiB
	cursorMax = 1<<20 - 1
	seqMax    = 1<<24 - 1
	// sharedMax is the largest message two copiers share.
	sharedMax = cursorMax << unitShift
)

func cursors(w uint64) (front, back uint64) { return w >> 20 & cursorMax, w & cursorMax }

// A sender that is busy copying messages of its own (both directions at
// once, as in bibw) seldom takes part: asking it costs a help record and
// splits the receiver's copy in two system calls for nothing, a fifth of a
// 256 KiB message's time here. After unhelpedLimit such copies in a row the
// receiver copies the next aloneCopies alone, then asks again.
const (
	unhelpedLimit = 2
	aloneCopies   = 16
)

// shares reports whether a single-copy read of n bytes from p is shared
// with p, and if so takes p's slot; the caller gives it back.
func (m *Module) shares(p *peer, n int) bool {
	if m.cfg.sharedCopyMin == 0 || n < m.cfg.sharedCopyMin || n > sharedMax || m.oversubscribed ||
		p.readsMe.Load() == 0 || !p.copying.CompareAndSwap(false, true) {
		return false
	}
	if p.alone > 0 {
		p.alone--
		p.copying.Store(false)
		return false
	}
	return true
}

// tally counts whether p took part in a shared copy of units units whose
// back cursor ended at back.
func (p *peer) tally(back, units uint64) {
	if back < units {
		p.unhelped = 0
		return
	}
	if p.unhelped++; p.unhelped >= unhelpedLimit {
		p.unhelped, p.alone = 0, aloneCopies
	}
}

// readShared copies len(dst) bytes at src in p's memory into dst, with p's
// help if p answers. The caller holds p's slot (shares).
func (m *Module) readShared(p *peer, src uintptr, dst []byte) error {
	defer p.copying.Store(false)
	slot := m.seg.copySlot(m.localRank, p.local)
	p.copySeq = p.copySeq%seqMax + 1
	seq := p.copySeq
	units := slot.start(seq, src, dst)
	if !m.askHelp(p, seq) {
		return readFrom(p.procID(), src, dst)
	}
	var err error
	for first := true; ; first = false {
		w := slot.claim.Load()
		front, back := cursors(w)
		if front >= back {
			break
		}
		k := (back - front + 1) / 2
		if !first && back == units { // the sender has not come: the rest at once
			k = back - front
		}
		if !slot.claim.CompareAndSwap(w, w+k<<20) {
			continue
		}
		lo, hi := int(front<<unitShift), min(int((front+k)<<unitShift), len(dst))
		if err == nil {
			err = readFrom(p.procID(), src+uintptr(lo), dst[lo:hi])
		}
	}
	_, back := cursors(slot.claim.Load())
	p.tally(back, units)
	return m.finishShared(p, slot, units, src, dst, err)
}

// finishShared waits for the sender's pieces of a shared copy whose every
// unit is claimed, then reads those the sender could not write. err is
// the receiver's own copy's.
func (m *Module) finishShared(p *peer, slot *copySlot, units uint64, src uintptr, dst []byte, err error) error {
	_, back := cursors(slot.claim.Load())
	if werr := m.awaitHelper(p, slot, units-back); werr != nil {
		return werr
	}
	if bad := slot.bad.Load(); bad != 0 && err == nil {
		lo, hi := cursors(bad)
		lo, hi = lo<<unitShift, min(hi<<unitShift, uint64(len(dst)))
		err = readFrom(p.procID(), src+uintptr(lo), dst[lo:hi])
	}
	return err
}

// start describes copy seq from src in the sender's memory to dst, every
// unit unclaimed, and returns the count of units.
func (s *copySlot) start(seq uint64, src uintptr, dst []byte) uint64 {
	units := uint64(len(dst)+1<<unitShift-1) >> unitShift
	s.done.Store(0)
	s.bad.Store(0)
	s.dst.Store(uint64(uintptr(unsafe.Pointer(unsafe.SliceData(dst)))))
	s.src.Store(uint64(src))
	s.size.Store(uint64(len(dst)))
	s.claim.Store(seq<<40 | units) // last: a sender that sees seq sees the rest
	return units
}

// askHelp sends p a help record for copy seq; false when p's ring is busy
// or full, and p is then never told.
func (m *Module) askHelp(p *peer, seq uint64) bool {
	if !p.sending.CompareAndSwap(false, true) {
		return false
	}
	defer lowlevel.UnlockFlag(&p.sending)
	if m.closed.Load() {
		return false
	}
	var hdr [8]byte
	binary.LittleEndian.PutUint64(hdr[:], seq)
	if !p.out.putKind(kindHelp, hdr[:], nil, nil, false) {
		return false
	}
	m.publish(p)
	return true
}

// awaitHelper waits until the sender has written the units it claimed.
// They are at most half of a copy the receiver made meanwhile, so this is
// a short spin, unless the sender died.
func (m *Module) awaitHelper(p *peer, slot *copySlot, units uint64) error {
	var since time.Time
	for spins := 1; slot.done.Load() < units; spins++ {
		if spins%64 == 0 {
			lowlevel.Gosched()
		}
		if spins%1024 != 0 {
			continue
		}
		if err := m.watch(p, &since); err != nil {
			return err
		}
	}
	return nil
}

// help writes pieces of copy seq, which rank p asked help with, from the
// back, until the two copiers meet. It runs in the poller that drains p's
// ring.
func (m *Module) help(p *peer, seq uint64) {
	if p.helpless {
		return
	}
	slot := m.seg.copySlot(p.local, m.localRank)
	for {
		w := slot.claim.Load()
		front, back := cursors(w)
		if w>>40 != seq || front >= back {
			return
		}
		k := (back - front + 1) / 2
		if !slot.claim.CompareAndSwap(w, w-k) {
			continue
		}
		size := slot.size.Load()
		lo, hi := (back-k)<<unitShift, min(back<<unitShift, size)
		err := writeTo(p.procID(), uintptr(slot.src.Load()+lo), uintptr(slot.dst.Load()+lo), int(hi-lo))
		if err != nil {
			// The receiver reads these itself; this rank helps p no more.
			slot.bad.Store(1<<63 | (back-k)<<20 | back)
			p.helpless = true
			m.log.Debug("cannot write into a receiver's memory; it copies alone", "peer", p.rank, "error", err)
		}
		slot.done.Add(k)
		if err != nil {
			return
		}
	}
}

// rawIovec is a struct iovec whose base is a number: the sender knows its
// own buffer here only by the address it exposed, which the request that
// owns the buffer keeps reachable.
type rawIovec struct {
	base uintptr
	len  uint64
}

// writeTo copies n bytes at address src in this process to address dst in
// process pid (process_vm_writev), in as many calls as the kernel needs.
func writeTo(pid int, src, dst uintptr, n int) error {
	for n > 0 {
		k := min(n, maxCopyCall)
		local := rawIovec{base: src, len: uint64(k)}
		remote := unix.RemoteIovec{Base: dst, Len: k}
		r, _, errno := unix.RawSyscall6(unix.SYS_PROCESS_VM_WRITEV, uintptr(pid),
			uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		if errno != 0 {
			return fmt.Errorf("process_vm_writev to pid %d: %w", pid, errno)
		}
		if int(r) <= 0 {
			return fmt.Errorf("process_vm_writev to pid %d wrote nothing", pid)
		}
		src, dst, n = src+r, dst+r, n-int(r)
		copyCallDone(n > 0)
	}
	return nil
}
