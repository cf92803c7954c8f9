package multihost

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gompi/gompi/test/cluster"
)

// treeArgs launch one rank on each of 5 hosts from h1 with a fanout of 2:
// gompirun starts the daemons of h2 and h3, which start those of h4 and
// h5 in turn.
var treeArgs = []string{"--mca", "plm_rsh_tree_fanout", "2", "--host", "h1,h2,h3,h4,h5"}

// TestTreeLaunch: a job launched as a tree runs every rank on its host
// with the right transports, and leaves nothing behind.
func TestTreeLaunch(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 5, cluster.Options{})
	r := runOn(t, c, "h1", append(treeArgs, hostcheck)...)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	for rank := range 5 {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^rank %d on h%d transports `, rank, rank+1)).MatchString(r.stdout) ||
			!strings.Contains(r.stdout, fmt.Sprintf("rank %d ok\n", rank)) {
			t.Errorf("rank %d did not run its checks on h%d\n%v", rank, rank+1, r)
		}
	}
	checkClean(t, c)
}

// TestTreeLeaderLost: the daemons of h4 and h5 descend from those of h2
// and h3; when h2's daemon is killed, the job ends naming h2's rank and
// h4's, whose daemon h2's started, and every host is cleaned.
func TestTreeLeaderLost(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 5, cluster.Options{})
	r, procs := startOn(t, c, "h1", 5, append(treeArgs, hostcheck, "wait")...)
	res := killInTree(t, c, r, procs, map[int]int{3: 1, 4: 2}, 1,
		`h2\b.*: rank 1 on it and rank 3 on host h4, whose daemon descends from its, are`)
	if strings.Contains(res.stderr, "cannot signal") {
		t.Errorf("gompirun warned of a failed signal to a host it had lost\n%v", res)
	}
}

// TestTreeChain: with a fanout of 1 each daemon starts the next host's,
// four levels deep; every rank runs, and when a daemon in the middle is
// killed the job ends naming its rank and those of the hosts below it,
// and every host is cleaned, those below it too.
func TestTreeChain(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 5, cluster.Options{})
	r, procs := startOn(t, c, "h1", 5, "--mca", "plm_rsh_tree_fanout", "1", "--host", "h1,h2,h3,h4,h5", hostcheck, "wait")
	killInTree(t, c, r, procs, map[int]int{2: 1, 3: 2, 4: 3}, 2,
		`h3\b.*: rank 2 on it, rank 3 on host h4 and rank 4 on host h5, whose daemons descend from its, are`)
}

// killInTree checks that the daemon of each rank of parents (one rank a
// host) descends from its parent's, kills the daemon of rank victim, and
// checks that the job ends with a loss that lost describes (what follows
// "lost the connection to host ") and leaves nothing on any host.
func killInTree(t *testing.T, c *cluster.Cluster, r *running, procs map[int][2]int, parents map[int]int, victim int, lost string) result {
	t.Helper()
	for kid, parent := range parents {
		if !descends(procs[kid][1], procs[parent][1]) {
			t.Errorf("the daemon of h%d (pid %d) does not descend from that of h%d (pid %d)", kid+1, procs[kid][1], parent+1, procs[parent][1])
		}
	}
	if err := syscall.Kill(procs[victim][1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := r.wait()
	want := regexp.MustCompile(`^gompirun: lost the connection to host ` + lost + ` unaccounted for; stopping the job$`)
	if first := cause(res.stderr); res.code != 1 || !want.MatchString(first) {
		t.Errorf("exit %d, cause %q; want 1 and %s\n%v", res.code, first, want, res)
	}
	checkClean(t, c)
	return res
}

// descends reports whether process pid has ancestor among its parents.
func descends(pid, ancestor int) bool {
	for pid > 1 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		// The parent is the second field after the command's closing parenthesis.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) < 2 {
			return false
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil {
			return false
		}
		if pid == ancestor {
			return true
		}
	}
	return false
}

// TestTreeUnreachableHost: a host that a leader cannot reach ends the
// launch before any rank starts, naming the host and the agent's error
// as when gompirun starts its daemon itself.
func TestTreeUnreachableHost(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	checkRefusedH9(t, runOn(t, c, "h1", "--mca", "plm_rsh_tree_fanout", "2", "--host", "h1,h2,h3,h9", hostcheck))
	checkClean(t, c)
}
