// Package jobtest builds gompi programs and runs them as gompirun jobs, as
// a user would: the multi-process test suites (test/p2p, test/coll) share
// it.
package jobtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Build compiles each package (a path relative to the caller's directory)
// into dir under the name given, without -race even under go test -race:
// the ranks of a job share few CPUs. It returns the binaries' paths by
// name.
func Build(dir string, pkgs map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for name, pkg := range pkgs {
		bin := filepath.Join(dir, name)
		if b, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		out[name] = bin
	}
	return out, nil
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
