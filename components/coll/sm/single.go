package sm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/coll"
)

// Single copy. A call larger than coll_sm_max_bytes goes through the
// segment too when every member may read every other's memory with
// cross-memory attach (process_vm_readv): a rank's block then carries the
// addresses and lengths of its buffers, and the ranks that need their
// contents copy them straight into their own buffers. One copy and no
// message, where the next module (tuned over btl sm) pays a request, a
// match, a request-to-send and a finish message for each of its
// messages, and folds a reduction's whole vector at one rank.
//
// A rank whose buffer others read stays in the call until they raised a
// word that says they are done, and keeps the buffer alive until then
// (runtime.KeepAlive): the Go runtime moves no heap object, but it may
// free one whose last use has passed.
//
// Whether every member can read every other is learned at the first call
// that needs it, the same call on every member: each rank reads each
// other's probe word (published in its wake-up line when the module was
// made) and posts its verdict; every rank then waits for all verdicts, so
// that all choose the same path.

// Fields of a rank's wake-up line beyond the sleeper count and futex word.
const (
	offPid        = 8  // uint32: the rank's process id
	offProbeAddr  = 16 // uint64: where its probe word lives
	offProbeValue = 24 // uint64: the probe word's value; non-zero once published
	offVerdict    = 32 // uint32: whether it can read every member (verdict*)
)

const (
	verdictUnknown = iota
	verdictYes
	verdictNo
)

// descBytes is the size of a single-copy descriptor: two buffers, each an
// address and a length.
const descBytes = 32

// chunkBytes is how much of another rank's operand a fold reads at a
// time: the scratch it is read into stays in the cache while it is folded
// in, and a read costs about 2 us of system call before it copies a byte.
const chunkBytes = 256 << 10

// desc is what a rank publishes for a single-copy epoch.
type desc struct {
	addr [2]uintptr
	n    [2]int
}

func encodeDesc(bufs ...[]byte) []byte {
	var b [descBytes]byte
	for i, buf := range bufs {
		binary.LittleEndian.PutUint64(b[16*i:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))))
		binary.LittleEndian.PutUint64(b[16*i+8:], uint64(len(buf)))
	}
	return b[:]
}

func decodeDesc(b []byte) desc {
	var d desc
	for i := range d.addr {
		d.addr[i] = uintptr(binary.LittleEndian.Uint64(b[16*i:]))
		d.n[i] = int(binary.LittleEndian.Uint64(b[16*i+8:]))
	}
	return d
}

// publishProbe makes this rank's probe word readable by the others.
func (m *module) publishProbe() {
	pid := unix.Getpid()
	m.probe[0] = uint64(pid)<<32 | uint64(m.me)<<1 | 1 // non-zero, its own per rank
	m.seg.wakeWord32(m.me, offPid).Store(uint32(pid))
	m.seg.wakeWord64(m.me, offProbeAddr).Store(uint64(uintptr(unsafe.Pointer(m.probe))))
	m.seg.wakeWord64(m.me, offProbeValue).Store(m.probe[0])
}

// singlePays reports whether single copy beats the next module (tuned over
// btl sm) for a call of collective name of size bytes per rank on n
// ranks, as measured on 2, 4 and 8 ranks sharing 2 CPUs (32 KiB-1 MiB):
// bcast, gather, scatter and allgather read each buffer once where tuned
// forwards it along a tree or ring, and win everywhere (0.6-0.9 of
// tuned's time). The others win on 2 ranks (0.7-0.95); on more, the
// root's serial reads and folds make reduce lose above 128 KiB (1.2), an
// alltoall's many reads and final barrier lose to tuned's exchange but
// on 4 ranks from 2 MiB a rank (8 ranks: 1.0-1.6; 4 ranks, blocks of
// 64 KiB: 68-73 us against tuned's 64-67, 512 KiB-1 MiB: 0.9-1.0), and
// allreduce's three phases lose below 64 KiB on 4 ranks and below
// 256 KiB on 8 (up to 2.0), winning above (0.64-0.96).
func singlePays(name string, n, size int) bool {
	switch name {
	case "reduce":
		return n == 2 || size <= 128<<10
	case "alltoall":
		return n == 2 || n <= 4 && size >= 2<<20
	case "allreduce":
		return n == 2 || size >= 256<<10 || n <= 4 && size >= 64<<10
	}
	return true
}

// singleCopy reports whether a call too large for the blocks goes by
// single copy; the first such call settles it for every member. A rank
// whose coll_sm_single_copy is false takes part, and says no.
func (m *module) singleCopy() (bool, error) {
	if m.verdict != verdictUnknown {
		return m.verdict == verdictYes, nil
	}
	mine := uint32(verdictYes)
	if !m.single {
		mine = verdictNo
	}
	for r := 0; r < m.n && mine == verdictYes; r++ {
		if r == m.me {
			continue
		}
		value := m.seg.wakeWord64(r, offProbeValue)
		if err := m.waitFor(r, func() bool { return value.Load() != 0 }); err != nil {
			return false, err
		}
		pid := int(m.seg.wakeWord32(r, offPid).Load())
		m.pids[r] = pid
		var got [8]byte
		err := readFrom(pid, uintptr(m.seg.wakeWord64(r, offProbeAddr).Load()), got[:])
		if err == nil && binary.LittleEndian.Uint64(got[:]) != value.Load() {
			err = errors.New("the probe word read back wrong")
		}
		if err != nil {
			m.log.Debug("cross-memory attach refused; large collectives go to the next component",
				"comm", m.comm.Name(), "peer", r, "error", err)
			mine = verdictNo
		}
	}
	m.seg.wakeWord32(m.me, offVerdict).Store(mine)
	all := uint32(verdictYes)
	for r := range m.n {
		v := m.seg.wakeWord32(r, offVerdict)
		if err := m.waitFor(r, func() bool { return v.Load() != verdictUnknown }); err != nil {
			return false, err
		}
		if v.Load() != verdictYes {
			all = verdictNo
		}
	}
	m.verdict = all
	return all == verdictYes, nil
}

// waitFor polls until rank r is ready, letting the engine progress and
// giving the CPU away between looks: it runs once per communicator. A
// rank that is not in this call the way this one is never gets ready.
func (m *module) waitFor(r int, ready func() bool) error {
	for i := 1; !ready(); i++ {
		if err := m.poller.Poll(); err != nil {
			return err
		}
		if i%16 == 0 {
			m.tell()
			if err := m.mismatch(r, m.cur, ready); err != nil {
				return err
			}
		}
		runtime.Gosched()
		yield()
	}
	return nil
}

// readFrom copies len(dst) bytes at addr in process pid into dst. A raw
// system call, as btl sm's: the runtime does not hand this rank's
// processor to another thread during the copy.
func readFrom(pid int, addr uintptr, dst []byte) error {
	for len(dst) > 0 {
		local := unix.Iovec{Base: &dst[0]}
		local.SetLen(len(dst))
		remote := unix.RemoteIovec{Base: addr, Len: len(dst)}
		n, _, errno := unix.RawSyscall6(unix.SYS_PROCESS_VM_READV, uintptr(pid),
			uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		if errno != 0 {
			return fmt.Errorf("process_vm_readv from pid %d: %w", pid, errno)
		}
		if n == 0 {
			return fmt.Errorf("process_vm_readv from pid %d read nothing", pid)
		}
		dst, addr = dst[n:], addr+n
	}
	return nil
}

// expose publishes bufs as this rank's contribution to the current epoch.
func (m *module) expose(p uint64, bufs ...[]byte) error {
	if err := m.write(p, encodeDesc(bufs...)); err != nil {
		return err
	}
	m.raise(p)
	return nil
}

// peer waits for rank r's descriptor of the current epoch.
func (m *module) peer(r int, p uint64) (desc, error) {
	b, err := m.read(r, p, descBytes)
	if err != nil {
		return desc{}, err
	}
	return decodeDesc(b), nil
}

// pull copies rank r's buffer i, which must be want bytes long, from byte
// off on, into dst.
func (m *module) pull(r int, d desc, i, want, off int, dst []byte) error {
	if err := sameLength(r, d.n[i], want); err != nil {
		return err
	}
	if err := readFrom(m.pids[r], d.addr[i]+uintptr(off), dst); err != nil {
		return fmt.Errorf("reading rank %d's buffer: %w", r, err)
	}
	return nil
}

// offer exposes send to the root and waits for the root's word, which it
// raises once it has read every rank's buffer.
func (m *module) offer(p uint64, root int, send []byte) error {
	err := m.expose(p, send)
	if err == nil {
		err = m.await(root, m.epoch)
	}
	runtime.KeepAlive(send)
	return err
}

// awaitAll waits until every other rank raised a word to the current
// epoch.
func (m *module) awaitAll() error {
	for r := range m.n {
		if r != m.me {
			if err := m.await(r, m.epoch); err != nil {
				return err
			}
		}
	}
	return nil
}

// scratch returns a buffer of n bytes that the module keeps.
func scratch(b *[]byte, n int) []byte {
	if cap(*b) < n {
		*b = make([]byte, n)
	}
	return (*b)[:n]
}

// provide exposes buf, which the others read, and waits until all of
// them raised their word: they are done with it.
func (m *module) provide(p uint64, buf []byte) error {
	err := m.expose(p, buf)
	if err == nil {
		err = m.awaitAll()
	}
	runtime.KeepAlive(buf)
	return err
}

// take copies want bytes of root's buffer from byte off on into dst, and
// raises this rank's word even after an error: the root waits for it.
func (m *module) take(p uint64, root, want, off int, dst []byte) error {
	d, err := m.peer(root, p)
	if err == nil {
		err = m.pull(root, d, 0, want, off, dst)
	}
	m.raise(p)
	return err
}

func (m *module) bcastSingle(buf []byte, root int) error {
	p := m.begin("bcast")
	if m.me == root {
		return m.provide(p, buf)
	}
	return m.take(p, root, len(buf), 0, buf)
}

// gatherSingle: the root reads every rank's send buffer into its place;
// the others wait for the root's word, raised once it has read them all.
func (m *module) gatherSingle(send, recv []byte, root int) error {
	p := m.begin("gather")
	k := len(send)
	if m.me != root {
		return m.offer(p, root, send)
	}
	shm.CopyCached(recv[root*k:(root+1)*k], send)
	err := m.fromEach(p, func(r int, d desc) error { return m.pull(r, d, 0, k, 0, recv[r*k:(r+1)*k]) })
	m.raise(p)
	return err
}

// scatterSingle: every rank reads its block of the root's send buffer.
func (m *module) scatterSingle(send, recv []byte, root int) error {
	p := m.begin("scatter")
	k := len(recv)
	if m.me == root {
		shm.CopyCached(recv, send[root*k:(root+1)*k])
		return m.provide(p, send)
	}
	return m.take(p, root, m.n*k, m.me*k, recv)
}

// fromEach waits for every other rank's descriptor of the current epoch,
// starting with the next rank (each rank starts with a different one), and
// calls f with it.
func (m *module) fromEach(p uint64, f func(r int, d desc) error) error {
	for i := 1; i < m.n; i++ {
		r := (m.me + i) % m.n
		d, err := m.peer(r, p)
		if err == nil {
			err = f(r, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// allgatherSingle: every rank reads every other's send buffer.
func (m *module) allgatherSingle(send, recv []byte) error {
	p := m.begin("allgather")
	k := len(send)
	err := m.expose(p, send)
	shm.CopyCached(recv[m.me*k:(m.me+1)*k], send)
	if err == nil {
		err = m.fromEach(p, func(r int, d desc) error { return m.pull(r, d, 0, k, 0, recv[r*k:(r+1)*k]) })
	}
	// A barrier epoch: past it, every rank has read all it needed.
	if derr := m.sync("allgather"); err == nil {
		err = derr
	}
	runtime.KeepAlive(send)
	return err
}

// alltoallSingle: every rank reads its block of every other's send buffer.
func (m *module) alltoallSingle(send, recv []byte) error {
	p := m.begin("alltoall")
	k := len(send) / m.n
	err := m.expose(p, send)
	shm.CopyCached(recv[m.me*k:(m.me+1)*k], send[m.me*k:(m.me+1)*k])
	if err == nil {
		err = m.fromEach(p, func(r int, d desc) error { return m.pull(r, d, 0, len(send), m.me*k, recv[r*k:(r+1)*k]) })
	}
	// A barrier epoch: past it, every rank has read all it needed.
	if derr := m.sync("alltoall"); err == nil {
		err = derr
	}
	runtime.KeepAlive(send)
	return err
}

// slice is rank i's part of a vector of size bytes, in whole elements of
// es bytes: [lo, hi).
func slice(i, n, size, es int) (lo, hi int) {
	elems := size / es
	return i * elems / n * es, (i + 1) * elems / n * es
}

// foldSlice reduces bytes [lo, lo+len(dst)) of every rank's send buffer,
// whose descriptors are m.ds (this rank's own is send), into dst, in rank
// order: dst = b0 ⊕ (b1 ⊕ (... ⊕ b(n-1))), as combine does. The last
// rank's part is read straight into dst, in one system call; the others'
// a chunk at a time into scratch, which stays in the cache while it is
// folded in.
func (m *module) foldSlice(send, dst []byte, op coll.Op, lo int) error {
	ds := m.ds
	last := m.n - 1
	if last == m.me {
		shm.CopyCached(dst, send[lo:])
	} else if err := m.pull(last, ds[last], 0, len(send), lo, dst); err != nil {
		return err
	}
	es := op.ElemSize()
	step := max(chunkBytes/es*es, es)
	for r := last - 1; r >= 0; r-- {
		if r == m.me {
			op.Reduce(send[lo:lo+len(dst)], dst)
			continue
		}
		tmp := scratch(&m.tmp, min(step, len(dst)))
		for c := 0; c < len(dst); c += step {
			out := dst[c:min(c+step, len(dst))]
			in := tmp[:len(out)]
			if err := m.pull(r, ds[r], 0, len(send), lo+c, in); err != nil {
				return err
			}
			op.Reduce(in, out)
		}
	}
	return nil
}

// reduceSingle: the root reads every other send buffer and folds them
// all; the others wait for its word, raised once it is done. Spreading
// the folding over the ranks (each folds a slice, the root gathers the
// slices) was slower on 2, 4 and 8 ranks at every size up to 1 MiB: one
// more read and two more handshakes, on CPUs the ranks share.
func (m *module) reduceSingle(send, recv []byte, op coll.Op, root int) error {
	p := m.begin("reduce")
	if m.me != root {
		return m.offer(p, root, send)
	}
	err := m.collectDescs(p)
	if err == nil {
		err = m.foldSlice(send, recv, op, 0)
	}
	m.raise(p)
	return err
}

// allreduceSingle: each rank folds its slice of every send buffer into
// its receive buffer, then reads every other rank's slice from theirs.
func (m *module) allreduceSingle(send, recv []byte, op coll.Op) error {
	p := m.begin("allreduce")
	err := m.expose(p, send, recv)
	if err == nil {
		err = m.collectDescs(p)
	}
	if err == nil {
		lo, hi := slice(m.me, m.n, len(send), op.ElemSize())
		err = m.foldSlice(send, recv[lo:hi], op, lo)
	}
	p = m.begin("allreduce")
	m.raise(p)
	for i := 1; i < m.n && err == nil; i++ {
		r := (m.me + i) % m.n
		rlo, rhi := slice(r, m.n, len(send), op.ElemSize())
		if err = m.await(r, m.epoch); err == nil {
			err = m.pull(r, m.ds[r], 1, len(recv), rlo, recv[rlo:rhi])
		}
	}
	// A barrier epoch: past it, every rank has read all it needed.
	if derr := m.sync("allreduce"); err == nil {
		err = derr
	}
	runtime.KeepAlive(send)
	runtime.KeepAlive(recv)
	return err
}

// collectDescs waits for every other rank's descriptor of the current
// epoch and keeps them in m.ds.
func (m *module) collectDescs(p uint64) error {
	for r := range m.n {
		if r == m.me {
			continue
		}
		d, err := m.peer(r, p)
		if err != nil {
			return err
		}
		m.ds[r] = d
	}
	return nil
}
