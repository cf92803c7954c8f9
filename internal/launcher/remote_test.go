package launcher

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/params"
)

// daemonEnv makes the test binary a daemon (see TestMain): the tests'
// agent starts it in place of gompirun on "another host", this one.
const daemonEnv = "GOMPI_LAUNCHER_TEST_DAEMON"

// relayEnv makes the test binary an agent that runs the daemon and
// copies its wire both ways, as ssh does (see relay).
const relayEnv = "GOMPI_LAUNCHER_TEST_RELAY"

// relayPIDEnv gives the daemon, and its ranks, the relay's pid.
const relayPIDEnv = "LAUNCHER_TEST_RELAY_PID"

func TestMain(m *testing.M) {
	if os.Getenv(daemonEnv) != "" {
		os.Exit(node.RunDaemon(os.Stdin, os.Stdout, os.Stderr, "", "", nil))
	}
	if os.Getenv(relayEnv) != "" {
		os.Exit(relay())
	}
	os.Exit(m.Run())
}

// relay runs the daemon and copies its input, output and stderr, so
// that stopping the relay (SIGSTOP) freezes the daemon's session as a
// link that went down freezes ssh's, while the daemon runs on; once the
// relay is killed the daemon's input ends.
func relay() int {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), daemonEnv+"=1", relayPIDEnv+"="+strconv.Itoa(os.Getpid()))
	// Not *os.File: the daemon gets pipes to the relay, not its files.
	cmd.Stdin = struct{ io.Reader }{os.Stdin}
	cmd.Stdout = struct{ io.Writer }{os.Stdout}
	cmd.Stderr = struct{ io.Writer }{os.Stderr}
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 255
	}
	return 0
}

// localAgent starts the daemon on this host under the name of another:
// "localhost", which resolves here, so that the ranks reach the server.
func localAgent(tmp string) func(string, []string) (*exec.Cmd, error) {
	return func(host string, argv []string) (*exec.Cmd, error) {
		if argv[len(argv)-1] != node.DaemonFlag {
			panic("the agent runs gompirun's daemon mode")
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), daemonEnv+"=1", "TMPDIR="+tmp)
		return cmd, nil
	}
}

// remoteCfg puts rank 0 here and the others on "localhost", whose daemon
// keeps its session directory in tmp.
func remoteCfg(np int, tmp string) Config {
	hosts := make([]string, np)
	for r := 1; r < np; r++ {
		hosts[r] = "localhost"
	}
	hosts[0] = "here"
	return Config{Hosts: hosts, LocalHost: "here", Agent: localAgent(tmp), Daemon: []string{"/path/to/gompirun", node.DaemonFlag}}
}

// TestRemoteRanks: the ranks of another host get their identity from the
// daemon (local rank and size on their host), reach the job server over
// TCP, and their output comes back through gompirun, tagged as usual.
func TestRemoteRanks(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cfg := remoteCfg(3, tmp)
	cfg.Output.Tag = true
	code, out, errOut := runSh(t, 3, cfg,
		`echo "rank $GOMPI_COMM_WORLD_RANK of $GOMPI_COMM_WORLD_SIZE local $GOMPI_COMM_WORLD_LOCAL_RANK of $GOMPI_COMM_WORLD_LOCAL_SIZE server $GOMPI_SERVER"; echo "err $GOMPI_COMM_WORLD_RANK" >&2`)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		// The tags name the hosts: the job runs on two.
		`(?m)^\[[0-9a-f]{8},0\]\[here\]<stdout>:rank 0 of 3 local 0 of 1 server unix://.*/rt.sock$`,
		`(?m)^\[[0-9a-f]{8},1\]\[localhost\]<stdout>:rank 1 of 3 local 0 of 2 server \S+:\d+$`,
		`(?m)^\[[0-9a-f]{8},2\]\[localhost\]<stdout>:rank 2 of 3 local 1 of 2 server \S+:\d+$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("stdout does not match %s:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^\[[0-9a-f]{8},2\]\[localhost\]<stderr>:err 2$`).MatchString(errOut) {
		t.Errorf("stderr lacks rank 2's line:\n%s", errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "gompi.*")); len(left) > 0 {
		t.Errorf("the daemon left its session directory: %v", left)
	}
}

// TestRemoteRankFailure: a failing rank on another host stops the job,
// named with its host, and the ranks of every host are stopped.
func TestRemoteRankFailure(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	code, _, errOut := runSh(t, 3, remoteCfg(3, tmp),
		`if [ "$GOMPI_COMM_WORLD_RANK" = 2 ]; then `+awaitUp(0, 1)+`exit 3; fi; `+mustStop)
	if code != 3 {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, errOut)
	}
	first, _, _ := strings.Cut(errOut, "\n")
	if !regexp.MustCompile(`^gompirun: rank 2 \(pid \d+ on host localhost\) exited with status 3; stopping the job$`).MatchString(first) {
		t.Errorf("the first line does not name rank 2 and its host:\n%s", errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "gompi.*")); len(left) > 0 {
		t.Errorf("the daemon left its session directory: %v", left)
	}
}

// TestRemoteStoppedFromHere: a failure here stops the ranks that another
// host's daemon runs.
func TestRemoteStoppedFromHere(t *testing.T) {
	t.Parallel()
	code, _, errOut := runSh(t, 3, remoteCfg(3, t.TempDir()),
		`if [ "$GOMPI_COMM_WORLD_RANK" = 0 ]; then `+awaitUp(1, 2)+`exit 4; fi; `+mustStop)
	if code != 4 || !regexp.MustCompile(`^gompirun: rank 0 \(pid \d+\) exited with status 4`).MatchString(errOut) {
		t.Fatalf("exit %d, want 4, and rank 0 named first; stderr:\n%s", code, errOut)
	}
}

// TestUnreachableHost: an agent that cannot reach its host, or a host
// without the program, ends the launch before any rank starts anywhere,
// naming the host and what went wrong there.
func TestUnreachableHost(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		agent   func(string, []string) (*exec.Cmd, error)
		program string
		tune    string // a --tune file the other host lacks
		want    string
	}{
		"agent": {
			agent: func(host string, argv []string) (*exec.Cmd, error) {
				return exec.Command("sh", "-c", `echo "ssh: Could not resolve hostname `+host+`: Name or service not known" >&2; exit 255`), nil
			},
			program: "sh",
			want: "cannot launch on host localhost: the daemon ended before it could start the ranks: exit status 255: " +
				"ssh: Could not resolve hostname localhost: Name or service not known",
		},
		"program": {
			program: "./no-such-program",
			want:    `cannot launch on host localhost: the daemon ended before it could start the ranks: exit status 1: rank 1: program "./no-such-program" does not exist`,
		},
		"tune": {
			program: "sh",
			tune:    "/nonexistent/t.conf",
			want: "cannot launch on host localhost: the daemon ended before it could start the ranks: exit status 1: rank 1: --tune /nonexistent/t.conf: " +
				"no such file on this host; each rank reads its --tune files, which must be at the same path on every host, as the program",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "started")
			cfg := remoteCfg(2, t.TempDir())
			if tc.agent != nil {
				cfg.Agent = tc.agent
			}
			cfg.Apps = []node.App{{NP: 2, Program: tc.program, Args: []string{"-c", "touch " + marker}}}
			if tc.program != "sh" {
				// Rank 0 runs here, where the program is sh; rank 1 looks for the missing one.
				cfg.Apps = []node.App{{NP: 1, Program: "sh", Args: []string{"-c", "touch " + marker}}, {NP: 1, Program: tc.program}}
			}
			if tc.tune != "" {
				cfg.Env = append(os.Environ(), params.Launch{Tune: []string{tc.tune}}.Env()...)
			}
			cfg.Stderr, cfg.TempDir = io.Discard, t.TempDir()
			code, err := Run(context.Background(), cfg)
			if err == nil || err.Error() != tc.want || code == 0 {
				t.Errorf("Run = %d, %v; want an error %q", code, err, tc.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("a rank started")
			}
		})
	}
}

// TestDaemonWidensCPUs: the ranks of a daemon that its launcher bound to
// one CPU (a Slurm step) run on every CPU the host allows.
func TestDaemonWidensCPUs(t *testing.T) {
	t.Parallel()
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: nothing to widen")
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("no taskset")
	}
	cfg := remoteCfg(2, t.TempDir())
	agent := cfg.Agent
	cfg.Agent = func(host string, argv []string) (*exec.Cmd, error) {
		cmd, err := agent(host, argv)
		if err == nil {
			cmd.Args = append([]string{taskset, "-c", "0", cmd.Path}, cmd.Args[1:]...)
			cmd.Path = taskset
		}
		return cmd, err
	}
	code, out, errOut := runSh(t, 2, cfg, `[ "$GOMPI_COMM_WORLD_RANK" = 1 ] && grep Cpus_allowed_list /proc/self/status; true`)
	want, _ := os.ReadFile("/proc/self/status")
	line := regexp.MustCompile(`Cpus_allowed_list:\s*(\S+)`).FindSubmatch(want)
	if code != 0 || line == nil || !strings.Contains(out, string(line[1])) {
		t.Errorf("exit %d; rank 1's CPUs %q, want the test's %q\n%s", code, out, line, errOut)
	}
}

// TestSilentHost: another host's daemon whose session goes silent, as
// ssh's does over a link that went down, does not keep the job from
// ending once it is stopped: its ranks are named lost and its agent is
// killed.
func TestSilentHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := remoteCfg(2, t.TempDir())
	cfg.Agent = func(host string, argv []string) (*exec.Cmd, error) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), relayEnv+"=1", "TMPDIR="+dir)
		return cmd, nil
	}
	cfg.Grace = 100 * time.Millisecond
	// Rank 1 freezes its session and says so, with the relay's pid and
	// the daemon's, in a file named in its arguments: the ranks of another
	// host do not get gompirun's environment. Rank 0 then fails.
	pids := filepath.Join(dir, "pids")
	cfg.Apps = []node.App{{NP: 2, Program: "sh", Args: []string{"-c", `
		if [ "$GOMPI_COMM_WORLD_RANK" = 1 ]; then
			kill -STOP "$` + relayPIDEnv + `" && echo "$` + relayPIDEnv + ` $PPID" >"$0.tmp" && mv "$0.tmp" "$0"
			exec sleep 30
		fi
		while [ ! -e "$0" ]; do sleep 0.01; done
		exit 3`, pids}}}
	var errOut bytes.Buffer
	cfg.Env = os.Environ()
	cfg.Stdout, cfg.Stderr, cfg.TempDir = io.Discard, &errOut, t.TempDir()
	pid := func(i int) int {
		b, _ := os.ReadFile(pids)
		if f := strings.Fields(string(b)); len(f) == 2 {
			n, _ := strconv.Atoi(f[i])
			return n
		}
		return 0
	}
	// A hang guard only: killing the relay ends the daemon's session.
	guard := time.AfterFunc(time.Minute, func() {
		if relay := pid(0); relay > 0 {
			syscall.Kill(relay, syscall.SIGKILL)
		}
	})
	code, err := Run(context.Background(), cfg)
	if !guard.Stop() {
		t.Errorf("Run had not returned a minute after it was called; the relay was killed")
	}
	if err != nil || code != 3 {
		t.Errorf("Run = %d, %v; want 3\n%s", code, err, errOut.String())
	}
	lost := `(?m)^gompirun: lost host localhost: rank 1 on it is unaccounted for: it reported no exit 5.1 seconds after the job was stopped`
	if !regexp.MustCompile(lost).MatchString(errOut.String()) {
		t.Errorf("stderr does not match %s\n%s", lost, errOut.String())
	}
	// The daemon, whose session ended with the relay, goes before its
	// directory does; the bound only guards against a hang.
	if daemon := pid(1); daemon > 0 {
		for deadline := time.Now().Add(30 * time.Second); running(daemon); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the daemon (pid %d) still runs", daemon)
			}
		}
	}
}

// running reports whether pid is a process that has not exited.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := bytes.Cut(b, []byte(") ")) // past the command's name
	return len(after) > 0 && after[0] != 'Z' && after[0] != 'X'
}

// TestLaunchSignalled: a signal to gompirun while another host's daemon
// has not answered calls the launch off: the agent is killed, no rank
// starts, and Run returns 128 plus the signal's number, as it does once
// ranks run.
func TestLaunchSignalled(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	cfg := remoteCfg(2, t.TempDir())
	cfg.Agent = func(string, []string) (*exec.Cmd, error) { return exec.Command("sleep", "60"), nil }
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM // the agent never answers: only the signal ends the wait
	cfg.Signals = sigs
	cfg.Apps = []node.App{{NP: 2, Program: "sh", Args: []string{"-c", "touch " + marker}}}
	cfg.Stderr, cfg.TempDir = io.Discard, t.TempDir()
	code, err := Run(context.Background(), cfg)
	want := "received SIGTERM while launching on the other hosts; no rank was started"
	if code != 128+int(syscall.SIGTERM) || err == nil || err.Error() != want {
		t.Errorf("Run = %d, %v; want %d and %q", code, err, 128+int(syscall.SIGTERM), want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a rank started")
	}
}

// TestLaunchTimeout: the timeout bounds the launch too: an agent that
// never answers is killed when it expires, and Run returns ExitTimeout,
// no rank started.
func TestLaunchTimeout(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	cfg := remoteCfg(2, t.TempDir())
	cfg.Agent = func(string, []string) (*exec.Cmd, error) { return exec.Command("sleep", "60"), nil }
	cfg.Timeout = 500 * time.Millisecond
	cfg.Apps = []node.App{{NP: 2, Program: "sh", Args: []string{"-c", "touch " + marker}}}
	cfg.Stderr, cfg.TempDir = io.Discard, t.TempDir()
	code, err := Run(context.Background(), cfg)
	want := "job timed out after 0.5 seconds while launching: no answer from host localhost; no rank was started"
	if code != ExitTimeout || err == nil || err.Error() != want {
		t.Errorf("Run = %d, %v; want %d and %q", code, err, ExitTimeout, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a rank started")
	}
}
