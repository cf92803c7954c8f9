package node

import (
	"strings"
	"testing"
)

// TestDaemonRefusesJunk: a daemon whose input is not gompirun's spec
// says so and exits, starting nothing.
func TestDaemonRefusesJunk(t *testing.T) {
	var errOut strings.Builder
	code := RunDaemon(strings.NewReader("Welcome to host h2\nLast login: ...\n"), &strings.Builder{}, &errOut, t.TempDir(), "", nil)
	if code == 0 || !strings.Contains(errOut.String(), "gompirun daemon: reading the job's spec: not a gompi daemon frame") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
