package cluster

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestAgentLaunchesOtherMPIs runs hostname on every host through Open
// MPI's launcher with the agent as its ssh, from h1, as gompirun's
// multi-host tests do. MPICH's Hydra is checked with real MPI programs
// in test/multihost (TestHydraAcrossHosts): with a command as short as
// hostname, Hydra writes to a proxy whose process has exited and fails
// with "write error (Broken pipe)" in about a quarter of the runs on a
// loaded machine.
func TestAgentLaunchesOtherMPIs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: jobs of other MPIs' launchers")
	}
	launchers := []struct {
		name string
		argv func(c *Cluster) []string
	}{
		{"mpirun.openmpi", func(c *Cluster) []string {
			return []string{"--hostfile", c.WriteHostfile(1), "-np", "3", "--mca", "plm_rsh_agent", c.Agent(), "hostname"}
		}},
	}
	c := Up(t, 3, Options{})
	for _, l := range launchers {
		t.Run(l.name, func(t *testing.T) {
			if _, err := exec.LookPath(l.name); err != nil {
				t.Skipf("%s is not installed: %v", l.name, err)
			}
			cmd := c.Command("h1", l.name, l.argv(c)...)
			cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v: %s", cmd, err, out)
			}
			names := strings.Fields(string(out))
			slices.Sort(names)
			if !slices.Equal(names, c.Hosts()) {
				t.Errorf("%s printed %q, want one line per host %v", l.name, out, c.Hosts())
			}
		})
	}
}
