package launch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/launcher"
)

// floodUnread runs gompirun with args on two ranks that write to their
// stdout without end (rankprog flood), its stdout a pipe the test never
// reads, and its stderr too if unreadErr. With stop, once the ranks are up
// and the pipe is full, so that gompirun's writes to it block, it sends
// gompirun stop. It returns gompirun's exit status and its stderr, once
// the ranks are gone.
func floodUnread(t *testing.T, unreadErr bool, stop os.Signal, args ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A hang guard, not a measurement: the job ends in seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gompirun, append(append([]string{"-np", "2"}, args...), rankprog, "flood", dir)...)
	cmd.Env = testEnv()
	cmd.WaitDelay = 10 * time.Second // after the hang guard, for stderr
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if unreadErr {
		cmd.Stderr = w
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if stop != nil {
		for rank := range 2 {
			for upPid(dir, rank) == 0 {
				pause(t, ctx, "rank "+strconv.Itoa(rank)+" is not up")
			}
		}
		// Full: within a page of the pipe's size, as the pages of a pipe
		// take whole lines only.
		size, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		for {
			n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ) // FIONREAD
			if err != nil {
				t.Fatal(err)
			}
			if n > size-os.Getpagesize() {
				break
			}
			pause(t, ctx, "gompirun's stdout is not full")
		}
		if err := cmd.Process.Signal(stop); err != nil {
			t.Fatal(err)
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("gompirun %q did not exit with its stdout unread; stderr:\n%s", args, stderr.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	checkNoRace(t, stderr.String())
	ranks := map[int]int{}
	for rank := range 2 {
		if pid := upPid(dir, rank); pid != 0 {
			ranks[rank] = pid
		}
	}
	waitGone(t, "process", ranks)
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// upPid is the pid that rank left in dir once up, 0 before.
func upPid(dir string, rank int) int {
	b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("up.%d", rank)))
	pid, _ := strconv.Atoi(string(b))
	return pid
}

// pause waits a little before the next look at what the test waits
// for, failing the test with what if the hang guard ctx ends.
func pause(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	select {
	case <-ctx.Done():
		t.Fatal(what)
	case <-time.After(10 * time.Millisecond):
	}
}

// TestSignalWithOutputUnread: SIGTERM ends gompirun while its stdout, or
// its stdout and stderr, are a pipe nobody reads, with the signal's status;
// also when its logger (-v) has lines to write on that stderr.
func TestSignalWithOutputUnread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		unreadErr bool
		args      []string
	}{{false, nil}, {true, nil}, {true, []string{"-v"}}} {
		t.Run(fmt.Sprintf("stderr unread %v %q", tc.unreadErr, tc.args), func(t *testing.T) {
			t.Parallel()
			code, stderr := floodUnread(t, tc.unreadErr, syscall.SIGTERM, tc.args...)
			if code != 128+int(syscall.SIGTERM) {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, 128+int(syscall.SIGTERM), stderr)
			}
			t.Logf("stderr:\n%s", stderr)
		})
	}
}

// TestTimeoutWithOutputUnread: so does --timeout.
func TestTimeoutWithOutputUnread(t *testing.T) {
	t.Parallel()
	code, stderr := floodUnread(t, false, nil, "--timeout", "2")
	if code != launcher.ExitTimeout {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, launcher.ExitTimeout, stderr)
	}
}
