package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestKilledLauncherLeavesNothing kills gompirun with SIGKILL, which it
// cannot catch, and checks that every rank ends and the job's session
// directory goes, also when the ranks run under a wrapper script and so
// are not gompirun's children.
func TestKilledLauncherLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"direct", []string{rankprog, "connected"}},
		{"wrapper script", []string{"sh", "-c", rankprog + " connected; echo done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			args := append([]string{"-np", "2", "--oversubscribe"}, tc.args...)
			cmd, ranks, _ := startedWith(t, 2, testEnv("TMPDIR="+tmp), args...)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			waitGone(t, "process", ranks)
			waitNoJobProcesses(t, tmp)
			waitEmpty(t, tmp)
		})
	}
}

// TestSIGHUPStopsRanks: a closed terminal stops the job as SIGTERM does.
func TestSIGHUPStopsRanks(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd, ranks, stderr := startedWith(t, 2, testEnv("TMPDIR="+tmp), "-np", "2", "--oversubscribe",
		"sh", "-c", rankprog+" connected; echo done")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGHUP) {
		t.Fatalf("gompirun exited with %d, want 129; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "gompirun: received SIGHUP") {
		t.Errorf("stderr does not mention SIGHUP:\n%s", stderr)
	}
	waitGone(t, "process", ranks)
	waitNoJobProcesses(t, tmp)
	waitEmpty(t, tmp)
}

// waitEmpty fails unless dir holds no gompi session directory within a
// few seconds: the ranks remove it as they go.
func waitEmpty(t *testing.T, dir string) {
	t.Helper()
	left := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "gompi.*"))
		return m
	}
	deadline := time.Now().Add(10 * time.Second) // a hang guard, not a measurement
	for len(left()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %v", left())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitNoJobProcesses fails unless, within a few seconds, no live process
// has a session directory under tmp in its environment: that finds the
// wrapper shells and anything else of the job, not only the ranks that
// printed their pids.
func waitNoJobProcesses(t *testing.T, tmp string) {
	t.Helper()
	want := []byte("GOMPI_SESSION_DIR=" + tmp + "/")
	left := func() []int {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err == nil && bytes.Contains(env, want) && jobtest.Alive(pid) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	deadline := time.Now().Add(10 * time.Second) // a hang guard, not a measurement
	for len(left()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the job still running: %v", left())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
