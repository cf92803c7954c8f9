package launcher

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"
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
		{"exit 3", exited(3), true, false, true, 3, "rank 2 (pid 4242) exited with status 3; stopping the job"},
		{"exit 3 after Finalize", exited(3), true, true, true, 3, "rank 2 (pid 4242) exited with status 3 after calling Finalize; the other ranks go on to their end"},
		{"SIGSEGV after Finalize", signaled(syscall.SIGSEGV), true, true, true, 139, "killed by signal SIGSEGV after calling Finalize; the other ranks go on"},
		{"exit 3 before connecting", exited(3), false, false, true, 3, "exited with status 3"},
		{"SIGSEGV", signaled(syscall.SIGSEGV), true, false, true, 139, "rank 2 (pid 4242) killed by signal SIGSEGV; stopping the job"},
		{"SIGSEGV with core", signaled(syscall.SIGSEGV) | 0x80, false, false, true, 139, "SIGSEGV (core dumped)"},
		{"SIGKILL", signaled(syscall.SIGKILL), false, false, true, 137, "killed by signal SIGKILL"},
		{"no Finalize", exited(0), true, false, true, 1, "rank 2 (pid 4242) exited without calling Finalize; stopping the job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, fails := classify(exitEvent{rank: 2, pid: 4242, status: tt.status}, tt.connected, tt.finalized)
			if fails != tt.fails || f.code != tt.code || !strings.Contains(f.msg, tt.msg) || f.late != (fails && tt.finalized) {
				t.Fatalf("classify = %+v, %v; want fails=%v code %d message with %q", f, fails, tt.fails, tt.code, tt.msg)
			}
		})
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
			<-j.term.flushed()
			if got := strings.Split(strings.TrimSpace(stderr.String()), "\n"); !slices.Equal(got, tt.want) {
				t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A rank whose connection ended is lost only on another host: a rank of
// this host is gompirun's child, alive until its exit is seen, and one
// stopped in a debugger past the keepalive's timeout must not end the job.
func TestLostFailureOnlyOnAnotherHost(t *testing.T) {
	srv, err := NewServer(ServerConfig{JobID: "t", Size: 3, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	j := &job{term: newTerminal(&strings.Builder{}, &strings.Builder{}), srv: srv, pids: []int{100, 101, 102},
		remote: map[int]*remoteHost{2: {name: "h2"}}, cause: -1, log: hclog.NewNullLogger()}
	if f, lost := j.lostFailure(1); lost {
		t.Errorf("rank 1 of this host, not exited, is lost: %s", f.msg)
	}
	f, lost := j.lostFailure(2)
	if want := "rank 2 (pid 102 on host h2) lost contact"; !lost || !strings.HasPrefix(f.msg, want) {
		t.Errorf("rank 2 of host h2: lost %v, %q; want a failure beginning %q", lost, f.msg, want)
	}
	srv.RankExited(2)
	if _, lost := j.lostFailure(2); lost {
		t.Error("rank 2 is lost after its exit was seen")
	}
}
