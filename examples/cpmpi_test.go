package examples_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// cpmpiCount is what cpmpi's counter reports for one function on one rank.
type cpmpiCount struct{ calls, bytes int64 }

// cpmpiWant is what each rank of cpmpi's app makes while counting is on,
// as its comment lists, with MPI_Init and MPI_Init_thread left to the run.
var cpmpiWant = map[string]cpmpiCount{
	"MPI_Finalize":  {1, 0},
	"MPI_Send":      {10, 8000},
	"MPI_Recv":      {10, 0},
	"MPI_Isend":     {7, 1100},
	"MPI_Irecv":     {7, 0},
	"MPI_Wait":      {6, 0},
	"MPI_Waitall":   {4, 0},
	"MPI_Barrier":   {3, 0},
	"MPI_Bcast":     {3, 0},
	"MPI_Allreduce": {5, 0},
	"MPI_Reduce":    {2, 0},
}

// TestCPMPI runs cpmpi's app on 2 ranks with the C counter interposed on
// libmpi_abi, linked into the program and preloaded, and checks that
// each rank counted exactly the calls the app makes outside its
// Pcontrol(0) section: every call caught, none twice. A third job runs
// under --mca prof stats with the counter linked and Pcontrol(2) after a
// warm-up: the counter forgets the warm-up, and stats, below it in the
// same process, counts the same calls in its last phase and the warm-up
// in the first.
func TestCPMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds libmpi_abi and runs jobs")
	}
	e := cSetup(t)
	linked := e.compile(t, "app_linked", "-std=c11", "cpmpi/app.c", "cpmpi/counter.c")
	plain := e.compile(t, "app", "-std=c11", "cpmpi/app.c")
	preload := e.compile(t, "libcpmpi.so", "-std=c11", "-fPIC", "-shared", "cpmpi/counter.c")

	run := func(t *testing.T, args ...string) jobtest.Job {
		t.Helper()
		args = append([]string{"--timeout", "60", "-np", "2", "-x", "GODEBUG=cgocheck=1"}, args...)
		j := jobtest.Run(t, e.gompirun, 90*time.Second, nil, args...)
		if j.Code != 0 {
			t.Fatalf("job failed\n%v", j)
		}
		return j
	}

	t.Run("linked", func(t *testing.T) {
		checkCounts(t, run(t, linked), map[string]cpmpiCount{"MPI_Init": {1, 0}, "MPI_Init_thread": {0, 0}})
	})
	t.Run("preloaded", func(t *testing.T) {
		j := run(t, "-x", "LD_PRELOAD="+preload, plain, "thread")
		checkCounts(t, j, map[string]cpmpiCount{"MPI_Init": {0, 0}, "MPI_Init_thread": {1, 0}})
	})
	t.Run("under stats", func(t *testing.T) {
		prefix := filepath.Join(e.dir, "stats")
		j := run(t, "--mca", "prof", "stats", "--mca", "prof_stats_output", prefix, "--mca", "prof_stats_svg", "false",
			linked, "reset")
		// Pcontrol(2) reset the counter after MPI_Init.
		checkCounts(t, j, map[string]cpmpiCount{"MPI_Init": {0, 0}, "MPI_Init_thread": {0, 0}})
		phases := statsPhases(t, prefix)
		if len(phases) != 2 {
			t.Fatalf("stats has %d phases, want 2: the warm-up ended by Pcontrol(2) and the rest\n%v", len(phases), j)
		}
		// The warm-up: one Barrier and one Allreduce on each rank.
		for name := range cpmpiWant {
			short := strings.TrimPrefix(name, "MPI_")
			want := int64(0)
			if short == "Barrier" || short == "Allreduce" {
				want = 2
			}
			if got := phases[0][short].calls; got != want {
				t.Errorf("stats' first phase: %s %d calls over both ranks, want %d", short, got, want)
			}
		}
		for name, w := range cpmpiWant {
			if name == "MPI_Finalize" {
				continue // stats reports at Finalize and does not count it
			}
			short := strings.TrimPrefix(name, "MPI_")
			got := phases[1][short]
			if w.bytes == 0 {
				got.bytes = 0 // stats counts bytes the counter does not: receives', collectives'
			}
			if want := (cpmpiCount{2 * w.calls, 2 * w.bytes}); got != want {
				t.Errorf("stats' last phase: %s %d calls %d bytes over both ranks, want %d calls %d bytes",
					short, got.calls, got.bytes, want.calls, want.bytes)
			}
		}
		if t.Failed() {
			t.Logf("%v", j)
		}
	})
}

// cpmpiLibrary returns a directory holding libmpi_abi.so.1 and the
// libmpi_abi.so that -lmpi_abi finds: links to the one make test-programs
// builds under GOMPI_TEST_BIN when there is one, else a build of capi.
// cEnv is what the C examples' tests build with, in a temporary
// directory: the C compiler, gompi's C library and header, gompirun.
type cEnv struct{ cc, dir, lib, inc, gompirun string }

// cSetup makes a cEnv, or skips the test without a C compiler.
func cSetup(t *testing.T) cEnv {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc)")
	}
	dir := t.TempDir()
	e := cEnv{cc: cc, dir: dir, lib: cpmpiLibrary(t, dir)}
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../cmd/gompirun"})
	if err != nil {
		t.Fatal(err)
	}
	e.gompirun = bins["gompirun"]
	if e.inc, err = filepath.Abs("../capi/include"); err != nil {
		t.Fatal(err)
	}
	return e
}

// compile runs the C compiler on args, with the header's directory and
// linked against the library, into out in the directory.
func (e cEnv) compile(t *testing.T, out string, args ...string) string {
	t.Helper()
	path := filepath.Join(e.dir, out)
	args = append(append([]string{"-Wall", "-I", e.inc, "-o", path}, args...), "-L"+e.lib, "-lmpi_abi", "-Wl,-rpath,"+e.lib)
	if b, err := exec.Command(e.cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %v: %v\n%s", args, err, b)
	}
	return path
}

func cpmpiLibrary(t *testing.T, dir string) string {
	t.Helper()
	lib := filepath.Join(dir, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(lib, "libmpi_abi.so.1")
	if prebuilt, ok := cpmpiPrebuilt(); ok {
		if err := os.Symlink(prebuilt, so); err != nil {
			t.Fatal(err)
		}
	} else {
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-ldflags=-w -X=runtime.godebugDefault=asyncpreemptoff=1 -extldflags=-Wl,-soname,libmpi_abi.so.1", "-o", so, "../capi")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build libmpi_abi: %v\n%s", err, b)
		}
	}
	if err := os.Symlink("libmpi_abi.so.1", filepath.Join(lib, "libmpi_abi.so")); err != nil {
		t.Fatal(err)
	}
	return lib
}

// cpmpiPrebuilt returns the library make test-programs builds, when
// GOMPI_TEST_BIN names its directory and it is there.
func cpmpiPrebuilt() (string, bool) {
	bin := os.Getenv(jobtest.BinEnv)
	if bin == "" {
		return "", false
	}
	path := filepath.Join(bin, "lib", "libmpi_abi.so.1")
	_, err := os.Stat(path)
	return path, err == nil
}

var cpmpiLine = regexp.MustCompile(`(?m)^cpmpi rank (\d+): (MPI_\w+) (\d+) calls (\d+) bytes$`)

// checkCounts checks that each of the job's 2 ranks reported every
// function once, with the counts of cpmpiWant and init.
func checkCounts(t *testing.T, j jobtest.Job, init map[string]cpmpiCount) {
	t.Helper()
	want := map[string]cpmpiCount{}
	for _, m := range []map[string]cpmpiCount{cpmpiWant, init} {
		for name, c := range m {
			want[name] = c
		}
	}
	got := map[string]cpmpiCount{}
	for _, m := range cpmpiLine.FindAllStringSubmatch(j.Stdout, -1) {
		key := m[1] + " " + m[2]
		if _, dup := got[key]; dup {
			t.Errorf("rank %s reports %s twice", m[1], m[2])
		}
		calls, _ := strconv.ParseInt(m[3], 10, 64)
		bytes, _ := strconv.ParseInt(m[4], 10, 64)
		got[key] = cpmpiCount{calls, bytes}
	}
	for rank := range 2 {
		for name, w := range want {
			key := fmt.Sprintf("%d %s", rank, name)
			if c, ok := got[key]; !ok {
				t.Errorf("rank %d reports no %s", rank, name)
			} else if c != w {
				t.Errorf("rank %d: %s %d calls %d bytes, want %d calls %d bytes", rank, name, c.calls, c.bytes, w.calls, w.bytes)
			}
		}
	}
	if len(got) != 2*len(want) {
		t.Errorf("%d report lines, want %d", len(got), 2*len(want))
	}
	if t.Failed() {
		t.Logf("%v", j)
	}
}

// statsPhases reads the JSON report of stats written under prefix: each
// phase's calls and bytes by function, summed over the ranks.
func statsPhases(t *testing.T, prefix string) []map[string]cpmpiCount {
	t.Helper()
	files, err := filepath.Glob(prefix + ".*.json")
	if err != nil || len(files) != 1 {
		t.Fatalf("stats' JSON report: %d files under %s (%v), want 1", len(files), prefix, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Phases []struct {
			Functions []struct {
				Name         string
				Calls, Bytes int64
			}
		}
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	var out []map[string]cpmpiCount
	for _, p := range report.Phases {
		m := map[string]cpmpiCount{}
		for _, f := range p.Functions {
			m[f.Name] = cpmpiCount{f.Calls, f.Bytes}
		}
		out = append(out, m)
	}
	return out
}
