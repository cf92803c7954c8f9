package multihost

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/test/cluster"
)

// hydra is MPICH's launcher, which starts gompi programs with no gompirun
// through PMI (the ess pmi component).
func hydra(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("mpiexec.mpich")
	if err != nil {
		t.Skip("MPICH's mpiexec.mpich is not installed (Debian package mpich)")
	}
	return path
}

// checkRanks checks hostcheck's report: rank r on host hostOf(r), sm to
// the ranks of its host and tcp to the others, and its checks passed.
func checkRanks(t *testing.T, out string, n int, hostOf func(int) string) {
	t.Helper()
	for rank := range n {
		var want []string
		for peer := range n {
			via := "tcp"
			switch {
			case peer == rank:
				via = "self"
			case hostOf(peer) == hostOf(rank):
				via = "sm"
			}
			want = append(want, fmt.Sprintf("%d:%s", peer, via))
		}
		line := fmt.Sprintf("rank %d on %s transports %s\n", rank, hostOf(rank), strings.Join(want, " "))
		if !strings.Contains(out, line) || !strings.Contains(out, fmt.Sprintf("rank %d ok\n", rank)) {
			t.Errorf("want %q and rank %d ok in\n%s", line, rank, out)
		}
	}
}

// TestHydraOneHost: mpiexec.mpich starts a gompi program on one host over
// PMI-1 (Hydra's default) and over PMI-2.
func TestHydraOneHost(t *testing.T) {
	t.Parallel()
	mpiexec := hydra(t)
	c := cluster.Up(t, 1, cluster.Options{})
	for _, version := range []string{"1", "2"} {
		cmd := c.Command("h1", mpiexec, "-n", "4", "-genv", "GOMPI_MCA_ess_pmi_version", version, hostcheck)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("PMI-%s: %v\n%s", version, err, out)
		}
		checkRanks(t, string(out), 4, func(int) string { return "h1" })
	}
	checkClean(t, c)
}

// TestHydraAcrossHosts: Hydra on h1 starts 2 ranks on each of 3 hosts
// through the cluster's ssh stand-in; gompi takes the layout from PMI.
func TestHydraAcrossHosts(t *testing.T) {
	t.Parallel()
	mpiexec := hydra(t)
	c := cluster.Up(t, 3, cluster.Options{})
	cmd := c.Command("h1", mpiexec, "-hosts", "h1,h2,h3", "-n", "6", "-ppn", "2",
		"-launcher", "rsh", "-launcher-exec", c.Agent(), hostcheck)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkRanks(t, string(out), 6, func(r int) string { return fmt.Sprintf("h%d", r/2+1) })
	if regexp.MustCompile(`(?m)^rank \d on vm`).Match(out) {
		t.Errorf("a rank ran outside the cluster\n%s", out)
	}
	checkClean(t, c)
}
