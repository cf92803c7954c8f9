package multihost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gompi/gompi/test/cluster"
)

// TestDaemonProgram: on another host gompirun starts gompi-daemon, found
// beside itself, and where there is none its own binary in the daemon's
// mode; either starts that host's ranks and cleans up after them.
func TestDaemonProgram(t *testing.T) {
	t.Parallel()
	// A copy, not a link: gompirun looks beside the file it runs from.
	// Not under /tmp, which the hosts may not share.
	dir, err := os.MkdirTemp("/var/tmp", "daemon_test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	alone := filepath.Join(dir, "gompirun")
	b, err := os.ReadFile(gompirun)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	c := cluster.Up(t, 2, cluster.Options{})
	for _, tc := range []struct{ name, exe, daemon string }{
		{"beside", gompirun, filepath.Join(filepath.Dir(gompirun), "gompi-daemon")},
		{"alone", alone, alone + " --daemon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each rank's parent is what started it: gompirun on h1, the
			// daemon on h2.
			r := runCmd(t, "h1", c.Command("h1", tc.exe, "--timeout", "120", "--mca", "plm_rsh_agent", c.Agent(),
				"--host", "h1,h2", "sh", "-c", `echo "rank $GOMPI_COMM_WORLD_RANK: $(tr '\0' ' ' </proc/$PPID/cmdline)"`))
			if r.code != 0 {
				t.Fatalf("the job failed\n%v", r)
			}
			if want := "rank 1: " + tc.daemon + " \n"; !strings.Contains(r.stdout, want) {
				t.Errorf("h2's ranks were not started by %s\n%v", tc.daemon, r)
			}
			checkClean(t, c)
		})
	}
}
