package multihost

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/test/cluster"
)

// slurm builds 3 hosts with a real Slurm on them, or skips.
func slurm(t *testing.T) (*cluster.Cluster, *cluster.Slurm) {
	t.Helper()
	if err := cluster.SlurmAvailable(); err != nil {
		t.Skip(err)
	}
	c := cluster.Up(t, 3, cluster.Options{})
	return c, c.StartSlurm(t, cluster.SlurmOptions{})
}

// TestSrunPMI2: srun --mpi=pmi2 starts a gompi program on 3 nodes with
// no gompirun; the ranks take their layout from Slurm through PMI-2.
func TestSrunPMI2(t *testing.T) {
	t.Parallel()
	c, s := slurm(t)
	out, err := s.Command("h1", "srun", "--mpi=pmi2", "-N3", "-n6", hostcheck).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkRanks(t, string(out), 6, func(r int) string { return fmt.Sprintf("h%d", r/2+1) })
	checkClean(t, c, slurmDaemons)
}

// TestSrunWithoutPMI: srun with no PMI (--mpi=none) starts ranks that
// cannot find each other; each fails, naming srun's --mpi=pmi2, rather
// than run as one of several singletons.
func TestSrunWithoutPMI(t *testing.T) {
	t.Parallel()
	c, s := slurm(t)
	out, err := s.Command("h1", "srun", "--mpi=none", "-N3", "-n3", hostcheck).CombinedOutput()
	for task := range 3 {
		want := fmt.Sprintf("srun started this process as task %d of 3 with no PMI to join them (srun --mpi=none): start it with srun --mpi=pmi2", task)
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%v; want the job to fail with %q\n%s", err, want, out)
		}
	}
	checkClean(t, c, slurmDaemons)
}

// TestSrunPMIx: srun --mpi=pmix starts a gompi program built with the
// pmix tag on 3 nodes with no gompirun; the ranks take their identity and
// layout from Slurm's PMIx server.
func TestSrunPMIx(t *testing.T) {
	t.Parallel()
	prog := pmixHostcheck(t)
	c, s := slurm(t)
	out, err := s.Command("h1", "srun", "--mpi=pmix", "-N3", "-n6", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkRanks(t, string(out), 6, func(r int) string { return fmt.Sprintf("h%d", r/2+1) })
	checkClean(t, c, slurmDaemons)
}

// slurmDaemons matches Slurm's own daemons, which outlive the jobs; its
// job steps (slurmstepd) do not, and are leftovers.
var slurmDaemons = regexp.MustCompile(`: (/usr/sbin/)?(slurmctld|slurmd|munged)( |$)|slurmctld: slurmscriptd`)

// TestGompirunInAllocation: gompirun inside salloc places the ranks on
// the allocation's nodes, its tasks per node as slots, and starts its
// daemons as job steps (plm slurm).
func TestGompirunInAllocation(t *testing.T) {
	t.Parallel()
	c, s := slurm(t)
	cmd := s.Command("h1", "salloc", "-N3", "-n6", gompirun, "--timeout", "120", hostcheck)
	cmd.Env = append(cmd.Env, "GOMPI_MCA_plm=slurm") // no other way to launch: the test fails if slurm declines
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkRanks(t, string(out), 6, func(r int) string { return fmt.Sprintf("h%d", r/2+1) })
	if regexp.MustCompile(`(?m)^gompirun: host`).Match(out) {
		t.Errorf("srun or the daemons complained\n%s", out)
	}
	checkClean(t, c, slurmDaemons)
}
