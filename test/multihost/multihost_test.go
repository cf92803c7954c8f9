// Package multihost runs gompi jobs across several hosts built on this
// machine (test/cluster): gompirun launching over an ssh-style agent, the
// transports chosen by host, and what a job leaves behind on each host.
package multihost

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	// Not under /tmp: hosts built with PrivateTmp have their own.
	dir, err := os.MkdirTemp("/var/tmp", "multihost_test")
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
	return runCmd(t, host, c.Command(host, gompirun, args...))
}

// runCmd runs cmd, a gompirun on host, and returns how it ended.
func runCmd(t *testing.T, host string, cmd *exec.Cmd) result {
	t.Helper()
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

// checkClean fails t if a host still holds anything of a job once the
// reapers, which outlive gompirun and its daemons by design, are done:
// it waits for them, within a bound that only a hang reaches. What
// services match is not the job's.
func checkClean(t *testing.T, c *cluster.Cluster, services ...*regexp.Regexp) {
	t.Helper()
	leftovers := func() []string {
		return slices.DeleteFunc(c.Leftovers(), func(l string) bool {
			return slices.ContainsFunc(services, func(re *regexp.Regexp) bool { return re.MatchString(l) })
		})
	}
	left := leftovers()
	for deadline := time.Now().Add(30 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = leftovers() {
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("left on the hosts after the job: %v", left)
	}
}

// cause is the first line in which gompirun reports a failure of its own:
// the ranks' own logs, and what an agent said (relayed as "host H: ..."),
// may come before it.
func cause(stderr string) string {
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "gompirun: ") && !strings.HasPrefix(line, "gompirun: host ") {
			return strings.TrimSuffix(line, "\n")
		}
	}
	return ""
}

// TestAcrossHosts: 3 hosts x 2 ranks from h1: every rank runs on its
// host, sm joins the ranks of a host and tcp the hosts, and a ring, an
// allreduce, an alltoall and a 64 MiB message between hosts are right.
func TestAcrossHosts(t *testing.T) {
	t.Parallel()
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

// TestOverSSH: the same job through real ssh to a real sshd on every
// host, each host with its own /tmp, as on a cluster.
func TestOverSSH(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{SSH: true, PrivateTmp: true})
	r := runOn(t, c, "h1", "--host", "h1:2,h2:2,h3:2", hostcheck)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	for rank := range 6 {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^rank %d on h%d transports `, rank, rank/2+1)).MatchString(r.stdout) ||
			!strings.Contains(r.stdout, fmt.Sprintf("rank %d ok\n", rank)) {
			t.Errorf("rank %d did not run its checks on h%d\n%v", rank, rank/2+1, r)
		}
	}
	checkClean(t, c)
}

// TestHostfileMapByNode: a hostfile of 2 slots a host, ranks placed
// round robin (--map-by node), and the map printed before the job.
func TestHostfileMapByNode(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	r := runOn(t, c, "h1", "--hostfile", c.WriteHostfile(2), "--map-by", "node", "--display-map", hostcheck)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	for rank := range 6 {
		host := fmt.Sprintf("h%d", rank%3+1)
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^rank %d on %s transports `, rank, host)).MatchString(r.stdout) {
			t.Errorf("rank %d is not on %s\n%v", rank, host, r)
		}
		// The map's line of the rank: its host and local rank.
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^\s*%d\s+%s\s+%d\s`, rank, host, rank/3)).MatchString(r.stdout) {
			t.Errorf("the map lacks rank %d on %s as local rank %d\n%v", rank, host, rank/3, r)
		}
	}
	checkClean(t, c)
}

// TestUnreachableHost: a host the agent cannot reach ends the launch
// before any rank starts, naming the host and the agent's error, and
// leaves nothing on any host.
func TestUnreachableHost(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 2, cluster.Options{})
	checkRefusedH9(t, runOn(t, c, "h1", "--host", "h1,h2,h9", hostcheck))
	checkClean(t, c)
}

// checkRefusedH9 fails t unless r is a launch refused for host h9, which
// the cluster's agent does not know, before any rank started.
func checkRefusedH9(t *testing.T, r result) {
	t.Helper()
	if r.code == 0 || !strings.HasPrefix(cause(r.stderr), "gompirun: cannot launch on host h9: the daemon ended before it could start the ranks: exit status 255: ") ||
		!strings.Contains(cause(r.stderr), "no host 'h9'") {
		t.Errorf("want the launch refused, naming h9 and the agent's error\n%v", r)
	}
	if strings.Contains(r.stdout, "transports") {
		t.Errorf("a rank started\n%v", r)
	}
}

// running is a gompirun started on a host whose ranks print a line each.
type running struct {
	c      *cluster.Cluster
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	stdout strings.Builder
	stderr strings.Builder
}

// startOn starts gompirun on host of c and reads, for each of n ranks,
// its "rank R on H pid P ppid Q" line (hostcheck wait); it returns the
// pids and parent pids by rank.
func startOn(t *testing.T, c *cluster.Cluster, host string, n int, args ...string) (*running, map[int][2]int) {
	t.Helper()
	args = append([]string{"--timeout", "120", "--mca", "plm_rsh_agent", c.Agent()}, args...)
	r := &running{c: c, cmd: c.Command(host, gompirun, args...)}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	r.lines = bufio.NewScanner(out)
	line := regexp.MustCompile(`^rank (\d+) on \S+ pid (\d+) ppid (\d+)$`)
	procs := map[int][2]int{}
	for len(procs) < n && r.lines.Scan() {
		r.stdout.WriteString(r.lines.Text() + "\n")
		if m := line.FindStringSubmatch(r.lines.Text()); m != nil {
			rank, _ := strconv.Atoi(m[1])
			pid, _ := strconv.Atoi(m[2])
			ppid, _ := strconv.Atoi(m[3])
			procs[rank] = [2]int{pid, ppid}
		}
	}
	if len(procs) < n {
		r.cmd.Process.Kill()
		r.cmd.Wait()
		t.Fatalf("%d of %d ranks started\nstdout:\n%s\nstderr:\n%s", len(procs), n, r.stdout.String(), r.stderr.String())
	}
	return r, procs
}

// wait waits for gompirun to end and returns how.
func (r *running) wait() result {
	for r.lines.Scan() {
		r.stdout.WriteString(r.lines.Text() + "\n")
	}
	err := r.cmd.Wait()
	code := 0
	if err != nil {
		code = r.cmd.ProcessState.ExitCode()
	}
	return result{code, r.stdout.String(), r.stderr.String()}
}

// TestFailuresAcrossHosts: a rank killed on another host, that host's
// daemon killed, gompirun interrupted: the job ends, the first line of
// gompirun's stderr names what happened where, and nothing of the job is
// left on any host.
func TestFailuresAcrossHosts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		act   func(t *testing.T, r *running, procs map[int][2]int)
		code  int
		first string // a pattern
	}{
		{
			name: "rank killed", args: []string{"die", "3"},
			code: 128 + int(syscall.SIGKILL), first: `^gompirun: rank 3 \(pid \d+ on host h2\) killed by signal SIGKILL`,
		},
		{
			name: "daemon killed", args: []string{"wait"},
			act: func(t *testing.T, r *running, procs map[int][2]int) {
				if err := syscall.Kill(procs[3][1], syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			},
			code: 1, first: `^gompirun: lost the connection to host h2: .*ranks 2 and 3 on it are unaccounted for; stopping the job$`,
		},
		{
			name: "link down", args: []string{"wait"},
			act: func(t *testing.T, r *running, _ map[int][2]int) {
				if err := r.c.LinkDown("h2"); err != nil {
					t.Fatal(err)
				}
			},
			code: 1, first: `^gompirun: rank [23] \(pid \d+ on host h2\) lost contact: its connection to gompirun broke`,
		},
		{
			name: "interrupted", args: []string{"wait"},
			act: func(t *testing.T, r *running, _ map[int][2]int) {
				if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			},
			code: 128 + int(syscall.SIGINT), first: `^gompirun: received SIGINT; forwarded it to the ranks and stopping the job$`,
		},
		{
			name: "terminated", args: []string{"wait"},
			act: func(t *testing.T, r *running, _ map[int][2]int) {
				if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			},
			code: 128 + int(syscall.SIGTERM), first: `^gompirun: received SIGTERM; forwarded it to the ranks and stopping the job$`,
		},
		{
			name: "hung up", args: []string{"wait"},
			act: func(t *testing.T, r *running, _ map[int][2]int) {
				if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
			},
			code: 128 + int(syscall.SIGHUP), first: `^gompirun: received SIGHUP; forwarded it to the ranks and stopping the job$`,
		},
		{
			// gompirun cannot say anything: the daemons see their input
			// end, the ranks here their lifeline, and the reapers clean.
			name: "gompirun killed", args: []string{"wait"},
			act: func(t *testing.T, r *running, _ map[int][2]int) {
				if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			},
			code: -1, first: `^$`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := cluster.Up(t, 3, cluster.Options{})
			r, procs := startOn(t, c, "h1", 6, append([]string{"--host", "h1:2,h2:2,h3:2", hostcheck}, tc.args...)...)
			if tc.act != nil {
				tc.act(t, r, procs)
			}
			res := r.wait()
			if first := cause(res.stderr); res.code != tc.code || !regexp.MustCompile(tc.first).MatchString(first) {
				t.Errorf("exit %d, cause %q; want %d and %s\n%v", res.code, first, tc.code, tc.first, res)
			}
			checkClean(t, c)
		})
	}
}

// TestStateReportAcrossHosts: SIGQUIT to gompirun prints every rank's
// state, those of other hosts named with their host, and the job goes on
// until it is interrupted.
func TestStateReportAcrossHosts(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	args := []string{"--timeout", "120", "--mca", "plm_rsh_agent", c.Agent(), "--host", "h1:2,h2:2,h3:2", hostcheck, "wait"}
	cmd := c.Command("h1", gompirun, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(out)
	for n := 0; n < 6 && lines.Scan(); {
		if strings.HasPrefix(lines.Text(), "rank ") {
			n++
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()
	if err := cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	// Read the report up to its last rank, then end the job.
	report := regexp.MustCompile(`^  rank (\d) \((pid \d+(?: on host (h\d))?)\) (.*)$`)
	var stderr strings.Builder
	errLines := bufio.NewScanner(errOut)
	seen := map[string]string{}
	for len(seen) < 6 && errLines.Scan() {
		stderr.WriteString(errLines.Text() + "\n")
		if m := report.FindStringSubmatch(errLines.Text()); m != nil {
			seen[m[1]] = m[3]
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for errLines.Scan() {
		stderr.WriteString(errLines.Text() + "\n")
	}
	cmd.Wait()
	for rank := range 6 {
		want := fmt.Sprintf("h%d", rank/2+1)
		if rank < 2 {
			want = "" // gompirun's own host: no host named
		}
		if got, ok := seen[fmt.Sprint(rank)]; !ok || got != want {
			t.Errorf("rank %d: reported %v with host %q, want %q\n%s", rank, ok, got, want, stderr.String())
		}
	}
	checkClean(t, c)
}

// TestMPMDAcrossHosts: the app contexts of an MPMD job are placed one
// after the other over the hosts, each rank running its own program
// with its own exports.
func TestMPMDAcrossHosts(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	r := runOn(t, c, "h1", "--host", "h1:2,h2:2,h3:2", "-np", "1", "-x", "ROLE=first", "sh", "-c", `echo "app $GOMPI_APPNUM rank $GOMPI_COMM_WORLD_RANK on $(hostname) $ROLE"`,
		":", "-np", "5", "-x", "ROLE=second", "sh", "-c", `echo "app $GOMPI_APPNUM rank $GOMPI_COMM_WORLD_RANK on $(hostname) $ROLE"`)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	for rank := range 6 {
		app, role := 1, "second"
		if rank == 0 {
			app, role = 0, "first"
		}
		if want := fmt.Sprintf("app %d rank %d on h%d %s\n", app, rank, rank/2+1, role); !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q\n%v", want, r)
		}
	}
	checkClean(t, c)
}

// TestProfilingAcrossHosts: the stats tool's report covers every rank:
// the daemons send their hosts' parts to gompirun, which merges them.
func TestProfilingAcrossHosts(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	prefix := filepath.Join(t.TempDir(), "stats")
	r := runOn(t, c, "h1", "--host", "h1:2,h2:2,h3:2", "--mca", "prof", "stats", "--mca", "prof_stats_output", prefix, hostcheck)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	if strings.Contains(r.stderr, "no part from") || !strings.Contains(r.stderr, "gompirun: report written: "+prefix) {
		t.Fatalf("want a report with every rank's part\n%v", r)
	}
	reports, _ := filepath.Glob(prefix + ".*.txt")
	if len(reports) != 1 {
		t.Fatalf("reports %v, want one", reports)
	}
	text, err := os.ReadFile(reports[0])
	if err != nil {
		t.Fatal(err)
	}
	// Every rank's line in the table of MPI time.
	for rank := range 6 {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^\s+%d\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+$`, rank)).Match(text) {
			t.Errorf("the report lacks rank %d's MPI time\n%s", rank, text)
		}
	}
	checkClean(t, c)
}

// TestDeadlockAcrossHosts: the state report at --timeout names the cycle
// of ranks, on three hosts, that wait for each other.
func TestDeadlockAcrossHosts(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	r := runOn(t, c, "h1", "--timeout", "5", "--report-state-on-timeout", "--report-state-wait", "1m", "--host", "h1,h2,h3", hostcheck, "cycle")
	if r.code != 124 {
		t.Errorf("exit %d, want 124 (timed out)\n%v", r.code, r)
	}
	for rank := 1; rank < 3; rank++ {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^  rank %d \(pid \d+ on host h%d\) waits in Recv`, rank, rank+1)).MatchString(r.stderr) {
			t.Errorf("the report lacks rank %d waiting on h%d\n%v", rank, rank+1, r)
		}
	}
	cycle := regexp.MustCompile(`(?m)^gompirun: deadlock: rank 0 waits to receive from 1 tag 7 on MPI_COMM_WORLD at \S+; rank 1 waits to receive from 2 tag 7 on MPI_COMM_WORLD at \S+; rank 2 waits to receive from 0 tag 7 on MPI_COMM_WORLD at \S+$`)
	if !cycle.MatchString(r.stderr) {
		t.Errorf("no deadlock of ranks 0, 1, 2 reported\n%v", r)
	}
	checkClean(t, c)
}
