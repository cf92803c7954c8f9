package pml

import (
	"context"
	"fmt"

	"github.com/gompi/gompi/frameworks/btl"
)

// Layout is the data of a message that does not lie in one slice, a
// non-contiguous datatype's: the engine packs it fragment by fragment as
// the message leaves (straight into the transport's memory where the
// module is a btl.Gatherer) and unpacks each fragment as it arrives, so
// that the two sides work at once instead of packing and unpacking the
// whole message around its transfer.
type Layout interface {
	btl.Source // Pack copies the packed bytes [off, off+len(dst)) out of the user's buffer
	// Size is the message's packed size in bytes.
	Size() int
	// Unpack copies src, the packed bytes [off, off+len(src)), into the
	// user's buffer.
	Unpack(src []byte, off int)
	// Blocks appends to parts the slices of the user's buffer that hold
	// the packed bytes [off, off+n), in order: for transports that move
	// blocks where they lie (writev, readv, cross-memory attach).
	Blocks(parts [][]byte, off, n int) [][]byte
	// MeanBlock is the mean length in bytes of the layout's contiguous
	// blocks: moving blocks where they lie pays only for long ones.
	MeanBlock() int
}

// Blocks at least this long on average move where they lie, through the
// transport's vectored calls; shorter ones are packed, as each block
// costs those calls more than copying it twice does. Over tcp
// (btl.VectorSender, btl.VectorPlacer), a 1 MiB message in blocks of
// 2 KiB took 0.74-0.78 of the time packed, of 512 B about 1.0, of 64 B
// twice as long (tcp's BenchmarkVector). Over single copy a receiver's
// block costs about 0.1 us: reading into the receiver's blocks
// (btl.ScatterCopier's ReadScatter) took 0.72 of the time of a read and
// an unpack at 512 B, 2.5 times at 64 B (sm's BenchmarkVector). The
// kernel pins the pages of each of the sender's blocks apart, about
// 0.6 us a block, and only the receiver's core copies, where the ring
// has both ranks' cores pack and unpack at once: exposing the sender's
// blocks (ExposeVector, ReadVector) made a 1 MiB message of 4 KiB or
// 64 KiB blocks take about three times as long as through the ring
// (gompi-bench ddt-rows), so a sender exposes only blocks of 1 MiB and
// more, where the pinning is spread over 256 pages.
const (
	vectorMinBlock  = 2 << 10 // tcp, both sides
	exposeMinBlock  = 1 << 20 // a single-copy sender's blocks
	scatterMinBlock = 512     // a single-copy receiver's blocks
)

// packedFragment bounds the rendezvous fragments of a layout that is
// packed, for a transport whose fragments are larger (tcp's are 4 MiB):
// a column of 1 MiB over tcp took 0.76 of its time in whole fragments,
// one of 4 MiB 0.55; fragments of 64 and 256 KiB did about as well.
const packedFragment = 128 << 10

// vectored reports whether lay's blocks are long enough to move where
// they lie, least bytes on average.
func vectored(lay Layout, least int) bool { return lay != nil && lay.MeanBlock() >= least }

// size is the bytes of r's data: its buffer's, or its layout's packed size.
func (r *Request) size() int {
	if r.lay != nil {
		return r.lay.Size()
	}
	return len(r.buf)
}

// fill writes payload, the message's bytes from off, into r's data, as
// much of it as fits; it returns how much did.
func (r *Request) fill(payload []byte, off int) int {
	if r.lay == nil {
		if off >= len(r.buf) {
			return 0
		}
		return copy(r.buf[off:], payload)
	}
	n := min(len(payload), r.lay.Size()-off)
	if n <= 0 {
		return 0
	}
	r.lay.Unpack(payload[:n], off)
	return n
}

// transmitPart sends n bytes of s's data from off as one fragment with
// the encoded header hb: a slice of its buffer, or its layout's bytes
// (transmitLayout).
func (e *Engine) transmitPart(m btl.Module, s *Request, hb []byte, off, n int, hold bool) error {
	if s.lay == nil {
		return transmitIn(m, s.peer, hb, s.buf[off:off+n], hold)
	}
	return e.transmitLayout(m, s.peer, hb, s.lay, off, n, hold)
}

// transmitLayout sends n bytes of lay from off: packed straight into the
// module's memory (btl.Gatherer), gathered from their blocks by the
// module (btl.VectorSender) when they are long, or else packed into a
// pooled chunk first.
func (e *Engine) transmitLayout(m btl.Module, peer int, hb []byte, lay Layout, off, n int, hold bool) error {
	if g, ok := m.(btl.Gatherer); ok {
		if err := g.SendFrom(context.Background(), peer, hb, lay, off, n, hold); err != nil {
			if err == btl.ErrFull {
				return err
			}
			return moduleErr(m, err)
		}
		return nil
	}
	if vs, ok := m.(btl.VectorSender); ok && n > 0 && vectored(lay, vectorMinBlock) {
		l := e.blocksOf(lay, off, n)
		err := vs.SendVector(context.Background(), peer, hb, *l)
		e.putBlocks(l)
		if err != nil {
			return moduleErr(m, err)
		}
		return nil
	}
	b := e.getChunk(n)
	lay.Pack(*b, off)
	err := transmitIn(m, peer, hb, *b, hold)
	e.putChunk(b)
	return err
}

// sendPart is send (hold false) or post of part of s's data.
func (e *Engine) sendPart(m btl.Module, s *Request, h header, off, n int, hold bool) error {
	hb := e.hdrPool.Get().(*[HeaderSize]byte)
	err := e.transmitPart(m, s, h.encode(hb[:]), off, n, hold)
	e.hdrPool.Put(hb)
	return err
}

// The engine's chunks (Engine.chunks) hold a fragment of a layout packed
// for a module that cannot pack it itself, or read from a peer before it
// is unpacked; by size class, as a fragment's size varies with the
// transport.
const (
	minChunkShift = 10 // 1 KiB
	chunkClasses  = 12 // up to 2 MiB pooled; larger ones are allocated
)

// getChunk returns a buffer of n bytes.
func (e *Engine) getChunk(n int) *[]byte {
	c := chunkClass(n)
	if c >= chunkClasses {
		b := make([]byte, n)
		return &b
	}
	if p, ok := e.chunks[c].Get().(*[]byte); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, 1<<(c+minChunkShift))
	return &b
}

// putChunk gives back a buffer from getChunk.
func (e *Engine) putChunk(b *[]byte) {
	if c := chunkClass(cap(*b)); c < chunkClasses && cap(*b) == 1<<(c+minChunkShift) {
		e.chunks[c].Put(b)
	}
}

// blocksOf returns the slices of lay's blocks that hold its packed bytes
// [off, off+n), in a pooled list to give back with putBlocks once the
// call that takes them returns: a list grown from nil cost each call an
// allocation per doubling.
func (e *Engine) blocksOf(lay Layout, off, n int) *[][]byte {
	l, ok := e.blockLists.Get().(*[][]byte)
	if !ok {
		l = new([][]byte)
	}
	*l = lay.Blocks((*l)[:0], off, n)
	return l
}

// putBlocks gives back a list from blocksOf, cleared so that the pool
// keeps no buffer reachable.
func (e *Engine) putBlocks(l *[][]byte) {
	clear(*l)
	e.blockLists.Put(l)
}

// chunkClass is the class whose buffers hold n bytes.
func chunkClass(n int) int {
	c := 0
	for 1<<(c+minChunkShift) < n {
		c++
	}
	return c
}

// readChunk bounds the bytes a single-copy receive into a layout reads
// before it unpacks them: the chunk stays in the cache for the unpacking.
const readChunk = 64 << 10

// readInto is the single-copy read of a matched rendezvous message into
// r's layout: chunk by chunk, each unpacked while it is in the cache.
func (e *Engine) readInto(sc btl.SingleCopier, from int, token uint64, r *Request) error {
	b := e.getChunk(min(r.accepted, readChunk))
	defer e.putChunk(b)
	for off := 0; off < r.accepted; off += readChunk {
		part := (*b)[:min(readChunk, r.accepted-off)]
		if err := sc.Read(from, token, off, part); err != nil {
			return err
		}
		r.lay.Unpack(part, off)
	}
	return nil
}

// readLayout is the single-copy read of a matched rendezvous message into
// r's layout from the buffer the sender exposed as token: straight into
// the layout's blocks where they are long and the transport can scatter,
// else chunk by chunk (readInto).
func (e *Engine) readLayout(sc btl.SingleCopier, from int, token uint64, r *Request) error {
	if vc, ok := sc.(btl.ScatterCopier); ok && vectored(r.lay, scatterMinBlock) {
		l := e.blocksOf(r.lay, 0, r.accepted)
		defer e.putBlocks(l)
		return vc.ReadScatter(from, token, *l)
	}
	return e.readInto(sc, from, token, r)
}

// readVector is the single-copy read of a matched rendezvous message
// whose sender exposed its blocks (flagVector): into the receive buffer,
// the layout's blocks where they are long, or else a chunk unpacked
// after.
func (e *Engine) readVector(m btl.Module, from int, token uint64, r *Request) error {
	vc, ok := m.(btl.ScatterCopier)
	if !ok {
		return fmt.Errorf("btl %s cannot read another rank's blocks", m.Name())
	}
	switch {
	case r.lay == nil:
		return vc.ReadVector(from, token, [][]byte{r.buf[:r.accepted]})
	case vectored(r.lay, scatterMinBlock):
		l := e.blocksOf(r.lay, 0, r.accepted)
		defer e.putBlocks(l)
		return vc.ReadVector(from, token, *l)
	}
	b := e.getChunk(r.accepted)
	defer e.putChunk(b)
	if err := vc.ReadVector(from, token, [][]byte{*b}); err != nil {
		return err
	}
	r.lay.Unpack(*b, 0)
	return nil
}
