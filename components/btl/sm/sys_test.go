package sm

import (
	"bytes"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"
)

// A long cross-memory copy leaves the rank's other goroutines room to
// run: with one processor, as in a job, a goroutine that waits to run
// runs before the copy ends.
func TestLongCopyYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	src := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 4*maxCopyCall/8)
	var ran atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			ran.Add(1)
			runtime.Gosched()
		}
	}()
	defer close(stop)
	for ran.Load() == 0 {
		runtime.Gosched()
	}
	for name, copy := range map[string]func(dst []byte) error{
		"read": func(dst []byte) error { return readFrom(os.Getpid(), uintptr(unsafe.Pointer(&src[0])), dst) },
		"write": func(dst []byte) error {
			return writeTo(os.Getpid(), uintptr(unsafe.Pointer(&src[0])), uintptr(unsafe.Pointer(&dst[0])), len(src))
		},
	} {
		dst := make([]byte, len(src))
		before := ran.Load()
		if err := copy(dst); err != nil {
			t.Skipf("cross-memory attach: %v", err)
		}
		if ran.Load() == before {
			t.Errorf("%s: no other goroutine ran during a copy of %d bytes", name, len(src))
		}
		if !bytes.Equal(dst, src) {
			t.Fatalf("%s: the copy differs from its source", name)
		}
	}
}
