// Package jobtest builds gompi programs and runs them as gompirun jobs, as
// a user would: the multi-process test suites (test/*) and the components'
// job tests share it.
package jobtest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SkipUnderShort ends the test binary at once, with success, under go test
// -short: the unit tier (make test-short) runs no job, and a suite whose
// every test runs one builds nothing either. Such a suite's TestMain calls
// it first.
func SkipUnderShort() {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipped under -short: this suite runs gompirun jobs")
		os.Exit(0)
	}
}

// Main is a job suite's TestMain: it skips under -short
// (SkipUnderShort), builds pkgs as Build does into a directory of its
// own, hands set their paths by name, runs the tests, removes the
// directory and exits.
func Main(m *testing.M, pkgs map[string]string, set func(bins map[string]string)) {
	SkipUnderShort()
	dir, err := os.MkdirTemp("", "jobtest")
	if err != nil {
		panic(err)
	}
	bins, err := Build(dir, pkgs)
	if err != nil {
		panic(err)
	}
	set(bins)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ExpectOK checks that every rank of an np-rank job of a program run
// by internal/scenario printed "ok <scenario> rank <r>".
func ExpectOK(t testing.TB, j Job, scenario string, np int) {
	t.Helper()
	if j.Code != 0 {
		t.Fatalf("exit status %d\n%v", j.Code, j)
	}
	for r := range np {
		if !strings.Contains(j.Stdout, fmt.Sprintf("ok %s rank %d\n", scenario, r)) {
			t.Errorf("rank %d did not report success\n%v", r, j)
		}
	}
}

// BinEnv names the directory of prebuilt test programs. make test builds
// every program the suites run there in one go build, so that they share
// one compilation and link each program once; Build then takes them from
// there instead of building.
const BinEnv = "GOMPI_TEST_BIN"

// Build compiles each package (a path relative to the caller's directory)
// into dir (made if missing) under the name given, without -race even
// under go test -race: the ranks of a job share few CPUs. It returns the
// binaries' paths by name. Under BinEnv it links each from there, found by
// the package's last path element. gompirun comes with its reaper (gompi-reaper) and its
// daemon (gompi-daemon), which it starts from its own directory.
func Build(dir string, pkgs map[string]string) (map[string]string, error) {
	return build(dir, pkgs, os.Getenv(BinEnv), nil)
}

// BuildRace is Build with the race detector, for a suite that checks the
// programs it runs for races; the prebuilt ones are in race/ under BinEnv.
func BuildRace(dir string, pkgs map[string]string) (map[string]string, error) {
	shared := os.Getenv(BinEnv)
	if shared != "" {
		shared = filepath.Join(shared, "race")
	}
	// The race detector does not support PIE, which GOFLAGS may ask for.
	return build(dir, pkgs, shared, []string{"-race", "-buildmode=default"})
}

// BuildTags is Build with build tags (go build -tags tags); the prebuilt
// programs are in a directory named for the tags under BinEnv. A program
// that make test could not build there (a tag's C library missing) is
// built here, so that the error says why.
func BuildTags(dir, tags string, pkgs map[string]string) (map[string]string, error) {
	flags := []string{"-tags", tags}
	if shared := os.Getenv(BinEnv); shared != "" {
		if bins, err := build(dir, pkgs, filepath.Join(shared, tags), flags); err == nil {
			return bins, nil
		}
	}
	return build(dir, pkgs, "", flags)
}

func build(dir string, pkgs map[string]string, shared string, flags []string) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, pkg := range withHelpers(pkgs) {
		bin := filepath.Join(dir, name)
		if shared != "" {
			if err := linkOrCopy(filepath.Join(shared, filepath.Base(pkg)), bin); err != nil {
				return nil, fmt.Errorf("prebuilt %s (%s=%s, which make test fills): %w", pkg, BinEnv, os.Getenv(BinEnv), err)
			}
		} else {
			args := append(append([]string{"build", "-o", bin}, flags...), pkg)
			if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
			}
		}
		out[name] = bin
	}
	return out, nil
}

// withHelpers adds gompi-reaper and gompi-daemon, from beside gompirun's
// package, to pkgs if they build gompirun.
func withHelpers(pkgs map[string]string) map[string]string {
	pkg, ok := pkgs["gompirun"]
	if !ok {
		return pkgs
	}
	pkgs = maps.Clone(pkgs)
	for _, name := range []string{"gompi-reaper", "gompi-daemon"} {
		pkgs[name] = filepath.Join(filepath.Dir(pkg), name)
	}
	return pkgs
}

// linkOrCopy makes dst a hard link to src, or a copy where a link cannot
// be made (another file system).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}

// Job is a finished gompirun job.
type Job struct {
	Args           []string
	Stdout, Stderr string
	Code           int
}

func (j Job) String() string {
	return fmt.Sprintf("gompirun %s\nexit status %d\nstdout:\n%s\nstderr:\n%s",
		strings.Join(j.Args, " "), j.Code, j.Stdout, clip(j.Stderr, 8<<10))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n... (%d more bytes)", len(s)-n)
}

// Run starts gompirun with args, stdin (may be nil) as its input and a
// home without a user parameter file, and waits at most limit: a job
// still running then is killed and t fails as hung. limit is a hang
// guard, never what decides a pass.
func Run(t testing.TB, gompirun string, limit time.Duration, stdin io.Reader, args ...string) Job {
	t.Helper()
	cmd := exec.Command(gompirun, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, stdin
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("hung: gompirun %v did not finish within %v\nstdout:\n%s\nstderr:\n%s", args, limit, out.String(), errb.String())
	}
	j := Job{Args: args, Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		j.Code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return j
}

// Alive reports whether process pid runs: it exists and is not a zombie.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
