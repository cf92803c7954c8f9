package cluster

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
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
	c := Up(t, 3, Options{})
	t.Run("mpirun.openmpi", func(t *testing.T) { checkOpenMPIHostnames(t, c, c.Agent()) })
}

// checkOpenMPIHostnames runs hostname through Open MPI's mpirun on h1,
// a rank per host, with agent as its ssh, and checks that every host
// printed its name once. Only the standard output counts: on a loaded
// machine Open MPI's rsh launcher warns on its standard error that a
// setpgid lost the race with the child's exec, which is harmless.
func checkOpenMPIHostnames(t *testing.T, c *Cluster, agent string) {
	t.Helper()
	if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
		t.Skipf("mpirun.openmpi is not installed: %v", err)
	}
	cmd := c.Command("h1", "mpirun.openmpi", "--hostfile", c.WriteHostfile(1), "-np", strconv.Itoa(len(c.Hosts())),
		"--mca", "plm_rsh_agent", agent, "hostname")
	cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s%s", cmd, err, out, stderr.String())
	}
	names := strings.Fields(string(out))
	slices.Sort(names)
	if !slices.Equal(names, c.Hosts()) {
		t.Errorf("mpirun printed %q (standard error %q), want one line per host %v", out, stderr.String(), c.Hosts())
	}
}
