package multihost

import (
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/test/cluster"
)

// hangBound is how long a gompirun that must end on its own is given
// before the test kills it and fails: it bounds a hang, nothing more.
const hangBound = 4 * time.Minute

// waitBounded waits for r's gompirun to end, as wait does, failing t if
// it has not ended within hangBound.
func (r *running) waitBounded(t *testing.T) result {
	t.Helper()
	var killed atomic.Bool
	timer := time.AfterFunc(hangBound, func() {
		killed.Store(true)
		r.cmd.Process.Kill()
	})
	res := r.wait()
	timer.Stop()
	if killed.Load() {
		t.Fatalf("gompirun had not ended %v after it was started; killed it\n%v", hangBound, res)
	}
	return res
}

// TestHostLostOverSSH: a host whose link goes down mid-job under a real
// ssh agent, whose session to it therefore never ends, does not keep
// gompirun from ending once it stops the job: it kills that host's agent,
// names the host's ranks as lost, and exits with the status of what
// stopped the job. Once the link is back, the host's daemon sees its
// session end and cleans the host.
func TestHostLostOverSSH(t *testing.T) {
	t.Parallel()
	lost := `(?m)^gompirun: lost host h2: ranks 2 and 3 on it are unaccounted for`
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		first string // a pattern
	}{
		{
			// The ranks' connections to the job server reveal the loss.
			name: "lost contact",
			args: []string{hostcheck, "wait"},
			code: 1, first: `^gompirun: rank [23] \(pid \d+ on host h2\) lost contact: its connection to gompirun broke`,
		},
		{
			// Ranks that never connect to the job server: only the
			// timeout stops the job.
			name: "timeout",
			args: []string{"--timeout", "60", "/bin/sh", "-c", `echo "rank $GOMPI_COMM_WORLD_RANK on $(hostname) pid $$ ppid $PPID"; exec sleep 600`},
			code: 124, first: `^gompirun: job timed out after 60 seconds; killing ranks$`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := cluster.Up(t, 3, cluster.Options{SSH: true, PrivateTmp: true})
			// A later --timeout replaces startOn's.
			r, _ := startOn(t, c, "h1", 6, append([]string{"--host", "h1:2,h2:2,h3:2"}, tc.args...)...)
			if err := c.LinkDown("h2"); err != nil {
				t.Fatal(err)
			}
			res := r.waitBounded(t)
			if first := cause(res.stderr); res.code != tc.code || !regexp.MustCompile(tc.first).MatchString(first) {
				t.Errorf("exit %d, cause %q; want %d and %s\n%v", res.code, first, tc.code, tc.first, res)
			}
			if !regexp.MustCompile(lost).MatchString(res.stderr) {
				t.Errorf("stderr does not match %s\n%v", lost, res)
			}
			if err := c.LinkUp("h2"); err != nil {
				t.Fatal(err)
			}
			checkClean(t, c)
		})
	}
}

// TestLaunchTimeoutUnreachableHost: --timeout bounds the launch too: ssh
// to a host that went down takes minutes to give up, and the job times
// out before, with no rank started, naming the host not ready.
func TestLaunchTimeoutUnreachableHost(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{SSH: true, PrivateTmp: true})
	// h1 keeps h3's hardware address, as a host does for a peer that has
	// just gone down: ssh's connection attempts then go unanswered until
	// TCP gives up, rather than failing once ARP does.
	mac, err := c.Command("h3", "cat", "/sys/class/net/eth0/address").Output()
	if err != nil {
		t.Fatal(err)
	}
	neigh := c.Command("h1", "ip", "neigh", "replace", c.Addr("h3"), "lladdr", strings.TrimSpace(string(mac)), "dev", "eth0", "nud", "permanent")
	if out, err := neigh.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v: %s", neigh.Args, err, out)
	}
	if err := c.LinkDown("h3"); err != nil {
		t.Fatal(err)
	}
	cmd := c.Command("h1", gompirun, "--timeout", "10", "--mca", "plm_rsh_agent", c.Agent(), "--host", "h1,h2,h3", "/bin/hostname")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	timer := time.AfterFunc(hangBound, func() { cmd.Process.Kill() })
	err = cmd.Run()
	timer.Stop()
	r := result{cmd.ProcessState.ExitCode(), out.String(), errOut.String()}
	if err != nil && r.code < 0 {
		t.Fatalf("gompirun: %v (killed if it had not ended %v after it was started)\n%v", err, hangBound, r)
	}
	// h2 may be slow to answer too, on a loaded machine.
	want := `^gompirun: job timed out after 10 seconds while launching: no answer from (host h3|hosts h2, h3); no rank was started$`
	if first := cause(r.stderr); r.code != 124 || !regexp.MustCompile(want).MatchString(first) {
		t.Errorf("exit %d, cause %q; want 124 and %s\n%v", r.code, first, want, r)
	}
	if strings.Contains(r.stdout, "h1") || strings.Contains(r.stdout, "h2") {
		t.Errorf("a rank ran\n%v", r)
	}
	if err := c.LinkUp("h3"); err != nil {
		t.Fatal(err)
	}
	checkClean(t, c)
}
