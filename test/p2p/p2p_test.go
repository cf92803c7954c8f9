// Package p2p_test runs point-to-point scenarios as real multi-rank jobs:
// it builds gompirun and the p2pcheck program and launches them as a user
// would.
package p2p_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, p2pcheck string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "p2p_test")
	if err != nil {
		panic(err)
	}
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../cmd/gompirun", "p2pcheck": "./testdata/p2pcheck"})
	if err != nil {
		panic(err)
	}
	gompirun, p2pcheck = bins["gompirun"], bins["p2pcheck"]
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type job = jobtest.Job

// run starts gompirun with args and waits at most limit for it.
func run(t *testing.T, limit time.Duration, stdin io.Reader, args ...string) job {
	t.Helper()
	return jobtest.Run(t, gompirun, limit, stdin, args...)
}

// expectOK checks that every rank of an np-rank scenario reported success.
func expectOK(t *testing.T, j job, scenario string, np int) {
	t.Helper()
	if j.Code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", j.Code, j.Stdout, j.Stderr)
	}
	for r := range np {
		if !strings.Contains(j.Stdout, fmt.Sprintf("ok %s rank %d\n", scenario, r)) {
			t.Errorf("rank %d did not report success\nstdout:\n%s\nstderr:\n%s", r, j.Stdout, j.Stderr)
		}
	}
}

// transports are the btl selections every scenario runs over: shared
// memory and tcp, each with self for a rank's messages to itself.
var transports = []string{"self,sm", "self,tcp"}

func TestScenarios(t *testing.T) {
	tests := []struct {
		scenario string
		np       int
		mca      []string
	}{
		{"order", 3, nil},
		{"anysource", 4, nil},
		{"truncate", 2, nil},
		{"probe", 2, nil},
		{"cancel", 2, nil},
		{"ssend", 2, nil},
		{"random", 4, nil},
		{"big", 2, nil},
		{"self", 2, nil},
		{"errors", 2, nil},
		{"pairs", 4, nil},
		{"pairs", 2, nil},
		{"bidir", 2, nil},
		{"window", 3, nil},
		{"stress", 3, nil},
		{"gc", 2, nil},
		{"complete", 2, nil},
		{"eager", 2, nil},
		// With small eager limits most messages take the rendezvous path.
		{"random", 3, []string{"--mca", "btl_tcp_eager_limit", "128", "--mca", "btl_sm_eager_limit", "128",
			"--mca", "btl_self_eager_limit", "0"}},
		{"order", 2, []string{"--mca", "btl_tcp_max_send_size", "4k", "--mca", "btl_sm_fragment_size", "4k",
			"--mca", "btl_sm_eager_limit", "4k"}},
	}
	for _, btl := range transports {
		for _, tt := range tests {
			name := fmt.Sprintf("%s/%s-np%d-%s", btl, tt.scenario, tt.np, strings.Join(tt.mca, "_"))
			t.Run(name, func(t *testing.T) {
				args := append([]string{"-np", fmt.Sprint(tt.np), "--oversubscribe", "--timeout", "120", "--mca", "btl", btl}, tt.mca...)
				j := run(t, 3*time.Minute, nil, append(args, p2pcheck, tt.scenario)...)
				expectOK(t, j, tt.scenario, tt.np)
			})
		}
	}
	// Only tcp: a rank reaches itself through its own listener.
	t.Run("tcp/self-np2", func(t *testing.T) {
		j := run(t, 3*time.Minute, nil, "-np", "2", "--timeout", "120", "--mca", "btl", "tcp", p2pcheck, "self")
		expectOK(t, j, "self", 2)
	})
}

// boundaries lists sizes one below, at and one above each limit.
func boundaries(limits ...int) []string {
	out := []string{"0", "1"}
	for _, n := range limits {
		out = append(out, fmt.Sprint(n-1), fmt.Sprint(n), fmt.Sprint(n+1))
	}
	return out
}

// TestProtocolBoundaries sends messages one byte below, at and above every
// size where a transport or the engine changes how a message moves.
func TestProtocolBoundaries(t *testing.T) {
	tests := []struct {
		name  string
		mca   []string
		sizes []string
	}{
		// sm's defaults: payloads written around the caches from 8 KiB, sent
		// at once below 32 KiB, read by single copy from there, in fragments
		// of 32 KiB without it.
		{"sm", []string{"--mca", "btl", "self,sm"}, boundaries(8<<10, 32<<10, 64<<10)},
		// Through the ring only: eager to 32 KiB, then fragments.
		{"sm-ring", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_single_copy_mechanism", "none"},
			boundaries(8<<10, 32<<10, 64<<10)},
		// Single copy above a threshold of its own; eager to 32 KiB below it.
		{"sm-single-copy", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_single_copy_threshold", "100000"},
			boundaries(32<<10, 100000)},
		// Copies shared with the sender from 200,000 bytes, in pieces of 64
		// KiB, where each rank has a CPU.
		{"sm-shared-copy", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_shared_copy_threshold", "200000"},
			boundaries(200000, 1<<20)},
		// tcp's defaults: eager limit 128 KiB, fragments of 4 MiB.
		{"tcp", []string{"--mca", "btl", "self,tcp"}, boundaries(128<<10, 4<<20, 8<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-np", "2", "--timeout", "120"}, tt.mca...)
			j := run(t, 3*time.Minute, nil, append(append(args, p2pcheck, "sizes"), tt.sizes...)...)
			expectOK(t, j, "sizes", 2)
		})
	}
}

// TestKilledRankOverSharedMemory kills a rank with SIGKILL in the middle of
// a stream over sm: the job must end, naming the rank, and leave no
// segment behind.
func TestKilledRankOverSharedMemory(t *testing.T) {
	before := shmFiles(t)
	j := run(t, time.Minute, nil, "-np", "3", "--oversubscribe", "--mca", "btl", "self,sm", p2pcheck, "killmid")
	if j.Code != 128+9 {
		t.Fatalf("exit status %d, want 137 (SIGKILL)\nstderr:\n%s", j.Code, j.Stderr)
	}
	if !regexp.MustCompile(`rank 1 \(pid \d+\) killed by signal SIGKILL`).MatchString(j.Stderr) {
		t.Errorf("gompirun did not name the killed rank:\n%s", j.Stderr)
	}
	for _, f := range shmFiles(t) {
		if !slices.Contains(before, f) {
			t.Errorf("segment %s left behind", f)
		}
	}
}

// shmFiles lists gompi's files in /dev/shm.
func shmFiles(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob("/dev/shm/gompi.*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSingletonHugeSelfSend(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 4 GiB")
	}
	out, err := exec.Command(p2pcheck, "huge").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok huge rank 0") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestCrashingRankStopsTheJob(t *testing.T) {
	j := run(t, time.Minute, nil, "-np", "3", "--oversubscribe", p2pcheck, "crash")
	if j.Code != 3 {
		t.Fatalf("exit status %d, want the crashed rank's 3\nstderr:\n%s", j.Code, j.Stderr)
	}
	if !regexp.MustCompile(`rank 1 \(pid \d+\) exited with status 3`).MatchString(j.Stderr) {
		t.Errorf("gompirun did not say which rank failed:\n%s", j.Stderr)
	}
	if strings.Contains(j.Stdout, "ok crash") {
		t.Errorf("a rank finished normally:\n%s", j.Stdout)
	}
}

func TestErrorsAreFatalAbortsTheJob(t *testing.T) {
	j := run(t, time.Minute, nil, "-np", "2", p2pcheck, "fatal")
	if j.Code != 6 { // MPI_ERR_RANK's class number
		t.Fatalf("exit status %d, want 6\nstderr:\n%s", j.Code, j.Stderr)
	}
	for _, want := range []string{"ErrorsAreFatal", "rank 7 is out of range", "called Abort with code 6"} {
		if !strings.Contains(j.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, j.Stderr)
		}
	}
}

func TestAbortStopsTheJob(t *testing.T) {
	j := run(t, time.Minute, nil, "-np", "2", p2pcheck, "abort")
	if j.Code != 7 {
		t.Fatalf("exit status %d, want Abort's 7\nstderr:\n%s", j.Code, j.Stderr)
	}
	if want := "rank 1 (pid "; !strings.Contains(j.Stderr, want) || !strings.Contains(j.Stderr, "MPI_Abort called on comm world with code 7") {
		t.Errorf("stderr does not say that rank 1 called MPI_Abort with code 7:\n%s", j.Stderr)
	}
	if strings.Contains(j.Stdout, "ok abort") {
		t.Errorf("a rank finished normally:\n%s", j.Stdout)
	}
}

func TestTimeout(t *testing.T) {
	j := run(t, time.Minute, nil, "-np", "2", "--timeout", "2", p2pcheck, "hang")
	if j.Code != 124 || !strings.Contains(j.Stderr, "timed out after 2 seconds") {
		t.Fatalf("exit status %d, stderr:\n%s", j.Code, j.Stderr)
	}
}

func TestUnreachableWithoutSelf(t *testing.T) {
	j := run(t, time.Minute, nil, "-np", "1", "--mca", "btl", "tcp", "--mca", "btl_tcp_if_include", "192.0.2.0/24", p2pcheck, "self")
	if j.Code == 0 {
		// The machine has such an interface: the rank reached itself through it.
		t.Skip("an interface in 192.0.2.0/24 exists here")
	}
	if !strings.Contains(j.Stderr, "no btl module reaches rank 0") || !strings.Contains(j.Stderr, "add self to the btl parameter") {
		t.Errorf("stderr does not explain the unreachable rank:\n%s", j.Stderr)
	}
}

// TestJunkToTCPPort writes junk and a false handshake to rank 1's tcp port
// while the job runs; the ranks must refuse and log them and still finish
// their exchange.
func TestJunkToTCPPort(t *testing.T) {
	cmd := exec.Command(gompirun, "-np", "2", "--timeout", "60", "--mca", "btl_base_verbose", "debug",
		"--tag-output", p2pcheck, "pingpong")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()

	listening := regexp.MustCompile(`\[\w+,1\]<stderr>:.*listening: .*address=(127\.0\.0\.1:\d+)`)
	var logs strings.Builder
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		logs.WriteString(lines.Text() + "\n")
		if m := listening.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("rank 1 never logged a loopback listening address:\n%s", logs.String())
	}
	attacks := [][]byte{
		[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		bytes.Repeat([]byte{0xff}, 4096),
		append([]byte("GMPH\x01\x01\x00\x00"), bytes.Repeat([]byte{0}, 40)...), // a hello from nobody with no secret
	}
	for _, junk := range attacks {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial rank 1 at %s: %v", addr, err)
		}
		_, _ = c.Write(junk)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.Copy(io.Discard, c) // until the rank hangs up
		c.Close()
	}
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	for lines.Scan() {
		logs.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("job failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), logs.String())
	}
	for r := range 2 {
		if !strings.Contains(stdout.String(), fmt.Sprintf("ok pingpong rank %d", r)) {
			t.Errorf("rank %d did not finish its exchange:\n%s", r, stdout.String())
		}
	}
	if n := strings.Count(logs.String(), "refused a connection"); n != len(attacks) {
		t.Errorf("%d refusals logged for %d junk connections:\n%s", n, len(attacks), logs.String())
	}
}
