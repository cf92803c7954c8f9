package launch

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/launcher"
)

// refused checks that gompirun refused a job before starting any rank:
// status 1, the message once, and no rank's "rank R pid P" line.
func (r result) refused(t *testing.T, message string) {
	t.Helper()
	r.wantCode(t, 1)
	if n := len(regexp.MustCompile(message).FindAllString(r.stderr, -1)); n != 1 {
		t.Fatalf("stderr has %d matches of %s, want 1:\n%s", n, message, r.stderr)
	}
	if p := pids(r.stdout, "pid"); len(p) > 0 {
		t.Fatalf("ranks started: %v\nstderr:\n%s", p, r.stderr)
	}
}

func TestBadParametersStartNoRank(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := filepath.Join(dir, "long.conf")
	bad := filepath.Join(dir, "bad.conf")
	for path, text := range map[string]string{
		long: "btl = self,sm\nbtl_tcp_if_include = " + strings.Repeat("x", 1<<20) + "\n",
		bad:  "# tuned\n\ncoll_tuned_allreduce_algorithm = 99\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job := []string{"-np", "2", "--timeout", "20"}
	prog := []string{rankprog, "sleep"}
	tests := []struct {
		name    string
		env     []string
		args    []string
		message string
	}{
		{"long line", nil, []string{"--tune", long},
			regexp.QuoteMeta(long) + `:2: the line is 1048597 bytes long; a parameter file line may have at most 65536 bytes`},
		{"bad value in a file", nil, []string{"--tune", bad},
			`parameter coll_tuned_allreduce_algorithm: value "99" from file ` + regexp.QuoteMeta(bad) + `:3: `},
		{"bad value on the command line", nil, []string{"--mca", "btl_tcp_eager_limit", "lots"},
			`parameter btl_tcp_eager_limit: value "lots" from command line is not a size`},
		{"bad value exported", nil, []string{"-x", "GOMPI_MCA_btl_sm_eager_limit=-1k"},
			`value "-1k" from environment GOMPI_MCA_btl_sm_eager_limit`},
		{"bad value in the environment", []string{"GOMPI_MCA_mca_base_strict=maybe"}, nil,
			`parameter mca_base_strict: value "maybe" from environment GOMPI_MCA_mca_base_strict is not true, false`},
		{"bad file list", []string{"GOMPI_MCA_mca_base_param_files=" + filepath.Join(dir, "none.conf")}, nil,
			regexp.QuoteMeta(filepath.Join(dir, "none.conf"))},
		{"unknown component", nil, []string{"--mca", "btl", "self,tcpq"},
			`btl: value "self,tcpq" from command line: no component named "tcpq" \(available: self, sm, tcp\)`},
		{"malformed selection", nil, []string{"--mca", "coll", "basic,^self"},
			`'\^' may only start the list`},
		{"unknown name when strict", nil, []string{"--mca", "mca_base_strict", "1", "--mca", "btl_tcp_eagr_limit", "1"},
			`unknown parameter "btl_tcp_eagr_limit" on the command line; did you mean btl_tcp_eager_limit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append(append([]string{}, job...), tt.args...), prog...)
			r := run(t, "", tt.env, args...)
			r.refused(t, tt.message)
			r.wantStderr(t, `^gompirun: bad MCA parameters; no rank was started:\n`)
		})
	}
}

// Warnings are printed once, by gompirun, and the job runs.
func TestParameterWarningOnce(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", "--mca", "btl_tcp_eagr_limit", "1", rankprog, "env", "GOMPI_LAUNCH_CHECKED")
	r.wantCode(t, 0)
	warning := `unknown parameter "btl_tcp_eagr_limit" on the command line; did you mean btl_tcp_eager_limit`
	if n := strings.Count(r.stderr, warning); n != 1 {
		t.Fatalf("the warning is printed %d times:\n%s", n, r.stderr)
	}
	for rank := range 2 {
		// The ranks are told not to repeat it.
		if line := fmt.Sprintf("rank %d GOMPI_LAUNCH_CHECKED=1\n", rank); !strings.Contains(r.stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
		}
	}
}

func TestMCATookTheProgram(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", "--mca", "btl_tcp_eager_limit", rankprog)
	r.refused(t, regexp.QuoteMeta(fmt.Sprintf(`gompirun: --mca took %q as the value of btl_tcp_eager_limit, and no program is left to run: `+
		`the value of btl_tcp_eager_limit is missing; write --mca btl_tcp_eager_limit VALUE %s`, rankprog, rankprog)))
	r = run(t, "", nil, "-np", "2", "--mca", "no_such_name", rankprog)
	r.refused(t, `--mca took ".*" as the value of no_such_name, and no program is left to run: --mca takes a name and a value`)
}

// Values past the system's limits on exec are refused by name.
func TestExecLimits(t *testing.T) {
	t.Parallel()
	// One string: the --mca values travel together in GOMPI_LAUNCH_MCA.
	half := strings.Repeat("a", 70000)
	r := run(t, "", nil, "-np", "2", "--mca", "btl_tcp_if_include", half, "--mca", "prof_stats_output", half, rankprog, "sleep")
	r.refused(t, `gompirun: the --mca values btl_tcp_if_include \(70000 bytes\), prof_stats_output \(70000 bytes\); `+
		`gompirun passes them to the ranks together in the environment variable GOMPI_LAUNCH_MCA, which has \d+ bytes, `+
		`and the system limits one environment string to 131071 bytes: put large values in a --tune file; no rank was started`)

	// In all: under a 1 MiB stack limit, 256 KiB. gompirun's own exec
	// fits; the ranks', with what the launcher adds, would not.
	const limit = 256 << 10
	env := testEnv()
	used := 0
	for _, kv := range env {
		used += len(kv) + 1 + 8
	}
	args := []string{gompirun, "-np", "1", rankprog, "sleep"}
	for _, a := range args {
		used += len(a) + 1 + 8
	}
	pad := limit - used - 4096
	for i := 0; pad > 0; i++ {
		n := min(pad, 100000)
		env = append(env, fmt.Sprintf("GOMPI_TEST_PAD%d=%s", i, strings.Repeat("p", n-20)))
		pad -= n
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -s 1024 && exec "$@"`, "sh"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	code := -1
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	}
	want := regexp.MustCompile(`^gompirun: the ranks' arguments and environment would take \d+ bytes, over the system's limit of 262144 bytes ` +
		`\(a quarter of the stack size limit, ulimit -s\); the largest environment variables are GOMPI_TEST_PAD0 \(\d+ bytes\), .*; no rank was started\n$`)
	if code != 1 || !want.Match(out) {
		t.Fatalf("status %d, output:\n%.2000s", code, out)
	}
}

// A misspelt component is refused once, by gompirun, before any rank
// starts, although "tpc" occurs in the program's executable: gompirun
// asks the program what it registers.
func TestMisspeltComponentOfAGompiProgram(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	for range 2 { // asked, then answered from the cache
		r := run(t, "", []string{"XDG_CACHE_HOME=" + cache}, "-np", "2", "--timeout", "60", "--mca", "btl", "self,tpc", appprog)
		r.refused(t, `btl: value "self,tpc" from command line: no component named "tpc" \(available: self, sm, tcp\)`)
	}
	if cached, _ := filepath.Glob(filepath.Join(cache, "gompi", "linked", "*.json")); len(cached) != 1 {
		t.Errorf("cached answers: %q, want one", cached)
	}
}

// --timeout and signals end gompirun while it asks the program which
// components it links, before any rank starts: here the program never
// reaches Init, so the question is never answered.
func TestTimeoutWhileAskingTheProgram(t *testing.T) {
	t.Parallel()
	hold := filepath.Join(t.TempDir(), "held")
	r := run(t, "", []string{"XDG_CACHE_HOME=" + t.TempDir(), "APPPROG_HOLD=" + hold},
		"-np", "1", "--timeout", "1", "--mca", "btl", "self,nosuch", appprog)
	r.wantCode(t, launcher.ExitTimeout)
	r.wantStderr(t, `(?m)^gompirun: job timed out after 1 seconds, before any rank started$`)
	if _, err := os.Stat(hold); err == nil { // it was asked before the time ran out
		waitGone(t, "the asked program", heldPid(t, hold))
	}
}

func TestSignalWhileAskingTheProgram(t *testing.T) {
	t.Parallel()
	hold := filepath.Join(t.TempDir(), "held")
	cmd := exec.Command(gompirun, "-np", "1", "--mca", "btl", "self,nosuch", appprog)
	cmd.Env = testEnv("XDG_CACHE_HOME="+t.TempDir(), "APPPROG_HOLD="+hold)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := heldPid(t, hold) // gompirun is asking it
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit status %d, want 143; stderr:\n%s", code, &stderr)
	}
	if want := "gompirun: received SIGTERM before any rank started; exiting\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", &stderr, want)
	}
	waitGone(t, "the asked program", pid)
}

// heldPid waits for appprog's pid in the file it holds at.
func heldPid(t *testing.T, hold string) map[int]int {
	t.Helper()
	for range 6000 { // a hang guard: two minutes
		if b, err := os.ReadFile(hold); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatalf("%s holds %q, not a pid", hold, b)
			}
			return map[int]int{0: pid}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the program was never asked: %s was not written", hold)
	return nil
}

// A component's fatal configuration error reaches the user as one line per
// rank that names the component once, with the step, the parameter, the
// bad value and what is allowed, and none of the framework's sentinel
// texts: each layer adds its context once.
func TestComponentErrorNamesTheComponentOnce(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "-np", "2", "--timeout", "60",
		"--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "nosuch", appprog)
	r.wantCode(t, 1)
	var lines []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "btl_tcp_if_include") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no rank reported the bad btl_tcp_if_include:\n%s", r.stderr)
	}
	want := regexp.MustCompile(`Init: btl tcp: open: btl_tcp_if_include: no interface is named "nosuch"; this machine has lo \(`)
	for _, l := range lines {
		if !want.MatchString(l) {
			t.Errorf("line %q does not match %s", l, want)
		}
		if n := strings.Count(l, "btl tcp"); n != 1 {
			t.Errorf("line %q names btl tcp %d times, want once", l, n)
		}
	}
	for _, sentinel := range []string{"requested component failed", "fatal component error", "component failed"} {
		if strings.Contains(r.stderr, sentinel) {
			t.Errorf("stderr says %q:\n%s", sentinel, r.stderr)
		}
	}
}
