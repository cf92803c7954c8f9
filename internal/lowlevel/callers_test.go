package lowlevel_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Callers gives, from another package, the PCs that runtime.Callers(2)
// gives from the same place: the frames above its caller's, up to the
// goroutine's start. Nothing on the path is inlined, so the physical
// frames are the logical ones, and the goroutine starts with a function of
// no arguments, so no wrapper (which runtime.Callers leaves out) is on it.
func TestCallersMatchesRuntime(t *testing.T) {
	var fp, rt []uintptr
	done := make(chan struct{})
	go func() {
		fp, rt = outer()
		close(done)
	}()
	<-done
	if len(fp) < 3 {
		t.Fatalf("Callers found %d frames: %#x", len(fp), fp)
	}
	if !slices.Equal(fp, rt) {
		t.Fatalf("Callers %s\nruntime.Callers %s", frames(fp), frames(rt))
	}
	if f, _ := runtime.CallersFrames(fp).Next(); f.Function != "github.com/gompi/gompi/internal/lowlevel_test.outer" {
		t.Errorf("first frame %s, want outer, the caller of the function that called Callers", f.Function)
	}
}

//go:noinline
func outer() (fp, rt []uintptr) { return inner() }

//go:noinline
func inner() (fp, rt []uintptr) {
	var a, b [64]uintptr
	n := lowlevel.Callers(a[:])
	m := runtime.Callers(2, b[:])
	return a[:n], b[:m]
}

// Callers stops at the end of pcs and writes nothing beyond it.
func TestCallersFillsOnlyPcs(t *testing.T) {
	const sentinel = ^uintptr(0)
	for _, size := range []int{0, 1, 2} {
		buf := slices.Repeat([]uintptr{sentinel}, size+4)
		if n := short(buf[:size]); n != size {
			t.Errorf("%d PCs stored in a slice of %d", n, size)
		}
		if !slices.Equal(buf[size:], slices.Repeat([]uintptr{sentinel}, 4)) {
			t.Errorf("Callers wrote past a slice of %d: %#x", size, buf)
		}
		if size == 0 {
			continue
		}
		if f, _ := runtime.CallersFrames(buf[:1]).Next(); f.Function != "github.com/gompi/gompi/internal/lowlevel_test.TestCallersFillsOnlyPcs" {
			t.Errorf("with %d PCs, the first frame is %s, want the test's", size, f.Function)
		}
	}
}

//go:noinline
func short(pcs []uintptr) int { return lowlevel.Callers(pcs) }

func frames(pcs []uintptr) string {
	s := ""
	fs := runtime.CallersFrames(pcs)
	for {
		f, more := fs.Next()
		s += "\n\t" + f.Function
		if !more {
			return s
		}
	}
}
