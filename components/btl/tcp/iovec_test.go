package tcp

import (
	"bytes"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// gather copies up to k bytes from iov, in order, as a sendmsg would.
func gather(iov []unix.Iovec, k int) []byte {
	var out []byte
	for _, v := range iov {
		if len(out) == k {
			break
		}
		b := unsafe.Slice(v.Base, v.Len)
		out = append(out, b[:min(len(b), k-len(out))]...)
	}
	return out
}

// TestIovWindowResumes moves the slices of a window through calls that
// each take an awkward number of bytes, ending inside iovecs and across
// refills of more slices than one call takes: the bytes must come out
// whole and in order, each exactly once.
func TestIovWindowResumes(t *testing.T) {
	data := pattern(300_000, 1, 2, 3)
	parts := append([][]byte{nil}, pieces(data, 7, 0, 1, 1000, 0, 13)...) // about 1700 iovecs
	for _, step := range []int{1, 5, 999, 4096, 65537, 1 << 20} {
		var w iovWindow
		w.start(parts, []byte("prefix"), nil)
		var out []byte
		for calls := 0; !w.done(); calls++ {
			iov := w.pending()
			if len(iov) == 0 || len(iov) > iovMax {
				t.Fatalf("steps of %d: a call given %d iovecs", step, len(iov))
			}
			b := gather(iov, step)
			out = append(out, b...)
			w.advance(len(b))
			if calls > len(data)+10 {
				t.Fatalf("steps of %d: the window never ends", step)
			}
		}
		if want := append([]byte("prefix"), data...); !bytes.Equal(out, want) {
			t.Fatalf("steps of %d: %d bytes out, differing from the %d in", step, len(out), len(want))
		}
		w.reset()
		if w.dirty != 0 || w.rest != nil || w.iov != nil {
			t.Fatalf("steps of %d: reset left references", step)
		}
		for _, v := range w.arr[:cap(w.arr)] {
			if v.Base != nil {
				t.Fatalf("steps of %d: reset left a pointer in the window's array", step)
			}
		}
	}
}

// TestIovWindowCopyIn fills a window's slices from chunks that end
// inside them, as the read buffer's bytes of a placed payload do, then
// the rest as reads would.
func TestIovWindowCopyIn(t *testing.T) {
	data := pattern(100_000, 4, 5, 6)
	dst := make([]byte, len(data))
	var w iovWindow
	w.start(pieces(dst, 333, 0, 1, 4000))
	n := 0
	for _, k := range []int{10, 1, 333, 5000} {
		if got := w.copyIn(data[n : n+k]); got != k {
			t.Fatalf("copyIn of %d bytes copied %d", k, got)
		}
		n += k
	}
	if got := w.copyIn(data[n:]); got != len(data)-n || !w.done() {
		t.Fatalf("copyIn of the last %d bytes copied %d; done %v", len(data)-n, got, w.done())
	}
	if w.copyIn([]byte{1}) != 0 {
		t.Fatal("copyIn wrote past the slices")
	}
	if !bytes.Equal(dst, data) {
		t.Fatal("the slices do not hold the bytes copied in")
	}
}
