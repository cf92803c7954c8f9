package launcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/node"
)

// flood is the script of a rank that says it is up ($T/up.<rank>), then
// writes to its stdout without end, holding the fifo $T/alive open.
const flood = `exec 3>"$T/alive"; touch "$T/up.$GOMPI_COMM_WORLD_RANK" 3>&-; exec yes "rank $GOMPI_COMM_WORLD_RANK floods"`

// runStuck runs two flood ranks with cfg, gompirun's stdout a stream
// nobody reads, and stop, once a rank's output is stuck on it and the
// ranks up are up, sending what stops the job; it returns Run's status
// once every rank is gone, and stderr once it holds want.
func runStuck(t *testing.T, cfg Config, up []int, stop func(), want string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	fifo := aliveFifo(t, dir)
	stdout := newStuckWriter(t)
	stderr := &notifyWriter{want: want, seen: make(chan struct{})}
	seen := stderr.seen
	cfg.Apps = []node.App{{NP: 2, Program: "sh", Args: []string{"-c", "T='" + dir + "'; " + flood}}}
	cfg.Stdout, cfg.Stderr, cfg.TempDir = stdout, stderr, t.TempDir()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(context.Background(), cfg)
		done <- result{code, err}
	}()
	// A hang guard only: the job ends in seconds.
	guard := time.NewTimer(2 * time.Minute)
	defer guard.Stop()
	if stop != nil {
		select {
		case <-stdout.entered:
		case <-guard.C:
			t.Fatal("no output reached gompirun's stdout")
		}
		for _, r := range up {
			for {
				if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("up.%d", r))); err == nil {
					break
				}
				select {
				case <-guard.C:
					t.Fatalf("rank %d is not up", r)
				case <-time.After(10 * time.Millisecond):
				}
			}
		}
		stop()
	}
	var res result
	select {
	case res = <-done:
	case <-guard.C:
		t.Fatal("Run did not return with its stdout stuck")
	}
	if res.err != nil {
		t.Fatalf("Run: %v", res.err)
	}
	if n, err := syscall.Read(fifo, make([]byte, 1)); n != 0 || err != nil {
		t.Errorf("a rank's process outlived the job: a read of the fifo the ranks held gave %d, %v", n, err)
	}
	select {
	case <-seen:
	case <-guard.C:
		stderr.mu.Lock()
		defer stderr.mu.Unlock()
		t.Fatalf("stderr lacks %q:\n%s", want, stderr.buf.String())
	}
	stderr.mu.Lock()
	defer stderr.mu.Unlock()
	return res.code, stderr.buf.String()
}

// TestSignalDropsOutputNobodyReads: a signal ends a job whose stdout is
// not read, here and on another host, once its ranks are dead, and says
// that their output was dropped.
func TestSignalDropsOutputNobodyReads(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"here", "another host"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			var cfg Config
			up := []int{0, 1}
			if where != "here" {
				// Both ranks there: the stuck output is one the daemon
				// sent, and the daemon, waiting to report rank 0 started,
				// may start rank 1 only once the job is stopped.
				cfg = remoteCfg(2, t.TempDir())
				cfg.Hosts[0] = "localhost"
				up = nil
			}
			sigs := make(chan os.Signal, 1)
			cfg.Signals = sigs
			code, stderr := runStuck(t, cfg, up, func() { sigs <- syscall.SIGTERM }, droppedNote)
			if code != 128+int(syscall.SIGTERM) {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, 128+int(syscall.SIGTERM), stderr)
			}
			if !strings.Contains(stderr, "gompirun: received SIGTERM; forwarded it to the ranks and stopping the job\n") {
				t.Errorf("stderr does not name the signal:\n%s", stderr)
			}
		})
	}
}

// TestTimeoutDropsOutputNobodyReads: so does the timeout, the ranks up
// or not when it expires.
func TestTimeoutDropsOutputNobodyReads(t *testing.T) {
	t.Parallel()
	code, stderr := runStuck(t, Config{Timeout: time.Second}, nil, nil, "gompirun: job timed out after 1 seconds; killing ranks\n")
	if code != ExitTimeout {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitTimeout, stderr)
	}
}
