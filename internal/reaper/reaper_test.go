package reaper

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/jobtest"
)

// TestKillJob: the reaper kills the processes whose environment names
// both the job and its session directory, and no other.
func TestKillJob(t *testing.T) {
	const job, dir = "0123abcd", "/tmp/gompi.0123abcd"
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	ofJob := start(jobenv.JobID+"="+job, jobenv.SessionDir+"="+dir)
	otherDir := start(jobenv.JobID+"="+job, jobenv.SessionDir+"="+dir+"x")
	otherJob := start(jobenv.JobID+"="+job+"0", jobenv.SessionDir+"="+dir)
	if err := killJob(job, dir); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ofJob.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang guard, not a measurement
		t.Fatal("the job's process still runs")
	}
	for _, c := range []*exec.Cmd{otherDir, otherJob} {
		if !jobtest.Alive(c.Process.Pid) {
			t.Errorf("pid %d, not of the job, was killed", c.Process.Pid)
		}
	}
}

// TestWaitRelease: a byte before the end means an orderly end.
func TestWaitRelease(t *testing.T) {
	for _, tc := range []struct {
		name    string
		write   bool
		orderly bool
	}{{"released", true, true}, {"killed", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if tc.write {
				(&Reaper{w: w}).Release()
			} else {
				w.Close()
			}
			got, err := waitRelease(r)
			if err != nil || got != tc.orderly {
				t.Fatalf("waitRelease = %v, %v; want %v", got, err, tc.orderly)
			}
		})
	}
}

// TestExe: gompi-reaper beside gompirun if it is there and executable,
// else gompirun itself.
func TestExe(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "gompirun")
	beside := filepath.Join(dir, Name)
	if got := Exe(self); got != self {
		t.Errorf("with no %s: Exe = %s, want %s", Name, got, self)
	}
	if err := os.WriteFile(beside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Exe(self); got != self {
		t.Errorf("with %s not executable: Exe = %s, want %s", Name, got, self)
	}
	if err := os.Chmod(beside, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Exe(self); got != beside {
		t.Errorf("Exe = %s, want %s", got, beside)
	}
}
