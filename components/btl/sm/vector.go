package sm

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Scattered single copies (btl.ScatterCopier): the receiver moves a
// payload that lies in several pieces, on either side, with one
// process_vm_readv per batch of up to maxIovecs pieces a side.
//
// ExposeVector's token is the address of a descriptor in the sender's
// memory: a word the reader ignores, the count of pieces, then one
// {address, length} pair per non-empty piece, the layout of a struct
// iovec, so that the reader loads the pairs straight into its remote
// iovecs. The addresses are held as pointers, so the descriptor alone
// keeps the pieces reachable: it is the keep that ExposeVector returns.
// Pieces adjacent in memory make one entry; the entries past the count
// hold the addresses of those joined to the one before.

// maxIovecs is the most iovecs a side of one process_vm_readv may have
// (IOV_MAX).
const maxIovecs = 1024

// piece is one entry of a descriptor; the first entry holds the count in
// length. Its layout is unix.RemoteIovec's.
type piece struct {
	base   unsafe.Pointer
	length uintptr
}

// descFirst is how many pieces the reader's first call reads along with
// the count. Every descriptor has room for as many, so that the first
// call never reads past it: a message of up to descFirst pieces costs
// one call for its descriptor.
const descFirst = 31

// ExposeVector returns the address of a descriptor of bufs, by which peer
// reads them with ReadVector, and the descriptor, which the caller keeps
// reachable until peer has read: it keeps bufs reachable too. Pieces that
// follow each other in memory are described as one.
func (m *Module) ExposeVector(_ int, bufs [][]byte) (uint64, any) {
	desc := make([]piece, 1+max(len(bufs), descFirst))
	n, joined := 0, 0
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		base := unsafe.Pointer(unsafe.SliceData(b))
		if n > 0 && uintptr(desc[n].base)+desc[n].length == uintptr(base) {
			// Adjacent in memory: one piece, since the kernel pins each
			// remote piece's pages apart, a cost per piece. b may be an
			// allocation of its own that only follows the last: the
			// entries past the count, which no reader reads, keep it.
			desc[n].length += uintptr(len(b))
			joined++
			desc[len(desc)-joined].base = base
			continue
		}
		n++
		desc[n] = piece{base, uintptr(len(b))}
	}
	desc[0].length = uintptr(n)
	return uint64(uintptr(unsafe.Pointer(&desc[0]))), &desc[0]
}

// ReadScatter copies the first bytes of the buffer rank exposed as token
// (Expose) into dsts, in order, in one call per maxIovecs of them. Empty
// dsts are skipped. It reads with process_vm_readv alone: the shared copy
// of Read (readShared) splits one destination between two copiers.
func (m *Module) ReadScatter(rank int, token uint64, dsts [][]byte) error {
	p, err := m.singleCopyPeer(rank)
	if err != nil {
		return err
	}
	total := 0
	for _, d := range dsts {
		total += len(d)
	}
	if total == 0 {
		return nil
	}
	var src remotePieces
	src.win[0] = unix.RemoteIovec{Base: uintptr(token), Len: total}
	src.count, src.loaded = 1, 1
	return m.readErr(p, rank, src.readInto(p.procID(), dsts))
}

// ReadVector copies the first bytes of the concatenation of the buffers
// rank exposed as token (ExposeVector) into dsts, in order: it reads the
// descriptor, then the pieces, both sides split in batches of maxIovecs,
// a piece of either side straddling batches where it falls. Empty dsts
// are skipped. process_vm_readv alone, as ReadScatter.
func (m *Module) ReadVector(rank int, token uint64, dsts [][]byte) error {
	p, err := m.singleCopyPeer(rank)
	if err != nil {
		return err
	}
	empty := true
	for _, d := range dsts {
		if len(d) > 0 {
			empty = false
			break
		}
	}
	if empty {
		return nil
	}
	var src remotePieces
	if err := src.open(p.procID(), uintptr(token)); err != nil {
		return m.readErr(p, rank, err)
	}
	return m.readErr(p, rank, src.readInto(p.procID(), dsts))
}

// remotePieces is a cursor over the pieces of another process's memory
// that a read copies from: win holds pieces [first, first+loaded) of
// count, the one at next trimmed of the bytes already read.
type remotePieces struct {
	win           [maxIovecs]unix.RemoteIovec
	desc          uintptr // the descriptor's address; 0 for a lone piece
	count         int
	first, loaded int
	next          int
}

// open reads the count and the first pieces of the descriptor at desc in
// process pid, in one call.
func (r *remotePieces) open(pid int, desc uintptr) error {
	var count uint64
	head := unsafe.Slice((*byte)(unsafe.Pointer(&count)), 8)
	first := unsafe.Slice((*byte)(unsafe.Pointer(&r.win[0])), descFirst*int(unsafe.Sizeof(piece{})))
	if err := readMany(pid, []uintptr{desc + 8, desc + 16}, [][]byte{head, first}); err != nil {
		return fmt.Errorf("reading the descriptor of the exposed pieces: %w", err)
	}
	r.desc, r.count = desc, int(count)
	r.loaded = min(r.count, descFirst)
	return nil
}

// pieces returns the remote iovecs from the cursor on, loading more of
// the descriptor when fewer than a batch are left in win: empty when
// every piece was read.
func (r *remotePieces) pieces(pid int) ([]unix.RemoteIovec, error) {
	i := r.next - r.first
	for i < r.loaded && r.win[i].Len == 0 {
		i++
		r.next++
	}
	if r.loaded-i < maxIovecs && r.first+r.loaded < r.count {
		r.loaded = copy(r.win[:], r.win[i:r.loaded])
		r.first, i = r.next, 0
		n := min(r.count-r.first-r.loaded, maxIovecs-r.loaded)
		size := int(unsafe.Sizeof(piece{}))
		more := unsafe.Slice((*byte)(unsafe.Pointer(&r.win[r.loaded])), n*size)
		at := r.desc + uintptr((1+r.first+r.loaded)*size)
		if err := readFrom(pid, at, more); err != nil {
			return nil, fmt.Errorf("reading pieces %d-%d of the descriptor of %d exposed pieces: %w",
				r.first+r.loaded, r.first+r.loaded+n-1, r.count, err)
		}
		r.loaded += n
	}
	return r.win[i:r.loaded], nil
}

// advance moves the cursor n bytes on.
func (r *remotePieces) advance(n int) {
	for n > 0 {
		v := &r.win[r.next-r.first]
		if n < v.Len {
			v.Base += uintptr(n)
			v.Len -= n
			return
		}
		n -= v.Len
		r.next++
	}
}

// readInto copies from the pieces of process pid into dsts until dsts
// are full, in as few calls as the kernel allows: a call takes up to
// maxIovecs pieces of each side and copies as much as the shorter side
// holds, or less if the kernel stops early (between pages).
func (r *remotePieces) readInto(pid int, dsts [][]byte) error {
	var local [maxIovecs]unix.Iovec
	i, off := 0, 0 // the next byte to write is dsts[i][off]
	for {
		for i < len(dsts) && off == len(dsts[i]) {
			i, off = i+1, 0
		}
		if i == len(dsts) {
			return nil
		}
		n, total := 0, 0
		for j := i; j < len(dsts) && n < maxIovecs && total < maxCopyCall; j++ {
			d := dsts[j]
			if j == i {
				d = d[off:]
			}
			d = d[:min(len(d), maxCopyCall-total)]
			total += len(d)
			if len(d) > 0 {
				local[n].Base = &d[0]
				local[n].SetLen(len(d))
				n++
			}
		}
		remote, err := r.pieces(pid)
		if err != nil {
			return err
		}
		if len(remote) == 0 {
			return fmt.Errorf("the exposed pieces end %d bytes into destination %d of %d", off, i, len(dsts))
		}
		got, _, errno := unix.RawSyscall6(unix.SYS_PROCESS_VM_READV, uintptr(pid),
			uintptr(unsafe.Pointer(&local[0])), uintptr(n), uintptr(unsafe.Pointer(&remote[0])), uintptr(len(remote)), 0)
		if errno != 0 {
			return fmt.Errorf("process_vm_readv of %d pieces into %d from pid %d: %w", len(remote), n, pid, errno)
		}
		if int(got) <= 0 {
			return fmt.Errorf("process_vm_readv of %d pieces into %d from pid %d read nothing", len(remote), n, pid)
		}
		r.advance(int(got))
		i, off = advance(dsts, i, off, int(got))
		copyCallDone(i < len(dsts) && (off < len(dsts[i]) || i+1 < len(dsts)))
	}
}
