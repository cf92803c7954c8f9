package lowlevel_test

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/gompi/gompi/internal/lowlevel"
)

// words returns n bytes whose first is 8-byte aligned.
func words(n int) []byte {
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}

// A view reads and writes the bytes it covers, in the machine's order, and
// no others.
func TestViewsCoverTheirBytes(t *testing.T) {
	b := words(32)
	lowlevel.Uint64At(b, 8).Store(0x0123456789abcdef)
	lowlevel.Uint32At(b, 20).Store(0x89abcdef)
	*lowlevel.Word64At(b, 24) = 0xfedcba9876543210
	want := make([]byte, 32)
	binary.NativeEndian.PutUint64(want[8:], 0x0123456789abcdef)
	binary.NativeEndian.PutUint32(want[20:], 0x89abcdef)
	binary.NativeEndian.PutUint64(want[24:], 0xfedcba9876543210)
	if string(b) != string(want) {
		t.Fatalf("bytes % x, want % x", b, want)
	}
	binary.NativeEndian.PutUint64(b[0:], 42)
	if got := lowlevel.Uint64At(b, 0).Load(); got != 42 {
		t.Errorf("Uint64At reads %d, want 42", got)
	}
	if got := lowlevel.Uint32At(b, 20).Load(); got != 0x89abcdef {
		t.Errorf("Uint32At reads %#x", got)
	}
}

// Views of the same word taken by different goroutines are one atomic
// word: no addition is lost.
func TestViewsAreAtomic(t *testing.T) {
	const goroutines, adds = 4, 5000
	b := words(64)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range adds {
				lowlevel.Uint64At(b, 8).Add(1)
				lowlevel.Uint32At(b, 60).Add(1)
			}
		})
	}
	wg.Wait()
	if got := lowlevel.Uint64At(b, 8).Load(); got != goroutines*adds {
		t.Errorf("64-bit word %d, want %d", got, goroutines*adds)
	}
	if got := lowlevel.Uint32At(b, 60).Load(); got != goroutines*adds {
		t.Errorf("32-bit word %d, want %d", got, goroutines*adds)
	}
}

// A misaligned or out-of-range word panics, naming what was wrong.
func TestViewsRefuseBadWords(t *testing.T) {
	b := words(64)
	for _, c := range []struct {
		name string
		view func()
		want string
	}{
		{"Uint64At misaligned", func() { lowlevel.Uint64At(b, 4) }, "8-byte word at offset 4 is misaligned"},
		{"Word64At misaligned", func() { lowlevel.Word64At(b, 12) }, "8-byte word at offset 12 is misaligned"},
		{"Uint32At misaligned", func() { lowlevel.Uint32At(b, 2) }, "4-byte word at offset 2 is misaligned"},
		{"Uint64At past the end", func() { lowlevel.Uint64At(b, 60) }, "length 4 to array or pointer to array with length 8"},
		{"Uint32At past the end", func() { lowlevel.Uint32At(b, 64) }, "length 0 to array or pointer to array with length 4"},
		{"Uint64At beyond", func() { lowlevel.Uint64At(b, 72) }, "out of range"},
		{"Uint32At negative", func() { lowlevel.Uint32At(b, -4) }, "out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if !ok {
					t.Fatalf("panicked with %v, want an error", r)
				}
				if !strings.Contains(err.Error(), c.want) {
					t.Fatalf("panic %q, want it to say %q", err, c.want)
				}
			}()
			c.view()
		})
	}
}

// Aligned words anywhere in the bytes are accepted, the last one included.
func TestViewsAcceptAlignedWords(t *testing.T) {
	b := words(64)
	for off := 0; off+8 <= len(b); off += 8 {
		lowlevel.Uint64At(b, off).Store(uint64(off))
		lowlevel.Word64At(b, off)
	}
	for off := 0; off+4 <= len(b); off += 4 {
		lowlevel.Uint32At(b, off).Load()
	}
}
