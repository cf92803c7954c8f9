package launch

import (
	"bytes"
	"os"
	"os/exec"
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
	for _, tc := range waitingRanks() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			args := append([]string{"-np", "2", "--oversubscribe"}, tc.args...)
			cmd, ranks, _ := startedWith(t, 2, testEnv("TMPDIR="+tmp), args...)
			killLeavesNothing(t, cmd, ranks, tmp)
		})
	}
}

// killLeavesNothing kills gompirun, started with TMPDIR=tmp, with
// SIGKILL, which it cannot catch, and checks that its ranks end and that
// nothing of the job is left: no process, no session directory.
func killLeavesNothing(t *testing.T, cmd *exec.Cmd, ranks map[int]int, tmp string) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, "process", ranks)
	waitNoJobProcesses(t, tmp)
	waitEmpty(t, tmp)
}

// TestReaperProgram: gompirun starts gompi-reaper from its own directory
// as the job's reaper and, where there is none, itself in the reaper's
// mode; either ends what a killed gompirun leaves.
func TestReaperProgram(t *testing.T) {
	t.Parallel()
	// A copy, not a link: gompirun looks beside the file it runs from.
	alone := filepath.Join(t.TempDir(), "gompirun")
	b, err := os.ReadFile(gompirun)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, exe, reaper string }{
		{"beside", gompirun, filepath.Join(filepath.Dir(gompirun), "gompi-reaper")},
		{"alone", alone, alone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			cmd, ranks, _ := startedBy(t, tc.exe, 2, testEnv("TMPDIR="+tmp), "-np", "2", "--oversubscribe",
				"sh", "-c", "sleep 600 & "+rankprog+" connected; echo done")
			// Started before the ranks, and its environment names the job.
			reapers := withEnv("GOMPI_REAPER=", ":"+tmp+"/gompi.")
			if len(reapers) != 1 {
				t.Fatalf("%d reapers of the job run (pids %v), want 1", len(reapers), reapers)
			}
			if exe, err := os.Readlink("/proc/" + strconv.Itoa(reapers[0]) + "/exe"); err != nil || exe != tc.reaper {
				t.Errorf("the reaper runs %q (%v), want %s", exe, err, tc.reaper)
			}
			killLeavesNothing(t, cmd, ranks, tmp)
		})
	}
}

// TestSIGHUPStopsRanks: a closed terminal stops the job as SIGTERM does,
// ranks started directly and under a wrapper script alike.
func TestSIGHUPStopsRanks(t *testing.T) {
	t.Parallel()
	for _, tc := range waitingRanks() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			cmd, ranks, stderr := startedWith(t, 2, testEnv("TMPDIR="+tmp), append([]string{"-np", "2", "--oversubscribe"}, tc.args...)...)
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
		})
	}
}

// waitingRanks are the ways ranks that wait for a minute are started: as
// gompirun's children, under a wrapper script, which makes them its
// grandchildren, and beside a process the script runs in the background.
func waitingRanks() []struct {
	name string
	args []string
} {
	return []struct {
		name string
		args []string
	}{
		{"direct", []string{rankprog, "connected"}},
		{"wrapper script", []string{"sh", "-c", rankprog + " connected; echo done"}},
		// Not a rank: the reaper (or gompirun's signal to the group) ends it.
		{"background child", []string{"sh", "-c", "sleep 600 & " + rankprog + " connected; echo done"}},
	}
}

// waitEmpty fails unless dir holds no gompi session directory within a
// 30 seconds: the ranks remove it as they go.
func waitEmpty(t *testing.T, dir string) {
	t.Helper()
	left := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "gompi.*"))
		return m
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a measurement
	for len(left()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %v", left())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitNoJobProcesses fails unless, within 30 seconds, no live process
// has a session directory under tmp in its environment: that finds the
// wrapper shells and anything else of the job, not only the ranks that
// printed their pids.
func waitNoJobProcesses(t *testing.T, tmp string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a measurement
	for left := withEnv("GOMPI_SESSION_DIR=" + tmp + "/"); len(left) > 0; left = withEnv("GOMPI_SESSION_DIR=" + tmp + "/") {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the job still running: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEverythingKilledIsSweptByTheNextJob kills gompirun, its ranks and
// its reaper at once, so that nobody of the job is left to remove its
// files, and checks that the next gompirun with the same temporary
// directory removes them, while another user's or a live job's stay.
func TestEverythingKilledIsSweptByTheNextJob(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd, ranks, _ := startedWith(t, 2, testEnv("TMPDIR="+tmp), "-np", "2", "--oversubscribe", rankprog, "connected")
	procs := []int{cmd.Process.Pid}
	for _, p := range ranks {
		procs = append(procs, p)
	}
	// The reaper's variable holds JOB:SESSION-DIR, under tmp.
	procs = append(procs, withEnv("GOMPI_REAPER=", ":"+tmp+"/gompi.")...)
	// Stopped first, so that none sees another die and cleans up.
	for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGKILL} {
		for _, p := range procs {
			_ = syscall.Kill(p, sig)
		}
	}
	_ = cmd.Wait()
	waitGone(t, "process", ranks)
	waitNoJobProcesses(t, tmp)
	left, _ := filepath.Glob(filepath.Join(tmp, "gompi.*"))
	if len(left) != 1 {
		t.Fatalf("after killing everything, %v is in %s, want the job's session directory: the sweep is not exercised", left, tmp)
	}
	// A directory with no owner file, as one being made, is not touched.
	young := filepath.Join(tmp, "gompi.0badc0de")
	if err := os.Mkdir(young, 0o700); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", []string{"TMPDIR=" + tmp}, "-v", "-np", "1", rankprog, "exchange")
	if r.code != 0 {
		t.Fatalf("the next job exited with %d:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "removed the files of a job whose gompirun is gone") {
		t.Errorf("the next job does not say what it removed:\n%s", r.stderr)
	}
	if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the next job", left[0])
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a session directory without an owner went: %v", err)
	}
}

// withEnv returns the live processes whose environment holds each of
// parts.
func withEnv(parts ...string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
next:
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !jobtest.Alive(pid) {
			continue
		}
		for _, p := range parts {
			if !bytes.Contains(env, []byte(p)) {
				continue next
			}
		}
		pids = append(pids, pid)
	}
	return pids
}
