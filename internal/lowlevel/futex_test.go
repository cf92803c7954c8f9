package lowlevel_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/lowlevel"
)

// waitCase is one of the two waits, told apart by how the runtime hears
// of them.
type waitCase struct {
	name string
	wait func(*atomic.Uint32, uint32, time.Duration) error
}

var waits = []waitCase{
	{"FutexWait", lowlevel.FutexWait},
	{"FutexWaitRaw", lowlevel.FutexWaitRaw},
}

// waitOut repeats a wait that a signal interrupted (the runtime's own
// preemption signals may).
func waitOut(wait func(*atomic.Uint32, uint32, time.Duration) error, w *atomic.Uint32, val uint32, d time.Duration) error {
	for {
		if err := wait(w, val, d); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// A wait on a word that no longer holds the value returns at once. Were
// the comparison lost, the wait would last the hour and the test time out.
func TestFutexWaitValueChanged(t *testing.T) {
	for _, c := range waits {
		t.Run(c.name, func(t *testing.T) {
			var w atomic.Uint32
			w.Store(5)
			if err := waitOut(c.wait, &w, 4, time.Hour); !errors.Is(err, unix.EAGAIN) {
				t.Fatalf("wait for 4 on a word holding 5: %v, want EAGAIN", err)
			}
		})
	}
}

// A wait that nobody ends returns after its time.
func TestFutexWaitTimesOut(t *testing.T) {
	for _, c := range waits {
		t.Run(c.name, func(t *testing.T) {
			var w atomic.Uint32
			if err := waitOut(c.wait, &w, 0, time.Millisecond); !errors.Is(err, unix.ETIMEDOUT) {
				t.Fatalf("wait with nobody to wake it: %v, want ETIMEDOUT", err)
			}
		})
	}
}

// A wake finds the waiter asleep (it wakes one thread only once the
// waiter is in the kernel) and the waiter returns woken, with the word
// unchanged. A raw wait keeps its P, so with a single P no goroutine of
// the process could run to wake it: the test gives the process two.
func TestFutexWakeWakes(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, c := range waits {
		t.Run(c.name, func(t *testing.T) {
			var w atomic.Uint32
			done := make(chan error)
			go func() { done <- waitOut(c.wait, &w, 0, time.Hour) }()
			for lowlevel.FutexWake(&w) != 1 {
				runtime.Gosched()
			}
			if err := <-done; err != nil {
				t.Fatalf("woken wait returned %v, want nil", err)
			}
		})
	}
}

// A wake with nobody asleep wakes nobody.
func TestFutexWakeNobody(t *testing.T) {
	var w atomic.Uint32
	if n := lowlevel.FutexWake(&w); n != 0 {
		t.Fatalf("FutexWake woke %d with nobody asleep", n)
	}
}

// The futexes are process-shared: a process asleep on a word of a shared
// file mapping is woken by another process's wake on its own mapping of
// the word, as a rank is by another. A private futex (FUTEX_PRIVATE_FLAG)
// would not be found, and the test would time out.
func TestFutexWakesAnotherProcess(t *testing.T) {
	for _, c := range waits {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "futex")
			w, unmap := mapWord(t, path)
			defer unmap()
			cmd := exec.Command(os.Args[0], "-test.run=^TestFutexChild$")
			cmd.Env = append(os.Environ(), futexChildEnv+"="+path, futexChildWaitEnv+"="+c.name)
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // not left asleep if this test dies
			out := make(chan []byte, 1)
			go func() {
				b, err := cmd.CombinedOutput()
				if err != nil {
					b = fmt.Appendf(b, "%v", err)
				}
				out <- b
			}()
			for lowlevel.FutexWake(w) != 1 {
				select {
				case b := <-out:
					t.Fatalf("the child ended before it was woken: %s", b)
				default:
					runtime.Gosched()
				}
			}
			if b := <-out; cmd.ProcessState == nil || !cmd.ProcessState.Success() {
				t.Fatalf("child: %s", b)
			}
		})
	}
}

const (
	futexChildEnv     = "LOWLEVEL_FUTEX_CHILD"      // the mapped file
	futexChildWaitEnv = "LOWLEVEL_FUTEX_CHILD_WAIT" // the name of the wait to use
)

// TestFutexChild is TestFutexWakesAnotherProcess's other process: it
// sleeps on the word until woken.
func TestFutexChild(t *testing.T) {
	path := os.Getenv(futexChildEnv)
	if path == "" {
		t.Skip("run by TestFutexWakesAnotherProcess")
	}
	i := slices.IndexFunc(waits, func(c waitCase) bool { return c.name == os.Getenv(futexChildWaitEnv) })
	if i < 0 {
		t.Fatalf("%s=%q names no wait", futexChildWaitEnv, os.Getenv(futexChildWaitEnv))
	}
	w, unmap := mapWord(t, path)
	defer unmap()
	if err := waitOut(waits[i].wait, w, 0, time.Hour); err != nil {
		t.Fatalf("child's wait: %v, want woken", err)
	}
}

// mapWord maps the file at path (making it a page long) and returns its
// first word.
func mapWord(t *testing.T, path string) (*atomic.Uint32, func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(4096); err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	return lowlevel.Uint32At(mem, 0), func() { _ = unix.Munmap(mem) }
}
