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
// and h3; when h2's daemon is killed, the job ends naming h2, and h4,
// whose daemon h2's started, is cleaned as well as every other host.
func TestTreeLeaderLost(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 5, cluster.Options{})
	r, procs := startOn(t, c, "h1", 5, append(treeArgs, hostcheck, "wait")...)
	for kid, leader := range map[int]int{3: 1, 4: 2} {
		if !descends(procs[kid][1], procs[leader][1]) {
			t.Errorf("the daemon of h%d (pid %d) does not descend from that of h%d (pid %d)", kid+1, procs[kid][1], leader+1, procs[leader][1])
		}
	}
	if err := syscall.Kill(procs[1][1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := r.wait()
	want := regexp.MustCompile(`^gompirun: lost the connection to host h[24]\b.*unaccounted for; stopping the job$`)
	if first := cause(res.stderr); res.code != 1 || !want.MatchString(first) {
		t.Errorf("exit %d, cause %q; want 1 and %s\n%v", res.code, first, want, res)
	}
	if strings.Contains(res.stderr, "cannot signal") {
		t.Errorf("gompirun warned of a failed signal to a host it had lost\n%v", res)
	}
	checkClean(t, c)
}

// TestTreeChain: with a fanout of 1 each daemon starts the next host's,
// four levels deep; every rank runs, and when a daemon in the middle is
// killed the job ends naming a host of that branch, and every host is
// cleaned, those below it too.
func TestTreeChain(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 5, cluster.Options{})
	r, procs := startOn(t, c, "h1", 5, "--mca", "plm_rsh_tree_fanout", "1", "--host", "h1,h2,h3,h4,h5", hostcheck, "wait")
	for rank := 2; rank < 5; rank++ {
		if !descends(procs[rank][1], procs[rank-1][1]) {
			t.Errorf("the daemon of h%d (pid %d) does not descend from that of h%d (pid %d)", rank+1, procs[rank][1], rank, procs[rank-1][1])
		}
	}
	if err := syscall.Kill(procs[2][1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := r.wait()
	want := regexp.MustCompile(`^gompirun: lost the connection to host h[345]\b.*unaccounted for; stopping the job$`)
	if first := cause(res.stderr); res.code != 1 || !want.MatchString(first) {
		t.Errorf("exit %d, cause %q; want 1 and %s\n%v", res.code, first, want, res)
	}
	checkClean(t, c)
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
