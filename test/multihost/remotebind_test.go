package multihost

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"testing"

	"github.com/gompi/gompi/test/cluster"
)

// runPinned runs gompirun on host of c, itself bound to CPU 0 as a Slurm
// step's task may be, with stdin as its standard input. The daemons the
// agent starts inherit that one-CPU mask.
func runPinned(t *testing.T, c *cluster.Cluster, host string, stdin io.Reader, args ...string) result {
	t.Helper()
	args = append([]string{"-c", "0", gompirun, "--timeout", "120", "--mca", "plm_rsh_agent", c.Agent()}, args...)
	cmd := c.Command(host, "taskset", args...)
	cmd.Stdin = stdin
	return runCmd(t, host, cmd)
}

// cpusAllowed is this process's Cpus_allowed_list: the CPUs of the
// machine the simulated hosts share.
func cpusAllowed(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Cpus_allowed_list:\s*(\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no Cpus_allowed_list in /proc/self/status:\n%s", b)
	}
	return string(m[1])
}

// TestBindOnOtherHost: the ranks of a host that gompirun reaches through
// a daemon are bound under --bind-to over that host's CPUs, not the
// daemon's one-CPU mask: with core, 2 ranks on a 2-CPU host get a CPU
// each; with none, every CPU. The map shows the CPUs the ranks got.
func TestBindOnOtherHost(t *testing.T) {
	t.Parallel()
	all := cpusAllowed(t)
	if all != "0-1" {
		t.Skipf("the machine's CPUs are %s: the test wants 2, 0-1", all)
	}
	c := cluster.Up(t, 2, cluster.Options{})
	// Each rank prints the CPUs it may run on, as the kernel sees them.
	show := []string{"sh", "-c", `echo "rank $GOMPI_COMM_WORLD_RANK cpus $(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/self/status)"`}
	line := regexp.MustCompile(`(?m)^rank (\d) cpus (\S+)$`)
	for _, tt := range []struct {
		bind    string
		want    map[string]string // rank -> CPUs
		mapshow []string          // the map's binding column, by rank
	}{
		{"core", map[string]string{"0": "0", "1": "1"}, []string{"cpus 0", "cpus 1"}},
		{"auto", map[string]string{"0": "0", "1": "1"}, []string{"cpus 0", "cpus 1"}},
		{"none", map[string]string{"0": all, "1": all}, []string{"-", "-"}},
	} {
		t.Run(tt.bind, func(t *testing.T) {
			r := runPinned(t, c, "h1", nil, append([]string{"--host", "h2:2", "-np", "2", "--bind-to", tt.bind, "--display-map"}, show...)...)
			if r.code != 0 {
				t.Fatalf("the job failed\n%v", r)
			}
			got := map[string]string{}
			for _, m := range line.FindAllStringSubmatch(r.stdout, -1) {
				got[m[1]] = m[2]
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("--bind-to %s on h2: the ranks' CPUs are %v, want %v\n%v", tt.bind, got, tt.want, r)
			}
			for rank := range 2 {
				if !regexp.MustCompile(fmt.Sprintf(`(?m)^%d\s+h2\s+%d\s+2\s+%s$`, rank, rank, regexp.QuoteMeta(tt.mapshow[rank]))).MatchString(r.stdout) {
					t.Errorf("the map does not show rank %d on h2 with binding %q\n%v", rank, tt.mapshow[rank], r)
				}
			}
		})
	}
	checkClean(t, c)
}
