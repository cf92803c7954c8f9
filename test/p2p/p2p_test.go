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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, p2pcheck string

func TestMain(m *testing.M) {
	jobtest.Main(m, map[string]string{"gompirun": "../../cmd/gompirun", "p2pcheck": "./testdata/p2pcheck"}, func(bins map[string]string) {
		gompirun, p2pcheck = bins["gompirun"], bins["p2pcheck"]
	})
}

type job = jobtest.Job

// run starts gompirun with args and waits at most limit for it.
func run(t *testing.T, limit time.Duration, stdin io.Reader, args ...string) job {
	t.Helper()
	return jobtest.Run(t, gompirun, limit, stdin, args...)
}

// transports are the btl selections every scenario runs over: shared
// memory and tcp, each with self for a rank's messages to itself.
var transports = []string{"self,sm", "self,tcp"}

// scenario is a p2pcheck scenario, its rank count and gompirun's further
// arguments.
type scenario struct {
	scenario string
	np       int
	mca      []string
}

// smallEager makes most messages take the rendezvous path.
var smallEager = []string{"--mca", "btl_tcp_eager_limit", "128", "--mca", "btl_sm_eager_limit", "128",
	"--mca", "btl_self_eager_limit", "0"}

// runScenarios runs every scenario over every transport, in parallel.
func runScenarios(t *testing.T, tests []scenario) {
	for _, btl := range transports {
		for _, tt := range tests {
			name := fmt.Sprintf("%s/%s-np%d-%s", btl, tt.scenario, tt.np, strings.Join(tt.mca, "_"))
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-np", fmt.Sprint(tt.np), "--oversubscribe", "--timeout", "120", "--mca", "btl", btl}, tt.mca...)
				j := run(t, 3*time.Minute, nil, append(args, p2pcheck, tt.scenario)...)
				jobtest.ExpectOK(t, j, tt.scenario, tt.np)
			})
		}
	}
}

func TestScenarios(t *testing.T) {
	tests := []scenario{
		{"order", 3, nil},
		{"anysource", 4, nil},
		{"truncate", 2, nil},
		{"probe", 2, nil},
		{"freedrecv", 2, nil},
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
		{"random", 3, smallEager},
		{"order", 2, []string{"--mca", "btl_tcp_max_send_size", "4k", "--mca", "btl_sm_fragment_size", "4k",
			"--mca", "btl_sm_eager_limit", "4k"}},
		// Waiters that doze between polls almost at once (over sm; tcp's
		// cannot), with one processor a rank and with two.
		{"doze", 4, dozing("1")},
		{"doze", 3, dozing("2")},
		{"random", 4, dozing("1")},
		{"stress", 3, dozing("1")},
		{"gc", 2, dozing("2")},
	}
	runScenarios(t, tests)
	// Only tcp: a rank reaches itself through its own listener.
	t.Run("tcp/self-np2", func(t *testing.T) {
		t.Parallel()
		j := run(t, 3*time.Minute, nil, "-np", "2", "--timeout", "120", "--mca", "btl", "tcp", p2pcheck, "self")
		jobtest.ExpectOK(t, j, "self", 2)
	})
}

// dozing makes waiting ranks doze after a microsecond, with procs as
// each rank's GOMAXPROCS.
func dozing(procs string) []string {
	return []string{"--mca", "mpi_yield_when_idle", "yes", "--mca", "mpi_poll_doze_us", "1", "--mca", "mpi_gomaxprocs", procs}
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
		// at once below 63 KiB; above, a non-blocking send's read by single
		// copy, a blocking one's either way, whichever its receiver timed
		// faster.
		{"sm", []string{"--mca", "btl", "self,sm"}, boundaries(8<<10, 63<<10, 126<<10)},
		// Blocking sends streamed in fragments of 63 KiB, as every message
		// without single copy.
		{"sm-blocking-stream", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_single_copy_blocking", "stream"},
			boundaries(63<<10, 126<<10)},
		// A blocking send read by single copy from a threshold of its own.
		{"sm-blocking-single-copy", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_single_copy_blocking_threshold", "200000"},
			boundaries(63<<10, 200000)},
		// Through the ring only: eager to 63 KiB, then fragments.
		{"sm-ring", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_single_copy_mechanism", "none"},
			boundaries(8<<10, 63<<10, 126<<10)},
		// Single copy above a threshold of its own; eager to 63 KiB below
		// it, then a request to send and fragments.
		{"sm-single-copy", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_single_copy_threshold", "100000"},
			boundaries(63<<10, 100000)},
		// Copies shared with the sender from 200,000 bytes, in pieces of 64
		// KiB, where each rank has a CPU.
		{"sm-shared-copy", []string{"--mca", "btl", "self,sm", "--mca", "btl_sm_shared_copy_threshold", "200000"},
			boundaries(200000, 1<<20)},
		// tcp's defaults: eager limit 128 KiB, which a larger message's
		// request to send carries, the rest in fragments of 4 MiB.
		{"tcp", []string{"--mca", "btl", "self,tcp"}, boundaries(128<<10, 128<<10+4<<20, 128<<10+8<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-np", "2", "--timeout", "120"}, tt.mca...)
			j := run(t, 3*time.Minute, nil, append(append(args, p2pcheck, "sizes"), tt.sizes...)...)
			jobtest.ExpectOK(t, j, "sizes", 2)
		})
	}
}

// TestKilledRankOverSharedMemory kills a rank with SIGKILL in the middle of
// a stream over sm (p2pcheck killmid): the job must end, naming the rank,
// and leave nothing behind. The first case has its 256 KiB messages read
// by single copy; the others force every byte through the rings, so that
// the rank dies holding part of one.
func TestKilledRankOverSharedMemory(t *testing.T) {
	ring := []string{"--mca", "btl_sm_single_copy_mechanism", "none"}
	tests := []struct {
		name       string
		mca, sizes []string
	}{
		// Its blocking sends read by single copy too, as non-blocking ones are.
		{"single-copy", []string{"--mca", "btl_sm_single_copy_blocking_threshold", "1"}, nil},
		// At most the eager limit (63 KiB): each message whole in the
		// ring at once.
		{"ring-eager", ring, []string{"1", "8192", "64512"}},
		// Above it: a request to send with the first 63 KiB, the rest in
		// fragments of 63 KiB; 1 MiB is four times what the ring holds.
		{"ring-fragments", ring, []string{"64513", "262144", "1048576"}},
		// Between a small eager limit and the fragment size: a request to
		// send with the first 4 KiB, the rest in one fragment.
		{"ring-one-fragment", slices.Concat(ring, []string{"--mca", "btl_sm_eager_limit", "4096"}),
			[]string{"4096", "4097", "64512"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectKilledOverSM(t, tt.mca, tt.sizes) })
	}
}

// killmidLine is the line each rank of p2pcheck killmid prints first.
var killmidLine = regexp.MustCompile(`(?m)^killmid rank (\d+) pid (\d+) job (\S+) session (\S+)$`)

// expectKilledOverSM runs p2pcheck killmid on three ranks over sm, with
// mca added to gompirun's arguments and sizes to the scenario's, and
// checks that the job ends with rank 1's SIGKILL as its cause, named, that
// no rank outlives it, and that nothing of the job is left in /dev/shm or
// where its session directory was.
func expectKilledOverSM(t *testing.T, mca, sizes []string) {
	t.Helper()
	// A short parent: the session directory holds the job's socket.
	tmp, err := os.MkdirTemp("", "killmid")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp) // gompirun's session directory goes there
	args := slices.Concat([]string{"-np", "3", "--oversubscribe", "--mca", "btl", "self,sm"}, mca,
		[]string{p2pcheck, "killmid"}, sizes)
	j := run(t, time.Minute, nil, args...)
	if j.Code != 128+9 {
		t.Fatalf("exit status %d, want 137 (SIGKILL)\n%v", j.Code, j)
	}
	pids := map[int]int{}
	var jobID string
	for _, m := range killmidLine.FindAllStringSubmatch(j.Stdout, -1) {
		rank, _ := strconv.Atoi(m[1])
		pids[rank], _ = strconv.Atoi(m[2])
		if want := filepath.Join(tmp, "gompi."+m[3]); m[4] != want || jobID != "" && m[3] != jobID {
			t.Fatalf("rank %d: job %s, session directory %s; want one job, its session directory in %s\n%v", rank, m[3], m[4], tmp, j)
		}
		jobID = m[3]
	}
	if len(pids) != 3 {
		t.Fatalf("%d ranks said who they are, want 3 (each does before a barrier)\n%v", len(pids), j)
	}
	if !regexp.MustCompile(fmt.Sprintf(`rank 1 \(pid %d\) killed by signal SIGKILL`, pids[1])).MatchString(j.Stderr) {
		t.Errorf("gompirun did not name the killed rank 1 (pid %d):\n%s", pids[1], j.Stderr)
	}
	for rank, pid := range pids {
		if jobtest.Alive(pid) {
			t.Errorf("rank %d (pid %d) still runs after gompirun returned", rank, pid)
		}
	}
	// Any file that names the job, not only those the launcher removes.
	for _, pattern := range []string{"/dev/shm/*" + jobID + "*", filepath.Join(tmp, "gompi.*")} {
		left, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range left {
			t.Errorf("%s left behind", f)
		}
	}
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

// TestCrashingRankStopsTheJob, TestErrorsAreFatalAbortsTheJob and
// TestAbortStopsTheJob run over each transport: how the others learn
// that a rank is gone differs between them.
func TestCrashingRankStopsTheJob(t *testing.T) {
	for _, btl := range transports {
		t.Run(btl, func(t *testing.T) {
			j := run(t, time.Minute, nil, "-np", "3", "--oversubscribe", "--mca", "btl", btl, p2pcheck, "crash")
			if j.Code != 3 {
				t.Fatalf("exit status %d, want the crashed rank's 3\nstderr:\n%s", j.Code, j.Stderr)
			}
			if !regexp.MustCompile(`rank 1 \(pid \d+\) exited with status 3`).MatchString(j.Stderr) {
				t.Errorf("gompirun did not say which rank failed:\n%s", j.Stderr)
			}
			if strings.Contains(j.Stdout, "ok crash") {
				t.Errorf("a rank finished normally:\n%s", j.Stdout)
			}
		})
	}
}

func TestErrorsAreFatalAbortsTheJob(t *testing.T) {
	for _, btl := range transports {
		t.Run(btl, func(t *testing.T) {
			j := run(t, time.Minute, nil, "-np", "2", "--mca", "btl", btl, p2pcheck, "fatal")
			if j.Code != 6 { // MPI_ERR_RANK's class number
				t.Fatalf("exit status %d, want 6\nstderr:\n%s", j.Code, j.Stderr)
			}
			for _, want := range []string{"ErrorsAreFatal", "rank 7 is out of range", "called Abort with code 6"} {
				if !strings.Contains(j.Stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, j.Stderr)
				}
			}
		})
	}
}

func TestAbortStopsTheJob(t *testing.T) {
	for _, btl := range transports {
		t.Run(btl, func(t *testing.T) {
			j := run(t, time.Minute, nil, "-np", "2", "--mca", "btl", btl, p2pcheck, "abort")
			if j.Code != 7 {
				t.Fatalf("exit status %d, want Abort's 7\nstderr:\n%s", j.Code, j.Stderr)
			}
			if want := "rank 1 (pid "; !strings.Contains(j.Stderr, want) || !strings.Contains(j.Stderr, "MPI_Abort called on comm MPI_COMM_WORLD with code 7") {
				t.Errorf("stderr does not say that rank 1 called MPI_Abort with code 7:\n%s", j.Stderr)
			}
			if strings.Contains(j.Stdout, "ok abort") {
				t.Errorf("a rank finished normally:\n%s", j.Stdout)
			}
		})
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
