package sm

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// tryCMA reads the peer's probe word to learn whether the kernel lets
// this process read the peer's memory.
func (m *Module) tryCMA(rank int, ep endpoint) bool {
	if m.cfg.singleCopy == "none" || m.cfg.singleCopyMin == 0 {
		return false
	}
	var got [8]byte
	err := readFrom(ep.pid, uintptr(ep.probeAddr), got[:])
	if err == nil && *(*uint64)(unsafe.Pointer(&got)) == ep.probeValue {
		return true
	}
	if err == nil {
		err = errors.New("the probe word read back wrong")
	}
	if m.cfg.singleCopy == "cma" {
		m.log.Warn("cross-memory attach refused; large messages go through the ring", "peer", rank, "error", err)
	} else {
		m.log.Debug("cross-memory attach refused; large messages go through the ring", "peer", rank, "error", err)
	}
	return false
}

// setReadable records in the segment whether this rank may read p's
// memory: p exposes its buffers to this rank only while it may.
func (m *Module) setReadable(p *peer, ok bool) {
	var v uint32
	if ok {
		v = 1
	}
	m.seg.readable(m.localRank, p.local).Store(v)
}

// SingleCopyMin is btl_sm_single_copy_threshold for peers that can read
// this rank's memory with cross-memory attach (they said so in the
// segment), else 0.
func (m *Module) SingleCopyMin(rank int) int {
	if rank < 0 || rank >= len(m.peers) || m.cfg.singleCopy == "none" {
		return 0
	}
	if p := m.peers[rank]; p == nil || p.readsMe.Load() == 0 {
		return 0
	}
	return m.cfg.singleCopyMin
}

// Expose returns buf's address: the peer reads it with process_vm_readv.
// The Go heap does not move, and the caller keeps buf reachable until the
// peer has read it.
func (m *Module) Expose(_ int, buf []byte) uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
}

// Read copies from the buffer rank exposed as token. A refusal by the
// kernel turns single copy off for that peer.
func (m *Module) Read(rank int, token uint64, off int, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	p, err := m.singleCopyPeer(rank)
	if err != nil {
		return err
	}
	src := uintptr(token) + uintptr(off)
	if m.shares(p, len(dst)) {
		return m.readErr(p, rank, m.readShared(p, src, dst))
	}
	return m.readErr(p, rank, readFrom(p.procID(), src, dst))
}

// ReadAll reads several buffers that rank exposed, in as few system
// calls as it can (btl.VectorReader).
func (m *Module) ReadAll(rank int, tokens []uint64, dsts [][]byte) error {
	if len(tokens) != len(dsts) {
		return fmt.Errorf("read from world rank %d: %d tokens for %d buffers", rank, len(tokens), len(dsts))
	}
	p, err := m.singleCopyPeer(rank)
	if err != nil {
		return err
	}
	var addrs [maxVector]uintptr
	var bufs [maxVector][]byte
	for len(dsts) > 0 {
		n := 0
		for len(dsts) > 0 && n < maxVector {
			if len(dsts[0]) > 0 {
				addrs[n], bufs[n] = uintptr(tokens[0]), dsts[0]
				n++
			}
			tokens, dsts = tokens[1:], dsts[1:]
		}
		if n == 0 {
			break
		}
		if err := m.readErr(p, rank, readMany(p.procID(), addrs[:n], bufs[:n])); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) singleCopyPeer(rank int) (*peer, error) {
	if rank < 0 || rank >= len(m.peers) || m.peers[rank] == nil {
		return nil, fmt.Errorf("read from world rank %d: not a local peer", rank)
	}
	return m.peers[rank], nil
}

// readErr turns a failed read from rank into the module's error, and
// stops single copy to a peer whose kernel refuses it.
func (m *Module) readErr(p *peer, rank int, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) {
		m.setReadable(p, false) // the peer stops exposing its buffers to this rank
		m.log.Debug("cross-memory attach refused; large messages go through the ring", "peer", rank, "error", err)
	}
	return fmt.Errorf("read from world rank %d: %w", rank, err)
}
