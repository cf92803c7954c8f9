package sm

import (
	"context"
	"runtime"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// counter is a Receiver that counts deliveries, on a cache line of its own.
type counter struct {
	n   int
	buf []byte // when set, payloads are copied here, as the engine copies them into a receive buffer
	_   [32]byte
}

func (c *counter) Place(int, []byte, int) []byte { return nil }
func (c *counter) Deliver(_ int, _, payload []byte, _ bool) {
	copy(c.buf, payload)
	c.n++
}
func (c *counter) PeerFailed(int, error) {}

// BenchmarkPingPong is the transport's own round trip between two
// goroutines of one process: a Send, then polling until the answer,
// which the receiver copies out as the engine would. Post is the same
// with a Post and a Flush, as a non-blocking send and its wait; Rows
// sends 4 KiB rows 4.5 KiB apart through SendFrom, what a layout's
// sender pays beside the contiguous payload of the same size.
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 256, 512, 1024, 2 << 10, 4 << 10, 6 << 10, 8 << 10, 12 << 10, 16 << 10} {
		b.Run(byteSize(size), func(b *testing.B) { pingPong(b, size, false, false) })
	}
	b.Run("Post-8B", func(b *testing.B) { pingPong(b, 8, true, false) })
	for _, size := range []int{16 << 10, 32 << 10} {
		b.Run("Rows-"+byteSize(size), func(b *testing.B) { pingPong(b, size, false, true) })
	}
}

func pingPong(b *testing.B, size int, post, rows bool) {
	j := newTestJob(b, 2)
	var c [2]counter
	var src [2]*strided // one per sender: Pack counts its calls unsynchronized
	for r := range 2 {
		c[r].buf = make([]byte, size)
		j.mods[r].recv = &c[r]
		if rows {
			src[r] = &strided{buf: make([]byte, size/4096*4608), block: 4096, stride: 4608}
		}
	}
	hdr, payload := make([]byte, 40), make([]byte, size)
	ctx := context.Background()
	send := func(from int) {
		to := 1 - from
		if rows {
			_ = j.mods[from].SendFrom(ctx, to, hdr, src[from], 0, size, false)
			return
		}
		if !post {
			_ = j.mods[from].Send(ctx, to, hdr, payload)
			return
		}
		_ = btltest.PostAgain(func() error { return j.mods[from].Post(ctx, to, hdr, payload) })
		j.mods[from].Flush(to)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range b.N {
			for c[1].n <= i {
				j.mods[1].Progress()
			}
			send(1)
		}
	}()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := range b.N {
		send(0)
		for c[0].n <= i {
			j.mods[0].Progress()
		}
	}
	<-done
}

// BenchmarkProgressIdle is a poll that finds nothing, with seven peers.
func BenchmarkProgressIdle(b *testing.B) {
	j := newTestJob(b, 8)
	b.ResetTimer()
	for range b.N {
		j.mods[0].Progress()
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1<<10:
		return itoa(n>>10) + "KiB"
	}
	return itoa(n) + "B"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// BenchmarkStream is one goroutine sending fragments of the largest size
// while another drains them: the ring's copy-in/copy-out bandwidth.
func BenchmarkStream(b *testing.B) {
	j := newTestJob(b, 2)
	var c counter
	j.mods[1].recv = &c
	hdr, payload := make([]byte, 40), make([]byte, j.mods[0].MaxSendSize())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c.n < b.N {
			j.mods[1].Progress()
		}
	}()
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for range b.N {
		_ = j.mods[0].Send(context.Background(), 1, hdr, payload)
	}
	<-done
}

// BenchmarkWindow is bw's pattern on the transport alone: a window of 64
// held sends (Post), a Flush, then an acknowledgement back.
func BenchmarkWindow(b *testing.B) {
	j := newTestJob(b, 2)
	var c [2]counter
	for r := range 2 {
		j.mods[r].recv = &c[r]
	}
	hdr, payload := make([]byte, 16), make([]byte, 8)
	ctx := context.Background()
	const window = 64
	iters := b.N/window + 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range iters {
			for c[1].n < (i+1)*window {
				j.mods[1].Progress()
			}
			_ = j.mods[1].Send(ctx, 0, hdr, nil)
		}
	}()
	b.ResetTimer()
	for i := range iters {
		for range window {
			_ = btltest.PostAgain(func() error { return j.mods[0].Post(ctx, 1, hdr, payload) })
		}
		j.mods[0].Flush(1)
		for c[0].n <= i {
			j.mods[0].Progress()
		}
	}
	<-done
}

// BenchmarkSingleCopy reads a large buffer that rank 0 exposed into rank
// 1, alone and shared with rank 0, which polls in another goroutine (so
// give the test two CPUs: -cpu 2).
func BenchmarkSingleCopy(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20, 4 << 20} {
		for _, shared := range []bool{false, true} {
			name := byteSize(size) + "-alone"
			if shared {
				name = byteSize(size) + "-shared"
			}
			b.Run(name, func(b *testing.B) { singleCopy(b, size, shared) })
		}
	}
}

func singleCopy(b *testing.B, size int, shared bool) {
	threshold := "0"
	if shared {
		threshold = "64k"
	}
	j := newTestJob(b, 2, "btl_sm_shared_copy_threshold", threshold)
	if j.mods[1].SingleCopyMin(0) == 0 {
		b.Skip("cross-memory attach is not allowed here")
	}
	src, dst := make([]byte, size), make([]byte, size)
	tok := j.mods[0].Expose(1, src)
	stop := j.poll(0) // the sender waits as in a Wait: polling
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		if err := j.mods[1].Read(0, tok, 0, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	stop()
}

// BenchmarkSendPoll is one goroutine sending a fragment and receiving it
// at once: the software cost of a send and a delivery, without the
// caches' transfers between two CPUs, nor a scheduler that a ping-pong
// between goroutines depends on. Small is SendSmall, the engine's
// blocking eager path.
func BenchmarkSendPoll(b *testing.B) {
	for _, size := range []int{8, 256, 4 << 10} {
		b.Run(byteSize(size), func(b *testing.B) { sendPoll(b, size, false) })
	}
	b.Run("Small-8B", func(b *testing.B) { sendPoll(b, 8, true) })
}

func sendPoll(b *testing.B, size int, small bool) {
	j := newTestJob(b, 2)
	var c counter
	c.buf = make([]byte, size)
	j.mods[1].recv = &c
	hdr, payload := make([]byte, btl.SmallHeaderSize), make([]byte, size)
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		var err error
		if small {
			err = j.mods[0].SendSmall(1, btl.SmallHeader{Lo: 1, Hi: 2}, payload)
		} else {
			err = j.mods[0].Send(ctx, 1, hdr, payload)
		}
		if err != nil {
			b.Fatal(err)
		}
		j.mods[1].Progress()
	}
}

// BenchmarkVector moves a 1 MiB message whose bytes lie in blocks of 64
// B to 64 KiB, a block's length apart, on both sides (a column of a
// matrix, say), from rank 0 to rank 1 in one goroutine:
//
//   - Vector: the sender exposes the blocks (ExposeVector) and the
//     receiver reads them into its own (ReadVector).
//   - Scatter: the sender's bytes are contiguous (Expose) and the
//     receiver's blocks are read in place (ReadScatter).
//   - Packed: what the engine does without either, the sender packing
//     the blocks into a buffer, the receiver reading it (Read) into one
//     of its own and unpacking that.
//
// Each variant's time is the whole chain of a message, pack to unpack;
// the shared copy of Read is off, as in ReadVector.
func BenchmarkVector(b *testing.B) {
	for _, block := range []int{64, 512, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 64 << 10} {
		for _, how := range []string{"Vector", "Scatter", "Packed"} {
			b.Run(how+"-"+byteSize(block), func(b *testing.B) { vector(b, 1<<20, block, how) })
		}
	}
}

func vector(b *testing.B, size, block int, how string) {
	j := newTestJob(b, 2, "btl_sm_shared_copy_threshold", "0")
	if j.mods[1].SingleCopyMin(0) == 0 {
		b.Skip("cross-memory attach is not allowed here")
	}
	blocks := func(buf []byte) [][]byte {
		var bs [][]byte
		for at := 0; at < len(buf); at += 2 * block {
			bs = append(bs, buf[at:at+block])
		}
		return bs
	}
	src, dst := blocks(make([]byte, 2*size)), blocks(make([]byte, 2*size))
	packed, unpacked := make([]byte, size), make([]byte, size)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		var err error
		switch how {
		case "Vector":
			token, keep := j.mods[0].ExposeVector(1, src)
			err = j.mods[1].ReadVector(0, token, dst)
			runtime.KeepAlive(keep)
		case "Scatter":
			err = j.mods[1].ReadScatter(0, j.mods[0].Expose(1, packed), dst)
		case "Packed":
			at := 0
			for _, s := range src {
				at += copy(packed[at:], s)
			}
			if err = j.mods[1].Read(0, j.mods[0].Expose(1, packed), 0, unpacked); err == nil {
				at = 0
				for _, d := range dst {
					at += copy(d, unpacked[at:])
				}
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
