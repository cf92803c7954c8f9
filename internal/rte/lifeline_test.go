package rte

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/frameworks/ess"
)

// syncBuffer is written by the watcher and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLifelineEOFAborts: a rank keeps running while gompirun holds the
// lifeline, and when it closes removes the session directory, says so and
// exits with status 1.
func TestLifelineEOFAborts(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The watcher owns a descriptor of its own, as a rank owns fd 3.
	fd, err := unix.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	sess := filepath.Join(t.TempDir(), "gompi.feed01")
	if err := os.Mkdir(sess, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config{job: ess.Job{Rank: 1, Size: 2, LocalSize: 2, LocalRank: 1, JobID: "feed01", SessionDir: sess}, lifeline: fd}
	var stderr syncBuffer
	exited := make(chan int, 1)
	c, err := connect(context.Background(), cfg, &stderr, func(code int) { exited <- code })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Still alive after a Put and Get round trip while the lifeline holds.
	ctx := context.Background()
	if err := c.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		t.Fatalf("exited with %d while gompirun holds the lifeline", code)
	default:
	}
	if _, err := os.Stat(sess); err != nil {
		t.Fatalf("session directory removed while gompirun holds the lifeline: %v", err)
	}
	w.Close() // gompirun is gone
	select {
	case code := <-exited:
		if code != 1 {
			t.Errorf("exit status %d, want 1", code)
		}
	case <-time.After(20 * time.Second): // a hang guard, not a measurement
		t.Fatal("no exit 20 s after the lifeline closed")
	}
	if want := "gompi: rank 1 of job feed01: gompirun is gone"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if _, err := os.Stat(sess); !os.IsNotExist(err) {
		t.Errorf("session directory still there: %v", err)
	}
}

// A descriptor that is not a pipe is never taken for gompirun's death:
// what follows that removes the job's files.
func TestWaitLifelineRefusesWhatIsNotAPipe(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "notapipe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WaitLifeline(int(f.Fd())); err == nil || !strings.Contains(err.Error(), "not a pipe") {
		t.Fatalf("WaitLifeline on a file: %v", err)
	}
	if err := WaitLifeline(1 << 20); err == nil {
		t.Fatal("WaitLifeline on a closed descriptor succeeded")
	}
}
