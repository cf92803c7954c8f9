package launch

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// liveJob is a gompirun job running in the background whose output the
// test reads as it comes.
type liveJob struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder // stdout and stderr, line by line
	done chan struct{}
}

func startJob(t *testing.T, args ...string) *liveJob {
	t.Helper()
	j := &liveJob{cmd: exec.Command(gompirun, args...), done: make(chan struct{})}
	j.cmd.Env = testEnv()
	pr, pw := io.Pipe()
	j.cmd.Stdout, j.cmd.Stderr = pw, pw
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			j.mu.Lock()
			j.out.WriteString(sc.Text() + "\n")
			j.mu.Unlock()
		}
	}()
	go func() {
		_ = j.cmd.Wait()
		pw.Close()
		close(j.done)
	}()
	// SIGTERM, not SIGKILL: gompirun then kills every rank, a stopped one
	// too, which the lifeline cannot wake.
	t.Cleanup(func() {
		_ = j.cmd.Process.Signal(syscall.SIGTERM)
		<-j.done
	})
	return j
}

func (j *liveJob) output() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.out.String()
}

// await polls the output until cond holds. The deadline is a hang guard.
func (j *liveJob) await(t *testing.T, what string, cond func(out string) bool) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		out := j.output()
		if cond(out) {
			return out
		}
		select {
		case <-j.done:
			if out := j.output(); cond(out) {
				return out
			}
			t.Fatalf("gompirun exited before %s; output:\n%s", what, j.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 90 s; output:\n%s", what, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var reportRE = regexp.MustCompile(`(?s)gompirun: job state \([^\n]*\):\n.*?gompirun: end of job state\n`)

// stateUntil asks gompirun for the job's state with SIGQUIT until a report
// satisfies ok (the ranks may not all be blocked yet at the first one), and
// returns that report.
func (j *liveJob) stateUntil(t *testing.T, ok func(report string) bool) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for seen := 0; ; {
		if err := j.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
			t.Fatal(err)
		}
		out := j.await(t, "a state report", func(out string) bool { return len(reportRE.FindAllString(out, -1)) > seen })
		reports := reportRE.FindAllString(out, -1)
		seen = len(reports)
		if last := reports[len(reports)-1]; ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("no report as expected after 90 s; last:\n%s", reports[len(reports)-1])
		}
	}
}

// blockSites returns the "rank R blocks at FILE:LINE" sites by rank.
func blockSites(out string) map[int]string {
	m := map[int]string{}
	for _, sm := range regexp.MustCompile(`(?m)^rank (\d) blocks at (\S+)$`).FindAllStringSubmatch(out, -1) {
		m[int(sm[1][0]-'0')] = sm[2]
	}
	return m
}

func TestStateReportFindsADeadlock(t *testing.T) {
	t.Parallel()
	j := startJob(t, "-np", "2", "--get-stack-traces", hangprog, "both")
	out := j.await(t, "both ranks' block sites", func(out string) bool { return len(blockSites(out)) == 2 })
	sites := blockSites(out)
	want := fmt.Sprintf("gompirun: deadlock: rank 0 waits to receive from 1 tag 7 on MPI_COMM_WORLD at %s; "+
		"rank 1 waits to receive from 0 tag 7 on MPI_COMM_WORLD at %s\n", sites[0], sites[1])
	report := j.stateUntil(t, func(r string) bool { return strings.Contains(r, want) })
	for rank := range 2 {
		line := fmt.Sprintf("rank %d (pid ", rank)
		waits := fmt.Sprintf("waits in Recv at %s for ", sites[rank])
		if !regexp.MustCompile(regexp.QuoteMeta(line) + `\d+\) ` + regexp.QuoteMeta(waits) + `.*: receive from rank \d, tag 7, comm MPI_COMM_WORLD, 8 bytes`).MatchString(report) {
			t.Errorf("rank %d's wait is not described; report:\n%s", rank, report)
		}
	}
	if !strings.Contains(report, "gompirun: goroutines of rank 1:") || !strings.Contains(report, "main.main()") {
		t.Errorf("--get-stack-traces: no goroutine stacks in the report:\n%s", report)
	}
	// The job goes on after a report: SIGTERM still stops it.
	if err := j.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-j.done
	if code := j.cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status %d after SIGTERM", code)
	}
}

func TestStateReportFindsATagMismatch(t *testing.T) {
	t.Parallel()
	j := startJob(t, "-np", "2", hangprog, "tag")
	out := j.await(t, "both ranks' block sites", func(out string) bool { return len(blockSites(out)) == 2 })
	sites := blockSites(out)
	want := []string{
		fmt.Sprintf("gompirun: no send matches: rank 1 waits to receive from 0 tag 7 on MPI_COMM_WORLD at %s, "+
			"but what rank 0 sent it has tag 8 on MPI_COMM_WORLD\n", sites[1]),
		fmt.Sprintf("waits in Barrier at %s", sites[0]),
		"unexpected message(s): from rank 0, tag 8, comm MPI_COMM_WORLD, 8 bytes",
	}
	// Every report until one has all three: a loaded machine may keep a
	// rank from answering one of them in time.
	j.stateUntil(t, func(r string) bool {
		for _, w := range want {
			if !strings.Contains(r, w) {
				return false
			}
		}
		return true
	})
}

// A non-blocking collective runs on a context of its own: the report
// names its communicator and its ranks there, not the context's number.
func TestStateReportNamesANonBlockingCollective(t *testing.T) {
	t.Parallel()
	// basic runs calls side by side, each on its slot's context.
	j := startJob(t, "-np", "2", "--mca", "coll", "basic,self", hangprog, "nbc")
	out := j.await(t, "both ranks' block sites", func(out string) bool { return len(blockSites(out)) == 2 })
	sites := blockSites(out)
	want := []string{
		fmt.Sprintf("waits in Request.Wait at %s", sites[0]),
		"receive from rank 0 (world rank 1) inside a non-blocking collective, comm reversed, 4 bytes",
		"unexpected message(s): from rank 1 (world rank 0) inside a non-blocking collective, comm reversed, 4 bytes",
		fmt.Sprintf("gompirun: deadlock: rank 0 waits for 1 inside a non-blocking collective on reversed at %s; "+
			"rank 1 waits to receive from 0 tag 7 on MPI_COMM_WORLD at %s\n", sites[0], sites[1]),
	}
	report := j.stateUntil(t, func(r string) bool {
		for _, w := range want {
			if !strings.Contains(r, w) {
				return false
			}
		}
		return true
	})
	if regexp.MustCompile(`context \d`).MatchString(report) {
		t.Errorf("the report names a context by its number:\n%s", report)
	}
}

// A non-blocking collective that runs in the library's goroutine while
// the rank computes is posted, not waited on: no call of the program
// waits there.
func TestStateReportNamesACollectiveRunningAside(t *testing.T) {
	t.Parallel()
	j := startJob(t, "-np", "2", "--mca", "coll", "basic,self", hangprog, "aside")
	out := j.await(t, "both ranks' block sites", func(out string) bool { return len(blockSites(out)) == 2 })
	sites := blockSites(out)
	want := []string{
		"has posted, and nothing waits on: receive from rank 1 inside a non-blocking collective, comm MPI_COMM_WORLD, 1048576 bytes",
		fmt.Sprintf("waits in Recv at %s", sites[1]),
	}
	report := j.stateUntil(t, func(r string) bool {
		for _, w := range want {
			if !strings.Contains(r, w) {
				return false
			}
		}
		return true
	})
	if strings.Contains(report, "waits in (") || strings.Contains(report, "rank 0 waits") {
		t.Errorf("the report has rank 0 wait in a call:\n%s", report)
	}
}

// A non-blocking call that waits for the rank's next MPI call to begin
// (with one P, a small one does) is named as such, not as nothing.
func TestStateReportNamesADeferredCall(t *testing.T) {
	t.Parallel()
	j := startJob(t, "-np", "2", "-x", "GOMAXPROCS=1", hangprog, "deferred")
	out := j.await(t, "both ranks' block sites", func(out string) bool { return len(blockSites(out)) == 2 })
	sites := blockSites(out)
	j.stateUntil(t, func(r string) bool {
		return strings.Contains(r, "has started 1 non-blocking call(s) that begin at its next MPI call") &&
			strings.Contains(r, fmt.Sprintf("waits in Recv at %s", sites[1]))
	})
}

func TestStateReportNamesAStoppedRank(t *testing.T) {
	t.Parallel()
	j := startJob(t, "-np", "2", "--report-state-wait", "1500ms", hangprog, "stopped")
	out := j.await(t, "rank 0's block site", func(out string) bool { return blockSites(out)[0] != "" })
	site := blockSites(out)[0]
	j.stateUntil(t, func(r string) bool {
		return regexp.MustCompile(`rank 1 \(pid \d+\) did not answer within 1.5s: it is stopped`).MatchString(r) &&
			strings.Contains(r, "rank 0 (pid ") && strings.Contains(r, "waits in Recv at "+site) &&
			strings.Contains(r, "receive from rank 1, tag 7, comm MPI_COMM_WORLD")
	})
}

func TestStateReportOnTimeout(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", "--timeout", "3", "--report-state-on-timeout", hangprog, "both")
	r.wantCode(t, 124)
	// What the ranks wait for at that moment depends on how far they got;
	// the report comes, whole, before the timeout stops the job.
	report := reportRE.FindString(r.stderr)
	if !strings.HasPrefix(report, "gompirun: job state (at the timeout, after 3 seconds):\n") {
		t.Fatalf("no state report at the timeout; stderr:\n%s", r.stderr)
	}
	if i, k := strings.Index(r.stderr, report), strings.Index(r.stderr, "gompirun: job timed out after 3 seconds"); k < i+len(report) {
		t.Errorf("the timeout message does not follow the report:\n%s", r.stderr)
	}
	for rank := range 2 {
		if !strings.Contains(report, fmt.Sprintf("  rank %d (pid ", rank)) {
			t.Errorf("rank %d is not in the report:\n%s", rank, report)
		}
	}
}
