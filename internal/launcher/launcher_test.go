package launcher

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/node"
)

// runSh runs a job whose ranks run the shell script, with the rank's
// number in $GOMPI_COMM_WORLD_RANK, and checks the session directory is
// gone afterwards; it is runShIn with a directory of its own.
func runSh(t *testing.T, np int, cfg Config, script string) (code int, stdout, stderr string) {
	t.Helper()
	return runShIn(t, t.TempDir(), np, cfg, script)
}

// mustStop is the script of a rank the job must stop: it holds the fifo
// $T/alive open, says it is up ($T/up.<rank>), then sleeps; if the sleep
// runs out, the rank was not stopped and leaves $T/ran-out.<rank>. Its
// commands run without the fifo: only the rank's own process holds it,
// the process the job waits for, while one the job killed in its group
// may not be gone yet when it returns.
const mustStop = `exec 3>"$T/alive"; touch "$T/up.$GOMPI_COMM_WORLD_RANK" 3>&-; sleep 30 3>&-; touch "$T/ran-out.$GOMPI_COMM_WORLD_RANK"`

// awaitUp is a script's wait for the mustStop ranks given to be up.
func awaitUp(ranks ...int) string {
	var s strings.Builder
	for _, r := range ranks {
		fmt.Fprintf(&s, `until [ -e "$T/up.%d" ]; do sleep 0.01; done; `, r)
	}
	return s.String()
}

// runShIn is runSh with the scripts' $T the directory dir. When the job
// has returned, every rank that ran mustStop must be gone (nothing holds
// $T/alive) and none may have run out its sleep.
func runShIn(t *testing.T, dir string, np int, cfg Config, script string) (code int, stdout, stderr string) {
	t.Helper()
	fifo := aliveFifo(t, dir)
	var out, errOut bytes.Buffer
	cfg.Apps = []node.App{{NP: np, Program: "sh", Args: []string{"-c", "T='" + dir + "'; " + script}}}
	cfg.Env = append(os.Environ(), cfg.Env...)
	cfg.Stdout, cfg.Stderr = &out, &errOut
	cfg.TempDir = t.TempDir()
	// A hang guard only: a rank that is not stopped ends its sleep and
	// leaves its marker well before it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n, err := syscall.Read(fifo, make([]byte, 1)); n != 0 || err != nil {
		t.Errorf("a rank's process outlived the job: a read of the fifo the ranks held gave %d, %v", n, err)
	}
	if ran, _ := filepath.Glob(filepath.Join(dir, "ran-out.*")); len(ran) > 0 {
		t.Errorf("ranks ran out their sleep, not stopped: %v", ran)
	}
	if left, _ := filepath.Glob(filepath.Join(cfg.TempDir, "gompi.*")); len(left) > 0 {
		t.Errorf("session directory left behind: %v", left)
	}
	return code, out.String(), errOut.String()
}

// aliveFifo makes the fifo $T/alive in dir, which the scripts' ranks
// hold open, and opens it for reading; it is closed when the test ends.
func aliveFifo(t *testing.T, dir string) int {
	t.Helper()
	alive := filepath.Join(dir, "alive")
	if err := syscall.Mkfifo(alive, 0o600); err != nil {
		t.Fatal(err)
	}
	// Not blocking: the ranks open it for writing at once, and a read
	// after the job finds end of file only once no process holds it.
	fifo, err := syscall.Open(alive, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fifo) })
	return fifo
}

// Ranks are numbered across the app contexts in order; each learns its
// app's index and gets its app's exports only.
func TestRunAppContexts(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	script := `echo "rank $GOMPI_COMM_WORLD_RANK of $GOMPI_COMM_WORLD_SIZE app $GOMPI_APPNUM arg $0 color=$COLOR"`
	cfg := Config{
		Apps: []node.App{
			{NP: 1, Program: "sh", Args: []string{"-c", script, "first"}, Env: []string{"COLOR=red"}},
			{NP: 2, Program: "sh", Args: []string{"-c", script, "second"}},
			{NP: 1, Program: "sh", Args: []string{"-c", script, "third"}, Env: []string{"COLOR=blue"}},
		},
		Env:     append(os.Environ(), "COLOR=none"),
		Stdout:  &out,
		Stderr:  &errOut,
		TempDir: t.TempDir(),
	}
	code, err := Run(context.Background(), cfg)
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v; stderr:\n%s", code, err, errOut.String())
	}
	for _, want := range []string{
		"rank 0 of 4 app 0 arg first color=red\n",
		"rank 1 of 4 app 1 arg second color=none\n",
		"rank 2 of 4 app 1 arg second color=none\n",
		"rank 3 of 4 app 2 arg third color=blue\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunSuccessTagged(t *testing.T) {
	t.Parallel()
	code, out, _ := runSh(t, 3, Config{Output: OutputOptions{Tag: true}},
		`echo "hello from $GOMPI_COMM_WORLD_RANK of $GOMPI_COMM_WORLD_SIZE"; case "$GOMPI_SERVER" in unix://*/rt.sock) echo ok-server;; esac`)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	for _, want := range []string{
		`(?m)^\[[0-9a-f]{8},0\]<stdout>:hello from 0 of 3$`,
		`(?m)^\[[0-9a-f]{8},2\]<stdout>:hello from 2 of 3$`,
		`(?m)^\[[0-9a-f]{8},1\]<stdout>:ok-server$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("stdout %q does not match %s", out, want)
		}
	}
}

func TestRunRankFailureStopsOthers(t *testing.T) {
	t.Parallel()
	code, _, errOut := runSh(t, 3, Config{},
		`if [ "$GOMPI_COMM_WORLD_RANK" = 1 ]; then `+awaitUp(0, 2)+`exit 3; fi; `+mustStop)
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	if !regexp.MustCompile(`gompirun: rank 1 \(pid \d+\) exited with status 3; stopping the job`).MatchString(errOut) {
		t.Fatalf("stderr %q does not name rank 1", errOut)
	}
}

func TestRunSignaledRank(t *testing.T) {
	t.Parallel()
	code, _, errOut := runSh(t, 2, Config{}, `if [ "$GOMPI_COMM_WORLD_RANK" = 0 ]; then `+awaitUp(1)+`kill -SEGV $$; fi; `+mustStop)
	if code != 128+int(syscall.SIGSEGV) || !strings.Contains(errOut, "rank 0 (pid") || !strings.Contains(errOut, "killed by signal SIGSEGV") {
		t.Fatalf("exit %d, stderr %q; want %d and SIGSEGV", code, errOut, 128+int(syscall.SIGSEGV))
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	// The ranks may be up or not when the timer fires: killed either way.
	code, _, errOut := runSh(t, 2, Config{Timeout: time.Second}, mustStop)
	if code != ExitTimeout || !strings.Contains(errOut, "gompirun: job timed out after 1 seconds; killing ranks") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestRunTermIgnoringRankIsKilled(t *testing.T) {
	t.Parallel()
	// Rank 1 ignores SIGTERM (and its sleep with it) from before it is up,
	// which rank 0 waits for: only SIGKILL after the grace period stops it.
	code, _, _ := runSh(t, 2, Config{Grace: 100 * time.Millisecond},
		`if [ "$GOMPI_COMM_WORLD_RANK" = 0 ]; then `+awaitUp(1)+`exit 5; fi; trap "" TERM; `+mustStop)
	if code != 5 {
		t.Fatalf("exit %d, want 5", code)
	}
}

func TestRunForwardsSignal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { // SIGINT once both ranks are up
		for r := range 2 {
			up := filepath.Join(dir, fmt.Sprintf("up.%d", r))
			for {
				if _, err := os.Stat(up); err == nil {
					break
				}
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}
		sigs <- syscall.SIGINT
	}()
	code, _, errOut := runShIn(t, dir, 2, Config{Signals: sigs}, mustStop)
	close(done)
	if code != 130 || !strings.Contains(errOut, "received SIGINT") {
		t.Fatalf("exit %d, stderr %q; want 130 and SIGINT", code, errOut)
	}
}

func TestRunContextCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var errOut bytes.Buffer
	code, err := Run(ctx, Config{Apps: []node.App{{NP: 1, Program: "sleep", Args: []string{"30"}}}, Stderr: &errOut, TempDir: t.TempDir()})
	if err != nil || code != 1 || !strings.Contains(errOut.String(), "context deadline exceeded") {
		t.Fatalf("Run = %d, %v, stderr %q", code, err, errOut.String())
	}
}

func TestRunStdinAndOutputDir(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("to rank zero\n")
	w.Close()
	defer r.Close()
	dir := t.TempDir()
	code, out, _ := runSh(t, 2, Config{Stdin: r, Output: OutputOptions{Dir: dir}},
		`echo "$GOMPI_COMM_WORLD_RANK read: $(cat)"; echo "err $GOMPI_COMM_WORLD_RANK" >&2`)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "0 read: to rank zero\n") || !strings.Contains(out, "1 read: \n") {
		t.Fatalf("stdout %q: rank 0 should read stdin, rank 1 nothing", out)
	}
	for path, want := range map[string]string{
		"1/rank.0/stdout": "0 read: to rank zero\n",
		"1/rank.1/stdout": "1 read: \n",
		"1/rank.1/stderr": "err 1\n",
	} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", path, b, err, want)
		}
	}
}

func TestRunSetupErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no program"},
		{Config{Apps: []node.App{{NP: 0, Program: "true"}}}, "0 ranks requested"},
		{Config{Apps: []node.App{{NP: 1}}}, "no program"},
		{Config{Apps: []node.App{{NP: 1, Program: "true"}, {NP: 0, Program: "true"}}}, "app context 2: 0 ranks requested"},
		{Config{Apps: []node.App{{NP: 1, Program: "gompi-no-such-program"}}}, `"gompi-no-such-program" not found`},
		{Config{Apps: []node.App{{NP: 1, Program: "true"}, {NP: 1, Program: "gompi-no-such-program"}}}, `app context 2: program "gompi-no-such-program" not found`},
		{Config{Apps: []node.App{{NP: 1, Program: "true"}}, TempDir: "/" + strings.Repeat("d", 120)}, "set TMPDIR to a shorter directory"},
	}
	for _, tt := range tests {
		if _, err := Run(context.Background(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v) = %v, want an error with %q", tt.cfg, err, tt.want)
		}
	}
}
