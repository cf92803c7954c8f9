package tcp

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// The pieces of a strided message of vectorMsg bytes: blocks of one size
// with a gap of the same size after each, as a matrix column or a
// subarray lies in memory.
const vectorMsg = 1 << 20

func strided(block int) (mem []byte, blocks [][]byte) {
	mem = make([]byte, 2*vectorMsg)
	for off := 0; off < len(mem); off += 2 * block {
		blocks = append(blocks, mem[off:off+block:off+block])
	}
	return mem, blocks
}

// unpacker receives each message into its blocks: in place with
// PlaceVector (vectored), or into one buffer that Deliver then unpacks
// into them, as the engine does without vectored I/O.
type unpacker struct {
	blocks [][]byte
	buf    []byte
	n      atomic.Int64
}

func (r *unpacker) Place(_ int, _ []byte, size int) []byte {
	if size != len(r.buf) {
		return nil
	}
	return r.buf
}

func (r *unpacker) Deliver(_ int, _, payload []byte, _ bool) {
	if len(payload) == vectorMsg {
		off := 0
		for _, b := range r.blocks {
			off += copy(b, payload[off:])
		}
	}
	r.n.Add(1)
}

func (r *unpacker) PeerFailed(int, error) {}

// unpackerVector is an unpacker that places messages in its blocks.
type unpackerVector struct{ *unpacker }

func (r unpackerVector) PlaceVector(_ int, _ []byte, size int, parts [][]byte) [][]byte {
	if size != vectorMsg {
		return parts
	}
	return append(parts, r.blocks...)
}

func (r unpackerVector) DeliverVector(int, []byte, int) { r.n.Add(1) }

// BenchmarkVector sends 1 MiB messages of strided blocks, one at a time,
// from one rank to another that polls: the time from the start of a send
// to the message in its blocks at the receiver. A message is sent with SendVector from the blocks and read
// with PlaceVector into the receiver's blocks (vector), or packed into a
// buffer, sent with Send, placed in a buffer and unpacked (packed): the
// block size above which vectored I/O pays.
func BenchmarkVector(b *testing.B) {
	for _, block := range []int{64, 512, 1 << 10, 2 << 10, 4 << 10, 64 << 10} {
		for _, vectored := range []bool{false, true} {
			name := "packed"
			if vectored {
				name = "vector"
			}
			b.Run(fmt.Sprintf("%s/block=%d", name, block), func(b *testing.B) {
				benchVector(b, block, vectored)
			})
		}
	}
}

func benchVector(b *testing.B, block int, vectored bool) {
	_, recvBlocks := strided(block)
	r := &unpacker{blocks: recvBlocks, buf: make([]byte, vectorMsg)}
	j := newJobWith(b, 2, func(rank int) btl.Receiver {
		switch {
		case rank == 0:
			return nil
		case vectored:
			return unpackerVector{r}
		}
		return r
	})
	m := j.mods[0]
	ctx := context.Background()
	hdr := make([]byte, 32)
	_, blocks := strided(block)
	packed := make([]byte, vectorMsg)
	send := func() error {
		if vectored {
			return m.SendVector(ctx, 1, hdr, blocks)
		}
		off := 0
		for _, blk := range blocks {
			off += copy(packed[off:], blk)
		}
		return m.Send(ctx, 1, hdr, packed)
	}
	// The receiver polls, as a rank waiting in Recv does.
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if j.mods[1].Progress() == 0 {
				runtime.Gosched()
			}
		}
	}()
	defer func() { close(stop); <-polled }()
	if err := send(); err != nil { // connects
		b.Fatal(err)
	}
	waitFor(b, "the first message", func() bool { return r.n.Load() == 1 })
	b.SetBytes(vectorMsg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range int64(b.N) {
		if err := send(); err != nil {
			b.Fatal(err)
		}
		for r.n.Load() != i+2 {
			runtime.Gosched()
		}
	}
}
