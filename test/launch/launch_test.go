package launch

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/launcher"
)

func TestExchange(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "4", "--oversubscribe", rankprog, "exchange")
	r.wantCode(t, 0)
	for rank := range 4 {
		for q := range 4 {
			if want := fmt.Sprintf("rank %d got card-of-%d from %d\n", rank, q, q); !strings.Contains(r.stdout, want) {
				t.Errorf("rank %d did not see rank %d's value; stdout:\n%s", rank, q, r.stdout)
			}
		}
	}
}

// checkStopped checks that gompirun named the failed rank with its pid and
// that every rank is gone soon enough.
func checkStopped(t *testing.T, r result, rank int, what string) {
	t.Helper()
	ranks := pids(r.stdout, "pid")
	pid, ok := ranks[rank]
	if !ok {
		t.Fatalf("rank %d printed no pid; stdout:\n%s", rank, r.stdout)
	}
	r.wantStderr(t, fmt.Sprintf(`(?m)^gompirun: rank %d \(pid %d\) %s; stopping the job$`, rank, pid, regexp.QuoteMeta(what)))
	waitGone(t, "process", ranks)
}

func TestRankExitStatus(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "3", "--oversubscribe", rankprog, "exit", "2", "3")
	r.wantCode(t, 3)
	checkStopped(t, r, 2, "exited with status 3")
	if len(pids(r.stdout, "pid")) != 3 {
		t.Fatalf("not every rank started; stdout:\n%s", r.stdout)
	}
}

func TestRankKilledBySignal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		arg  string
		sig  syscall.Signal
		name string
	}{{"KILL", syscall.SIGKILL, "SIGKILL"}, {"SEGV", syscall.SIGSEGV, "SIGSEGV"}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, "", nil, "-np", "2", rankprog, "kill", "1", tt.arg)
			r.wantCode(t, 128+int(tt.sig))
			checkStopped(t, r, 1, "killed by signal "+tt.name)
		})
	}
}

func TestExitWithoutFinalize(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", rankprog, "nofinalize", "0")
	r.wantCode(t, 1)
	checkStopped(t, r, 0, "exited without calling Finalize")
}

// A rank that fails after Finalize stops nobody: every rank entered
// Finalize before it left, so none waits for it, and the others end as
// they would, their output kept (the Parallel Research Kernels' bail_out
// exits with an error after Finalize on every rank). The others finish
// only once gompirun has reported the failure.
func TestFailureAfterFinalizeStopsNobody(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(gompirun, "-np", "3", "--oversubscribe", "--timeout", "60", rankprog, "latefail", "1", "4", dir)
	cmd.Env = testEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reported := regexp.MustCompile(`^gompirun: rank 1 \(pid \d+\) exited with status 4 after calling Finalize; the other ranks go on to their end$`)
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		fmt.Fprintln(&stderr, sc.Text())
		if reported.MatchString(sc.Text()) {
			if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	if err != nil && r.code < 0 {
		t.Fatalf("gompirun: %v", err)
	}
	r.wantCode(t, 4)
	for _, rank := range []int{0, 2} {
		if want := fmt.Sprintf("rank %d ran to its end\n", rank); !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, r.stdout, r.stderr)
		}
	}
}

func TestAbort(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", rankprog, "abort", "1", "7", "out of cheese")
	r.wantCode(t, 7)
	checkStopped(t, r, 1, "called Abort with code 7: out of cheese")
}

func TestChildrenOfRanksAreKilled(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", rankprog, "spawn", "1", "3")
	r.wantCode(t, 3)
	children := pids(r.stdout, "child")
	if len(children) != 1 {
		t.Fatalf("rank 0 printed no child pid; stdout:\n%s", r.stdout)
	}
	waitGone(t, "the child", children)
}

// TestTimeout: the timeout kills the ranks, up yet or not: the pids that
// gompirun's job state at the timeout names are gone when it has exited,
// and no rank ran out its minute of sleep.
func TestTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := run(t, "", nil, "-np", "2", "--timeout", "1", "--report-state-on-timeout", rankprog, "sleep", dir)
	r.wantCode(t, launcher.ExitTimeout)
	r.wantStderr(t, `(?m)^gompirun: job timed out after 1 seconds; killing ranks$`)
	ranks := map[int]int{}
	for _, m := range regexp.MustCompile(`(?m)^  rank (\d+) \(pid (\d+)\) `).FindAllStringSubmatch(r.stderr, -1) {
		rank, _ := strconv.Atoi(m[1])
		ranks[rank], _ = strconv.Atoi(m[2])
	}
	if len(ranks) != 2 {
		t.Fatalf("the job state names %d rank pids, want 2; stderr:\n%s", len(ranks), r.stderr)
	}
	waitGone(t, "process", ranks)
	if ran, _ := filepath.Glob(filepath.Join(dir, "ran-out.*")); len(ran) > 0 {
		t.Errorf("ranks ran out their sleep, not killed: %v", ran)
	}
}

// signalled starts gompirun on 2 ranks of rankprog in mode, sends it sig
// once the ranks are up, and checks that it exits with 128 + sig and
// that the ranks are gone; it returns gompirun's stderr.
func signalled(t *testing.T, mode string, sig syscall.Signal) string {
	t.Helper()
	cmd, ranks, stderr := started(t, 2, "-np", "2", rankprog, mode)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
		t.Fatalf("gompirun: %v, want exit status %d; stderr:\n%s", err, 128+int(sig), stderr)
	}
	checkNoRace(t, stderr.String())
	waitGone(t, "process", ranks)
	return stderr.String()
}

func TestSIGTERMStopsRanks(t *testing.T) {
	t.Parallel()
	if stderr := signalled(t, "connected", syscall.SIGTERM); !strings.Contains(stderr, "gompirun: received SIGTERM") {
		t.Errorf("stderr does not mention SIGTERM:\n%s", stderr)
	}
}

// TestSignalForwardedOnce: a signal that gompirun receives reaches each
// rank once, with no SIGTERM after it, and a rank that catches it can
// finalize: the job server serves it through the grace period.
func TestSignalForwardedOnce(t *testing.T) {
	t.Parallel()
	stderr := signalled(t, "trap", syscall.SIGINT)
	for r := range 2 {
		if want := fmt.Sprintf("rank %d finalized; signals: interrupt\n", r); !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestOversubscribeRefused(t *testing.T) {
	t.Parallel()
	n := runtime.NumCPU() + 1
	r := run(t, "", nil, "-np", fmt.Sprint(n), "/bin/true")
	r.wantCode(t, 1)
	r.wantStderr(t, fmt.Sprintf(`gompirun: -np %d: this host has only %d CPUs available; add --oversubscribe`, n, runtime.NumCPU()))
	run(t, "", nil, "-np", fmt.Sprint(n), "--oversubscribe", "/bin/true").wantCode(t, 0)
}

func TestTrueNeverConnects(t *testing.T) {
	t.Parallel()
	run(t, "", nil, "-np", "2", "/bin/true").wantCode(t, 0)
	r := run(t, "", nil, "-np", "2", "/bin/false")
	r.wantCode(t, 1)
	r.wantStderr(t, `exited with status 1; stopping the job`)
}

func TestTagOutput(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", "-tag-output", rankprog, "output")
	r.wantCode(t, 0)
	for rank := range 2 {
		for _, want := range []string{
			fmt.Sprintf(`(?m)^\[[0-9a-f]{8},%d\]<stdout>:rank %d out line 1$`, rank, rank),
			fmt.Sprintf(`(?m)^\[[0-9a-f]{8},%d\]<stdout>:rank %d out line 2$`, rank, rank),
			fmt.Sprintf(`(?m)^\[[0-9a-f]{8},%d\]<stdout>:rank %d no newline$`, rank, rank),
		} {
			if !regexp.MustCompile(want).MatchString(r.stdout) {
				t.Errorf("stdout does not match %s:\n%s", want, r.stdout)
			}
		}
		r.wantStderr(t, fmt.Sprintf(`(?m)^\[[0-9a-f]{8},%d\]<stderr>:rank %d err line$`, rank, rank))
	}
	if strings.Count(r.stdout, "\n") != 6 {
		t.Errorf("want 6 whole lines on stdout:\n%s", r.stdout)
	}
}

func TestTimestampOutput(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "1", "--timestamp-output", rankprog, "output")
	r.wantCode(t, 0)
	if !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} rank 0 out line 1$`).MatchString(r.stdout) {
		t.Errorf("stdout has no timestamped line:\n%s", r.stdout)
	}
}

func TestUntaggedOutputKeepsLastPartialLine(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "1", rankprog, "output")
	r.wantCode(t, 0)
	if want := "rank 0 out line 1\nrank 0 out line 2\nrank 0 no newline"; r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
}

func TestOutputFilename(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	r := run(t, "", nil, "-np", "2", "--output-filename", dir, rankprog, "output")
	r.wantCode(t, 0)
	for rank := range 2 {
		for stream, want := range map[string]string{
			"stdout": fmt.Sprintf("rank %d out line 1\nrank %d out line 2\nrank %d no newline", rank, rank, rank),
			"stderr": fmt.Sprintf("rank %d err line\n", rank),
		} {
			path := filepath.Join(dir, "1", fmt.Sprintf("rank.%d", rank), stream)
			b, err := os.ReadFile(path)
			if err != nil || string(b) != want {
				t.Errorf("%s = %q, %v; want %q", path, b, err, want)
			}
		}
	}
}

func TestStdinGoesToRank0Only(t *testing.T) {
	t.Parallel()
	r := run(t, "line one\nline two\n", nil, "-np", "3", "--oversubscribe", rankprog, "stdin")
	r.wantCode(t, 0)
	for _, want := range []string{`rank 0 stdin="line one\nline two\n"`, `rank 1 stdin=""`, `rank 2 stdin=""`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, r.stdout)
		}
	}
}

func TestExportAndPrefix(t *testing.T) {
	t.Parallel()
	r := run(t, "", []string{"GOMPI_TEST_FROM_ENV=inherited"},
		"-np", "2", "-x", "GOMPI_TEST_SET=a=b", "-x", "GOMPI_TEST_FROM_ENV",
		rankprog, "env", "GOMPI_TEST_SET", "GOMPI_TEST_FROM_ENV", "GOMPI_PREFIX", jobenv.Size)
	r.wantCode(t, 0)
	prefix := filepath.Dir(binDir)
	if real, err := filepath.EvalSymlinks(prefix); err == nil {
		prefix = real
	}
	for rank := range 2 {
		for _, want := range []string{"GOMPI_TEST_SET=a=b", "GOMPI_TEST_FROM_ENV=inherited", "GOMPI_PREFIX=" + prefix, jobenv.Size + "=2"} {
			if line := fmt.Sprintf("rank %d %s\n", rank, want); !strings.Contains(r.stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
			}
		}
	}
	// An unset variable is named and left out, as mpirun does: the rank
	// runs without it.
	r = run(t, "", nil, "-np", "1", "-x", "GOMPI_TEST_UNSET_VARIABLE", rankprog, "env", "GOMPI_TEST_UNSET_VARIABLE")
	r.wantCode(t, 0)
	r.wantStderr(t, `warning: -x GOMPI_TEST_UNSET_VARIABLE: GOMPI_TEST_UNSET_VARIABLE is not set in gompirun's environment`)
	if !strings.Contains(r.stdout, "rank 0 GOMPI_TEST_UNSET_VARIABLE unset\n") {
		t.Errorf("the rank does not report the variable unset:\n%s", r.stdout)
	}
}

// TestWorkDir: --wdir starts the ranks in its directory, where a
// relative program path is found too (gompirun's own directory has no
// ./prog); a directory that does not exist is refused before any rank
// starts.
func TestWorkDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Symlink(rankprog, filepath.Join(dir, "prog")); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", nil, "-np", "2", "--wdir", dir, "./prog", "cwd")
	r.wantCode(t, 0)
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for rank := range 2 {
		if line := fmt.Sprintf("rank %d cwd %s\n", rank, want); !strings.Contains(r.stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
		}
	}
	r = run(t, "", nil, "-np", "1", "-wdir", filepath.Join(dir, "none"), rankprog, "cwd")
	r.wantCode(t, 1)
	r.wantStderr(t, `--wdir .*none: the directory does not exist`)
}

func TestMCAReachesRanks(t *testing.T) {
	t.Parallel()
	tune := filepath.Join(t.TempDir(), "tune.conf")
	if err := os.WriteFile(tune, []byte("btl_tcp_if_include = lo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", nil, "-np", "2", "--mca", "btl", "tcp,self", "-mca", "coll_base_verbose", "5", "--tune", tune, rankprog, "mca")
	r.wantCode(t, 0)
	for rank := range 2 {
		for _, want := range []string{"mca btl=tcp,self", "mca coll_base_verbose=5", "tune " + tune} {
			if line := fmt.Sprintf("rank %d %s\n", rank, want); !strings.Contains(r.stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
			}
		}
	}
	r = run(t, "", nil, "-np", "1", "--mca", "btl", "tcp", "--mca", "btl", "self", "/bin/true")
	r.wantCode(t, 1)
	r.wantStderr(t, `btl given twice with different values`)
	r = run(t, "", nil, "-np", "1", "--tune", "/nonexistent/x.conf", "/bin/true")
	r.wantCode(t, 1)
	r.wantStderr(t, `--tune /nonexistent/x.conf: the file does not exist`)
}

func TestBindToCore(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", "--oversubscribe", "--bind-to", "core", rankprog, "affinity")
	r.wantCode(t, 0)
	cpus := map[string]bool{}
	for rank := range 2 {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^rank %d cpus=\[(\d+)\] gomaxprocs=1$`, rank)).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("rank %d is not bound to one CPU:\n%s", rank, r.stdout)
		}
		cpus[m[1]] = true
	}
	if runtime.NumCPU() >= 2 && len(cpus) != 2 {
		t.Errorf("ranks 0 and 1 share a CPU although %d are available:\n%s", runtime.NumCPU(), r.stdout)
	}
}

// TestBindAutoSharesCPUs checks the default binding: each rank gets its own
// share of the CPUs while the ranks fit, and one CPU, in turn, once they do
// not, so that no CPU carries more ranks than another.
func TestBindAutoSharesCPUs(t *testing.T) {
	t.Parallel()
	n := runtime.NumCPU()
	affinity := regexp.MustCompile(`(?m)^rank (\d+) cpus=\[([\d ]+)\] gomaxprocs=(\d+)$`)
	for _, np := range []int{1, 2, 2 * n} {
		if np == 2 && n < 2 {
			continue
		}
		r := run(t, "", nil, "-np", strconv.Itoa(np), "--oversubscribe", rankprog, "affinity")
		r.wantCode(t, 0)
		seen := map[string]int{}
		for _, m := range affinity.FindAllStringSubmatch(r.stdout, -1) {
			cpus := strings.Fields(m[2])
			want := max(n/np, 1) // oversubscribed: one CPU each
			if len(cpus) != want || m[3] != strconv.Itoa(want) {
				t.Errorf("-np %d: rank %s has %d CPUs and GOMAXPROCS %s, want %d of each", np, m[1], len(cpus), m[3], want)
			}
			for _, c := range cpus {
				seen[c]++
			}
		}
		for c, k := range seen {
			if want := (np + n - 1) / n; k > want {
				t.Errorf("-np %d: CPU %s is given to %d ranks, want at most %d", np, c, k, want)
			}
		}
	}
}

func TestProgramCannotStart(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "1", "gompi-no-such-program")
	r.wantCode(t, 1)
	r.wantStderr(t, `gompirun: program "gompi-no-such-program" not found in \$PATH`)
	plain := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "", nil, "-np", "1", plain)
	r.wantCode(t, 1)
	r.wantStderr(t, regexp.QuoteMeta(fmt.Sprintf("gompirun: program %q is not executable", plain)))
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "--version")
	r.wantCode(t, 0)
	if !regexp.MustCompile(`^gompirun version \d+\.\d+\.\d+`).MatchString(r.stdout) {
		t.Errorf("--version printed %q", r.stdout)
	}
	r = run(t, "", nil, "--help")
	r.wantCode(t, 0)
	for _, want := range []string{"--np N", "--mca NAME VALUE", "--timeout SECONDS", "--bind-to auto|core|none", "--output-filename DIR"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	r = run(t, "", nil, "-np", "1")
	r.wantCode(t, 1)
	r.wantStderr(t, "no program given")
}

// The first failure gompirun names is the root cause, even when the ranks
// that fail because of it (here within milliseconds, by aborting when their
// receive from the dead rank fails) are seen first; they follow, and the
// exit status is the cause's.
func TestRootCauseIsNamedFirst(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind, what string
		code       int
	}{
		{"nofinalize", "exited without calling Finalize", 1},
		{"exit", "exited with status 5", 5},
		{"kill", "killed by signal SIGKILL", 128 + int(syscall.SIGKILL)},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			t.Parallel()
			r := run(t, "", nil, "-np", "4", "--oversubscribe", causeprog, tt.kind)
			r.wantCode(t, tt.code)
			ranks := pids(r.stdout, "pid")
			var lines []string
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(l, "gompirun: ") {
					lines = append(lines, l)
				}
			}
			want := fmt.Sprintf("gompirun: rank 1 (pid %d) %s; stopping the job", ranks[1], tt.what)
			if len(lines) == 0 || lines[0] != want {
				t.Fatalf("first gompirun line is not the cause %q; stderr:\n%s", want, r.stderr)
			}
			follower := regexp.MustCompile(`^gompirun: then rank [023] \(pid \d+\) .*\(after it saw rank 1 fail\)$`)
			for _, l := range lines[1:] {
				if !follower.MatchString(l) {
					t.Errorf("not a follower of rank 1: %q", l)
				}
			}
			waitGone(t, "process", ranks)
		})
	}
}
