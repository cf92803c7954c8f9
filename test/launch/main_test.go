// Package launch holds gompirun's integration tests: they build gompirun
// and the rank programs of testdata once, then run real jobs.
package launch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var (
	binDir    string // holds gompirun and the rank programs; its parent is the prefix
	gompirun  string
	rankprog  string
	causeprog string
	hangprog  string
	appprog   string // an MPI program linking every component
)

func TestMain(m *testing.M) {
	jobtest.SkipUnderShort()
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "gompi-launch-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = filepath.Join(dir, "bin")
		if err := os.Mkdir(binDir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		build := jobtest.Build
		if raceBuild {
			build = jobtest.BuildRace
		}
		bins, err := build(binDir, map[string]string{
			"gompirun": "../../cmd/gompirun", "rankprog": "./testdata/rankprog",
			"causeprog": "./testdata/causeprog", "hangprog": "./testdata/hangprog", "appprog": "./testdata/appprog",
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		gompirun, rankprog, causeprog, hangprog, appprog = bins["gompirun"], bins["rankprog"], bins["causeprog"], bins["hangprog"], bins["appprog"]
		return m.Run()
	}())
}

// result is a finished gompirun run.
type result struct {
	code           int
	stdout, stderr string
}

// testEnv is the test's environment without gompi's own variables, so jobs
// do not depend on how the tests were started. Race-enabled programs skip
// the race runtime's default one-second sleep at exit.
func testEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMPI_") && !strings.HasPrefix(kv, "MPIEXEC_TIMEOUT=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return append(env, extra...)
}

// run runs gompirun with args; stdin "" means /dev/null.
func run(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	// A hang guard, not a measurement: the ranks that must be stopped
	// sleep for a minute, so a stop that does not work shows in the status.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gompirun, args...)
	cmd.Env = testEnv(env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.code = exitErr.ExitCode()
	default:
		t.Fatalf("running gompirun %q: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("gompirun %q did not finish in 30 s; stderr:\n%s", args, r.stderr)
	}
	checkNoRace(t, r.stderr)
	return r
}

func checkNoRace(t *testing.T, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "DATA RACE") {
		t.Errorf("the race detector fired:\n%s", stderr)
	}
}

func (r result) wantCode(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

func (r result) wantStderr(t *testing.T, pattern string) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(r.stderr) {
		t.Fatalf("stderr does not match %s:\n%s", pattern, r.stderr)
	}
}

var pidLine = regexp.MustCompile(`(?m)^rank (\d+) (pid|child) (\d+)$`)

// pids returns the pids printed as "rank R pid P" (kind "pid") or
// "rank R child P" (kind "child"), by rank.
func pids(out, kind string) map[int]int {
	m := map[int]int{}
	for _, sm := range pidLine.FindAllStringSubmatch(out, -1) {
		if sm[2] == kind {
			rank, _ := strconv.Atoi(sm[1])
			pid, _ := strconv.Atoi(sm[3])
			m[rank] = pid
		}
	}
	return m
}

// waitGone fails unless every pid has exited (a zombie counts as exited).
// The deadline is a hang guard: a killed process that has not been
// scheduled yet on a loaded machine is not a leak.
func waitGone(t *testing.T, what string, pids map[int]int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for rank, pid := range pids {
		for jobtest.Alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s of rank %d (pid %d) is still running after gompirun exited", what, rank, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// started runs gompirun in the background and returns once n "rank R pid P"
// lines have been printed.
func started(t *testing.T, n int, args ...string) (cmd *exec.Cmd, ranks map[int]int, stderr *bytes.Buffer) {
	t.Helper()
	return startedWith(t, n, testEnv(), args...)
}

// startedWith is started with the environment env.
func startedWith(t *testing.T, n int, env []string, args ...string) (cmd *exec.Cmd, ranks map[int]int, stderr *bytes.Buffer) {
	t.Helper()
	return startedBy(t, gompirun, n, env, args...)
}

// startedBy is startedWith with the gompirun at exe.
func startedBy(t *testing.T, exe string, n int, env []string, args ...string) (cmd *exec.Cmd, ranks map[int]int, stderr *bytes.Buffer) {
	t.Helper()
	cmd = exec.Command(exe, args...)
	cmd.Env = env
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	ranks = map[int]int{}
	timeout := time.After(20 * time.Second)
	for len(ranks) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("gompirun ended before %d ranks started; stderr:\n%s", n, stderr)
			}
			for r, p := range pids(l, "pid") {
				ranks[r] = p
			}
		case <-timeout:
			t.Fatalf("the ranks did not start in 20 s")
		}
	}
	go func() {
		for range lines {
		}
	}()
	return cmd, ranks, stderr
}
