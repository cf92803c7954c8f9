package launcher

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	signaled := func(sig syscall.Signal) syscall.WaitStatus { return syscall.WaitStatus(sig) }
	tests := []struct {
		name                 string
		status               syscall.WaitStatus
		connected, finalized bool
		fails                bool
		code                 int
		msg                  string
	}{
		{"clean exit after Finalize", exited(0), true, true, false, 0, ""},
		{"never connected, exit 0", exited(0), false, false, false, 0, ""},
		{"exit 3", exited(3), true, true, true, 3, "rank 2 (pid 4242) exited with status 3; stopping the job"},
		{"exit 3 before connecting", exited(3), false, false, true, 3, "exited with status 3"},
		{"SIGSEGV", signaled(syscall.SIGSEGV), true, false, true, 139, "rank 2 (pid 4242) killed by signal SIGSEGV; stopping the job"},
		{"SIGSEGV with core", signaled(syscall.SIGSEGV) | 0x80, false, false, true, 139, "SIGSEGV (core dumped)"},
		{"SIGKILL", signaled(syscall.SIGKILL), false, false, true, 137, "killed by signal SIGKILL"},
		{"no Finalize", exited(0), true, false, true, 1, "rank 2 (pid 4242) exited without calling Finalize; stopping the job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, fails := classify(exitEvent{rank: 2, pid: 4242, status: tt.status}, tt.connected, tt.finalized)
			if fails != tt.fails || f.code != tt.code || !strings.Contains(f.msg, tt.msg) {
				t.Fatalf("classify = %+v, %v; want fails=%v code %d message with %q", f, fails, tt.fails, tt.code, tt.msg)
			}
		})
	}
}

func TestResolveProgram(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{
		{"gompi-no-such-program", `program "gompi-no-such-program" not found in $PATH`},
		{filepath.Join(dir, "missing"), "does not exist"},
		{plain, "is not executable"},
		{dir, "is a directory"},
	}
	for _, tt := range tests {
		_, err := resolveProgram(tt.name, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("resolveProgram(%q) = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
	p, err := resolveProgram("sh", []string{"-c", "true"})
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.path) || !slices.Equal(p.argv, []string{"sh", "-c", "true"}) {
		t.Fatalf("resolveProgram(sh) = %+v", p)
	}
}

func TestRankEnvBase(t *testing.T) {
	in := []string{"A=1", "GOMPI_COMM_WORLD_RANK=5", "B=2", "A=3", ReaperEnvVar + "=0", "GOMPI_JOB_SECRET=00"}
	got := rankEnvBase(in)
	if want := []string{"B=2", "A=3"}; !slices.Equal(got, want) {
		t.Fatalf("rankEnvBase = %q, want %q", got, want)
	}
}

func TestCommand(t *testing.T) {
	p := program{path: "/bin/prog", argv: []string{"prog", "-a"}}
	cmd := p.command([]string{"A=1"}, rankIO{})
	if cmd.Path != "/bin/prog" || !slices.Equal(cmd.Args, p.argv) || cmd.Stdin != nil {
		t.Fatalf("command: %s %q, stdin %v", cmd.Path, cmd.Args, cmd.Stdin)
	}
	if !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Fatalf("SysProcAttr %+v: want Setpgid and Pdeathsig SIGKILL", cmd.SysProcAttr)
	}
}

// A bound rank inherits the mask of the thread that forked it.
func TestStartRankBinds(t *testing.T) {
	cpus, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := cpus[len(cpus)-1]
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	cmd.Stdout = &out
	exits := make(chan exitEvent, 1)
	if _, err := startRank(cmd, 0, []int{last}, exits); err != nil {
		t.Fatal(err)
	}
	<-exits
	if want := fmt.Sprintf("Cpus_allowed_list:\t%d\n", last); out.String() != want {
		t.Errorf("the rank's mask: %q, want %q", out.String(), want)
	}
	if got, err := allowedCPUs(); err != nil || !slices.Equal(got, cpus) {
		t.Errorf("gompirun's own mask after binding a rank: %v, %v; want %v", got, err, cpus)
	}
}

func TestRankCPUs(t *testing.T) {
	cpus := []int{0, 2, 4, 6}
	tests := []struct {
		bind Bind
		np   int
		want [][]int
	}{
		{BindNone, 2, nil},
		{BindAuto, 1, [][]int{{0, 2, 4, 6}}},
		{BindAuto, 2, [][]int{{0, 2}, {4, 6}}},
		{BindAuto, 3, [][]int{{0}, {2}, {4, 6}}},
		{BindAuto, 4, [][]int{{0}, {2}, {4}, {6}}},
		{BindAuto, 5, [][]int{{0}, {2}, {4}, {6}, {0}}}, // oversubscribed: one CPU each, in turn
		{BindCore, 5, [][]int{{0}, {2}, {4}, {6}, {0}}},
	}
	for _, tt := range tests {
		got := tt.bind.rankCPUs(tt.np, cpus)
		if len(got) != len(tt.want) {
			t.Errorf("bind %d, %d ranks: %v, want %v", tt.bind, tt.np, got, tt.want)
			continue
		}
		for r := range got {
			if !slices.Equal(got[r], tt.want[r]) {
				t.Errorf("bind %d, %d ranks: rank %d gets %v, want %v", tt.bind, tt.np, r, got[r], tt.want[r])
			}
		}
	}
}

// A rank that aborts because it saw peers fail is a follower: the cause is
// the first failure that blames no one, even when gompirun learns of it
// later, and the job exits with the cause's status.
func TestVerdictNamesTheCauseFirst(t *testing.T) {
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	for _, tt := range []struct {
		name  string
		order []string // "abort2", "abort3" (blaming rank 1), "exit1", "timeout"
		want  []string // stderr lines, in order
		code  int
	}{
		{"cause first", []string{"exit1", "abort2", "abort3"}, []string{
			"gompirun: rank 1 (pid 101) exited with status 5; stopping the job",
			"gompirun: then rank 2 (pid 102) called Abort with code 75: peer gone (after it saw rank 1 fail)",
			"gompirun: then rank 3 (pid 103) called Abort with code 75: peer gone (after it saw rank 1 fail)",
		}, 5},
		{"followers first", []string{"abort3", "abort2", "exit1"}, []string{
			"gompirun: rank 1 (pid 101) exited with status 5; stopping the job",
			"gompirun: then rank 3 (pid 103) called Abort with code 75: peer gone (after it saw rank 1 fail)",
			"gompirun: then rank 2 (pid 102) called Abort with code 75: peer gone (after it saw rank 1 fail)",
		}, 5},
		{"only followers", []string{"abort2", "abort3"}, []string{
			"gompirun: rank 2 (pid 102) called Abort with code 75: peer gone; stopping the job",
			"gompirun: then rank 3 (pid 103) called Abort with code 75: peer gone (after it saw rank 1 fail)",
		}, 75},
		{"timeout then a follower", []string{"timeout", "abort2"}, []string{
			"gompirun: job timed out after 5 seconds; killing ranks",
			"gompirun: then rank 2 (pid 102) called Abort with code 75: peer gone (after it saw rank 1 fail)",
		}, ExitTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			srv, err := NewServer(ServerConfig{JobID: "t", Size: 4, Secret: testSecret})
			if err != nil {
				t.Fatal(err)
			}
			j := &job{term: newTerminal(&strings.Builder{}, &stderr), srv: srv, pids: []int{100, 101, 102, 103},
				cause: -1, sent: make([]map[syscall.Signal]bool, 4), stopReq: make(chan struct{})}
			for _, ev := range tt.order {
				switch ev {
				case "abort2", "abort3":
					rank := int(ev[5] - '0')
					j.onAbort(AbortCall{Rank: rank, Code: 75, Message: "peer gone", FailedPeers: []int{1}})
				case "exit1":
					f, _ := classify(exitEvent{rank: 1, pid: 101, status: exited(5)}, true, false)
					j.fail(f)
				case "timeout":
					j.fail(jobFailure("job timed out after 5 seconds; killing ranks", ExitTimeout))
				}
			}
			if code := j.verdict(); code != tt.code {
				t.Errorf("status %d, want %d", code, tt.code)
			}
			if got := strings.Split(strings.TrimSpace(stderr.String()), "\n"); !slices.Equal(got, tt.want) {
				t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestExited: a running child has not exited; once dead it has, before
// and after it is reaped, so that a stop does not claim its death.
func TestExited(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if exited(pid) {
		t.Fatal("a running child reported as exited")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for !exited(pid) {
		if time.Now().After(deadline) {
			t.Fatal("a killed child, not reaped, never reported as exited")
		}
		time.Sleep(time.Millisecond)
	}
	if !exited(pid) {
		t.Fatal("exited reaped the child, or changed its mind")
	}
	_ = cmd.Wait() // WNOWAIT left it to be reaped here
	if cmd.ProcessState == nil || cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child's status %v: exited must leave it to Wait", cmd.ProcessState)
	}
	if !exited(pid) {
		t.Fatal("a reaped child reported as running")
	}
}
