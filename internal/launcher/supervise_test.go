package launcher

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestExited: a running child has not exited; once dead it has, before
// and after it is reaped, so that a stop does not claim its death.
func TestExited(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if exited(pid) {
		t.Fatal("a running child reported as exited")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for !exited(pid) {
		if time.Now().After(deadline) {
			t.Fatal("a killed child, not reaped, never reported as exited")
		}
		time.Sleep(time.Millisecond)
	}
	if !exited(pid) {
		t.Fatal("exited reaped the child, or changed its mind")
	}
	_ = cmd.Wait() // WNOWAIT left it to be reaped here
	if cmd.ProcessState == nil || cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child's status %v: exited must leave it to Wait", cmd.ProcessState)
	}
	if !exited(pid) {
		t.Fatal("a reaped child reported as running")
	}
}
