package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/bench/table"
	"github.com/gompi/gompi/internal/jobtest"
)

// The tests run gompi-bench as a user would, under gompirun (both built
// for the tests, or make test's builds), with tiny iteration counts: they
// check the tables' form, never the timings.

var gompirun, bench string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the tests that start jobs skip themselves
		os.Exit(m.Run())
	}
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "gompi-bench-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../../cmd/gompirun", "gompi-bench": "../gompi-bench"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		gompirun, bench = bins["gompirun"], bins["gompi-bench"]
		return m.Run()
	}())
}

// job runs a command with a clean environment and returns its output.
func job(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts jobs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMPI_") && !strings.HasPrefix(kv, "MPIEXEC_TIMEOUT=") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir()) // no user parameter file
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// tableOf runs a job and parses and checks its table.
func tableOf(t *testing.T, args ...string) *table.Table {
	t.Helper()
	out, errs, err := job(t, args...)
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errs)
	}
	tb, err := table.Parse(strings.NewReader(out))
	if err == nil {
		err = tb.Check()
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return tb
}

func TestMeasurements(t *testing.T) {
	tests := []struct {
		name       string
		launch     []string
		args       []string
		keys       []int
		btl        string
		transports string
	}{
		// The default selection: sm between ranks of one host.
		{"latency", []string{"-np", "2"}, []string{"-m", "0:64", "-i", "3", "-x", "1"},
			[]int{0, 1, 2, 4, 8, 16, 32, 64}, "all", "0:self 1:sm"},
		{"sendrecv", []string{"-np", "2"}, []string{"-s", "0,8,1K", "-i", "3", "-x", "1"}, []int{0, 8, 1024}, "all", "0:self 1:sm"},
		{"bw", []string{"-np", "2"}, []string{"-m", "0:4", "-i", "2", "-x", "1"}, []int{1, 2, 4}, "all", "0:self 1:sm"},
		// 128K is above the large-message threshold and the eager limit.
		{"bibw", []string{"-np", "2"}, []string{"-s", "1,1K,128K", "-i", "2", "-x", "1"}, []int{1, 1024, 128 << 10}, "all", "0:self 1:sm"},
		{"multi-lat", []string{"-np", "4", "--oversubscribe"}, []string{"-s", "0,64,1K", "-i", "3", "-x", "1"},
			[]int{0, 64, 1024}, "all", "0-2:sm 1-3:sm"},
		// Any-source receives from two senders; the defaults are small sizes.
		{"incast", []string{"-np", "3", "--oversubscribe"}, []string{"-m", "1:8", "-i", "3", "-x", "1"}, []int{1, 2, 4, 8}, "all", "0:self 1:sm 2:sm"},
		{"incast", []string{"-np", "2"}, []string{"-i", "2", "-x", "0"}, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, "all", "0:self 1:sm"},
		{"ring", []string{"-np", "3", "--oversubscribe"}, []string{"-i", "5", "-x", "1"}, []int{0, 1, 2, 4, 8}, "all", "0-1:sm 1-2:sm 2-0:sm"},
		// Each transport chosen by name, as bench-compare does.
		{"bibw", []string{"-np", "2", "--mca", "btl", "self,tcp"}, []string{"-s", "1,1K,128K", "-i", "2", "-x", "1"},
			[]int{1, 1024, 128 << 10}, "self,tcp", "0:self 1:tcp"},
		{"incast", []string{"-np", "3", "--oversubscribe", "--mca", "btl", "self,tcp"}, []string{"-s", "1,1K", "-i", "3", "-x", "1"},
			[]int{1, 1024}, "self,tcp", "0:self 1:tcp 2:tcp"},
		{"ring", []string{"-np", "2", "--mca", "btl", "self,tcp"}, []string{"-s", "8,128K", "-i", "3", "-x", "1"}, []int{8, 128 << 10}, "self,tcp", "0-1:tcp 1-0:tcp"},
		{"ring", []string{"-np", "3", "--oversubscribe", "--mca", "btl", "self,sm"}, []string{"-s", "8,128K", "-i", "3", "-x", "1"},
			[]int{8, 128 << 10}, "self,sm", "0-1:sm 1-2:sm 2-0:sm"},
		// The btl line is the parameter's value; rank 0 then reaches itself over tcp.
		{"latency", []string{"-np", "3", "--oversubscribe", "--mca", "btl", "tcp"}, []string{"-s", "8", "-i", "2", "-x", "0"},
			[]int{8}, "tcp", "0:tcp 1:tcp 2:tcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name+strings.Join(tt.launch, "_"), func(t *testing.T) {
			args := append([]string{gompirun, "--timeout", "60"}, tt.launch...)
			tb := tableOf(t, append(append(args, bench, tt.name), tt.args...)...)
			if !strings.HasPrefix(tb.Title, "gompi-bench "+tt.name+" (gompi ") {
				t.Errorf("title %q", tb.Title)
			}
			if !slices.Equal(tb.Keys(), tt.keys) || tb.Key != "Size" {
				t.Errorf("%s %v, want %v", tb.Key, tb.Keys(), tt.keys)
			}
			if tb.Fields["btl"] != tt.btl || tb.Fields["transports"] != tt.transports {
				t.Errorf("btl %q transports %q, want %q and %q", tb.Fields["btl"], tb.Fields["transports"], tt.btl, tt.transports)
			}
			if !strings.HasPrefix(tb.Fields["unit"], "us: ") && !strings.HasPrefix(tb.Fields["unit"], "MB/s: ") {
				t.Errorf("unit %q", tb.Fields["unit"])
			}
		})
	}
}

// TestCollectives runs each collective on 3 ranks, over sizes above and
// below the large-message threshold (8 KiB), and with -f.
func TestCollectives(t *testing.T) {
	launch := []string{gompirun, "--timeout", "60", "-np", "3", "--oversubscribe"}
	small := []string{"-s", "1,8,1K,16K", "-i", "3", "-x", "1"}
	for _, c := range []struct {
		name string
		args []string
		key  string
		keys []int
	}{
		{"barrier", []string{"-i", "5", "-x", "1"}, "Ranks", []int{3}},
		{"comm-dup", []string{"-i", "5", "-x", "1"}, "Ranks", []int{3}},
		{"comm-idup", []string{"-i", "5", "-x", "1"}, "Ranks", []int{3}},
		{"comm-split", []string{"-i", "5", "-x", "1"}, "Ranks", []int{3}},
		{"bcast", small, "Size", []int{1, 8, 1024, 16 << 10}},
		{"reduce", []string{"-m", "1:16", "-i", "3", "-x", "1"}, "Size", []int{4, 8, 16}}, // float32s: from 4 bytes
		{"allreduce", []string{"-s", "4,1K,16K", "-i", "3", "-x", "1"}, "Size", []int{4, 1024, 16 << 10}},
		{"allgather", small, "Size", []int{1, 8, 1024, 16 << 10}},
		{"alltoall", small, "Size", []int{1, 8, 1024, 16 << 10}},
		// On a 3 by 1 torus: one neighbour both ways in one dimension,
		// the rank itself both ways in the other.
		{"neighbor-allgather", small, "Size", []int{1, 8, 1024, 16 << 10}},
		{"neighbor-alltoall", small, "Size", []int{1, 8, 1024, 16 << 10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := tableOf(t, append(append(launch, bench, c.name), c.args...)...)
			if !strings.HasPrefix(tb.Title, "gompi-bench "+c.name+" (gompi ") || tb.Column != "Avg Latency (us)" || tb.Key != c.key {
				t.Errorf("title %q, columns %q %q", tb.Title, tb.Key, tb.Column)
			}
			if !slices.Equal(tb.Keys(), c.keys) || tb.Fields["transports"] != "0:self 1:sm 2:sm" || !strings.HasPrefix(tb.Fields["unit"], "us: ") {
				t.Errorf("keys %v, fields %v", tb.Keys(), tb.Fields)
			}
		})
	}
	// -c runs each size on a fresh communicator from its first call: its
	// header says so, and every size and the barrier give a row.
	for _, c := range []struct {
		name string
		args []string
		keys []int
	}{
		{"allgather", []string{"-s", "1,16K", "-i", "2", "-c"}, []int{1, 16 << 10}},
		{"reduce", []string{"-s", "4,64K", "-i", "2", "-c"}, []int{4, 64 << 10}},
		{"barrier", []string{"-i", "2", "-c"}, []int{3}},
		{"neighbor-alltoall", []string{"-s", "1,16K", "-i", "2", "-c"}, []int{1, 16 << 10}}, // a Dup of the torus
	} {
		t.Run(c.name+" cold", func(t *testing.T) {
			tb := tableOf(t, append(append(launch, bench, c.name), c.args...)...)
			if !slices.Equal(tb.Keys(), c.keys) || !strings.Contains(tb.Fields["unit"], "cold: each size on a fresh communicator") {
				t.Errorf("keys %v, fields %v", tb.Keys(), tb.Fields)
			}
		})
	}
	// -f adds the minimum and maximum over the ranks, around the average.
	out, errs, err := job(t, append(launch, bench, "allgather", "-s", "1,64", "-i", "3", "-x", "0", "-f")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if heading := strings.Join(strings.Fields(lines[len(lines)-3]), " "); heading != "# Size Avg Latency (us) Min Latency (us) Max Latency (us)" {
		t.Errorf("heading %q", heading)
	}
	for _, line := range lines[len(lines)-2:] {
		var key int
		var avg, lo, hi float64
		if n, _ := fmt.Sscan(line, &key, &avg, &lo, &hi); n != 4 || !(lo <= avg && avg <= hi) || lo <= 0 {
			t.Errorf("row %q: want size, average, min and max", line)
		}
	}
}

func TestLaunch(t *testing.T) {
	tb := tableOf(t, bench, "launch", "-n", "1,2", "-r", "2", "-x", "0", "--gompirun", gompirun)
	if !slices.Equal(tb.Keys(), []int{1, 2}) || tb.Key != "Ranks" || !strings.HasPrefix(tb.Fields["unit"], "ms: ") {
		t.Errorf("%s %v unit %q", tb.Key, tb.Keys(), tb.Fields["unit"])
	}
	if tb.Fields["launcher"] != gompirun || tb.Fields["transports"] != "0:self 1:sm" || tb.Fields["btl"] != "all" {
		t.Errorf("fields %v", tb.Fields)
	}
	// Any launcher, with {np} for the rank count.
	tb = tableOf(t, bench, "launch", "-n", "3", "-r", "1", "--", "/bin/sh", "-c", "test {np} = 3")
	if tb.Fields["launcher"] != "/bin/sh" || !strings.Contains(tb.Fields["transports"], "not reported") {
		t.Errorf("fields %v", tb.Fields)
	}
	_, stderr, err := job(t, bench, "launch", "-n", "2", "-r", "1", "--", "/bin/sh", "-c", "echo broken >&2; exit 3")
	if err == nil || !strings.Contains(stderr, "has no {np}") {
		t.Errorf("a command without {np}: %v %s", err, stderr)
	}
	_, stderr, err = job(t, bench, "launch", "-n", "2", "-r", "1", "--", "/bin/sh", "-c", "echo broken >&2; exit 3", "{np}")
	if err == nil || !strings.Contains(stderr, "exit status 3") || !strings.Contains(stderr, "broken") {
		t.Errorf("a failing command: %v %s", err, stderr)
	}
	_, stderr, err = job(t, gompirun, "-np", "1", bench, "launch")
	if err == nil || !strings.Contains(stderr, "not under gompirun") {
		t.Errorf("launch under gompirun: %v %s", err, stderr)
	}
}

// TestJobErrors checks that a job that cannot measure fails and says why
// once, however many ranks found the fault.
func TestJobErrors(t *testing.T) {
	_, stderr, err := job(t, gompirun, "-np", "3", "--oversubscribe", "--timeout", "60", bench, "multi-lat", "-s", "1")
	if err == nil || strings.Count(stderr, "multi-lat needs an even number of ranks") != 1 {
		t.Errorf("3 ranks: %v\n%s", err, stderr)
	}
	_, stderr, err = job(t, gompirun, "-np", "1", "--timeout", "60", bench, "ring", "-s", "8")
	if err == nil || strings.Count(stderr, "ring needs at least 2 ranks, got 1") != 1 {
		t.Errorf("a ring of 1: %v\n%s", err, stderr)
	}
	_, stderr, err = job(t, gompirun, "-np", "3", "--oversubscribe", "--timeout", "60", bench, "latency", "-m", "5:1")
	if err == nil || strings.Count(stderr, "max 1 is below min 5") != 1 {
		t.Errorf("bad flag: %v\n%s", err, stderr)
	}
}

// TestCPUProfile: every rank writes a profile that pprof can read, and an
// unwritable prefix fails the job naming the file.
func TestCPUProfile(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "cpu")
	if _, stderr, err := job(t, gompirun, "-np", "2", "--timeout", "60", bench, "latency", "-s", "1", "-i", "10", "-x", "1",
		"--cpuprofile", prefix); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for rank := range 2 {
		f := fmt.Sprintf("%s.%d", prefix, rank)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// A CPU profile is gzipped protobuf.
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s is not a gzipped profile (%d bytes)", f, len(b))
		}
	}
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "cpu")
	_, stderr, err := job(t, gompirun, "-np", "2", "--timeout", "60", bench, "latency", "-s", "1", "-i", "10", "--cpuprofile", missing)
	if err == nil || !strings.Contains(stderr, "cpu profile: open "+missing) {
		t.Errorf("unwritable profile: %v\n%s", err, stderr)
	}
}

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, name := range []string{"latency", "sendrecv", "bw", "bibw", "multi-lat", "incast", "ring", "launch", "init-finalize",
		"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "neighbor-allgather", "neighbor-alltoall", "iallreduce", "ibcast", "ialltoall", "allreduce-init",
		"comm-dup", "comm-idup", "comm-split"} {
		if !strings.Contains(out.String(), "\n  "+name+" ") {
			t.Errorf("--help does not list %s:\n%s", name, out.String())
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"latency", "-m", "5:1"}, `-m "5:1": max 1 is below min 5`},
		{[]string{"bw", "-s", "0,1"}, "below this measurement's smallest"},
		{[]string{"incast", "-m", "2K:"}, "min 2048 is above this measurement's default max 1024: give both, MIN:MAX"},
		{[]string{"latency", "-i", "x"}, `--iterations "x": want a whole number`},
		{[]string{"latency", "-q"}, "unknown shorthand flag: 'q'"},
		{[]string{"gather"}, `unknown command "gather"`},
		{[]string{"barrier", "-m", "8"}, "unknown shorthand flag: 'm'"}, // a barrier has no size
		{[]string{"allreduce", "-s", "1,4"}, "size 1 is below this measurement's smallest, 4"},
		{[]string{"latency", "-f"}, "unknown shorthand flag: 'f'"}, // one pair: no spread over ranks
		{[]string{"latency", "-c"}, "unknown shorthand flag: 'c'"}, // no communicator of its own to start cold
		{[]string{"launch", "-n", "0"}, "-n 0: rank counts must be 1 or more"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(c.args, &out, &errb); code != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to contain %q", c.args, code, errb.String(), c.want)
		}
	}
}
