// Package multihost runs gompi jobs across several hosts built on this
// machine (test/cluster): gompirun launching over an ssh-style agent, the
// transports chosen by host, and what a job leaves behind on each host.
package multihost

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/test/cluster"
)

// The programs, built where every host sees them (the hosts share the
// file system, as a cluster's nodes share a home directory).
var gompirun, hostcheck string

func TestMain(m *testing.M) {
	jobtest.SkipUnderShort()
	if err := cluster.Available(); err != nil {
		fmt.Println("skipped: no hosts can be built here:", err)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "multihost_test")
	if err != nil {
		panic(err)
	}
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../cmd/gompirun", "hostcheck": "./testdata/hostcheck"})
	if err != nil {
		panic(err)
	}
	gompirun, hostcheck = bins["gompirun"], bins["hostcheck"]
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is a finished gompirun.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// runOn runs gompirun on host of c with args, the agent being c's.
func runOn(t *testing.T, c *cluster.Cluster, host string, args ...string) result {
	t.Helper()
	args = append([]string{"--timeout", "120", "--mca", "plm_rsh_agent", c.Agent()}, args...)
	cmd := c.Command(host, gompirun, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
		if code < 0 {
			t.Fatalf("gompirun on %s: %v", host, err)
		}
	}
	return result{code, out.String(), errOut.String()}
}

// checkClean fails t if a host holds anything of a job.
func checkClean(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	if left := c.Leftovers(); len(left) > 0 {
		t.Errorf("left on the hosts after the job: %v", left)
	}
}

// TestAcrossHosts: 3 hosts x 2 ranks from h1: every rank runs on its
// host, sm joins the ranks of a host and tcp the hosts, and a ring, an
// allreduce, an alltoall and a 64 MiB message between hosts are right.
func TestAcrossHosts(t *testing.T) {
	c := cluster.Up(t, 3, cluster.Options{})
	r := runOn(t, c, "h1", "--host", "h1:2,h2:2,h3:2", hostcheck)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	line := regexp.MustCompile(`(?m)^rank (\d) on (h\d) transports (.*)$`)
	seen := map[string]string{}
	for _, m := range line.FindAllStringSubmatch(r.stdout, -1) {
		seen[m[1]] = m[2] + " " + m[3]
	}
	for rank := range 6 {
		host := fmt.Sprintf("h%d", rank/2+1)
		var want []string
		for peer := range 6 {
			via := "tcp"
			switch {
			case peer == rank:
				via = "self"
			case peer/2 == rank/2:
				via = "sm"
			}
			want = append(want, fmt.Sprintf("%d:%s", peer, via))
		}
		if got := seen[fmt.Sprint(rank)]; got != host+" "+strings.Join(want, " ") {
			t.Errorf("rank %d: %q, want on %s with %s", rank, got, host, strings.Join(want, " "))
		}
		if !strings.Contains(r.stdout, fmt.Sprintf("rank %d ok\n", rank)) {
			t.Errorf("rank %d did not pass its checks\n%v", rank, r)
		}
	}
	checkClean(t, c)
}
