// Package plugins_test runs out-of-process components in real jobs: it
// builds the example plugins, puts them on a component path and launches
// programs under gompirun as a user would.
package plugins_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// profBins are the programs the prof tests run, built once.
type profBins struct {
	dir                            string // the build directory
	plugins                        string // the component path: mca_prof_jsonl alone
	jsonl                          string // the plugin's executable
	gompirun, gompiInfo, profcalls string
}

var (
	profOnce   sync.Once
	profBuilt  profBins
	profErr    error
	profRemove sync.Mutex
)

// profBuild builds gompirun, gompi_info, the test program and the jsonl
// plugin once for the test binary.
func profBuild(t *testing.T) profBins {
	t.Helper()
	profOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gompi-plugins-prof-")
		if err != nil {
			profErr = err
			return
		}
		profBuilt.dir = dir
		bins, err := jobtest.Build(dir, map[string]string{
			"gompirun": "../../cmd/gompirun", "gompi_info": "../../cmd/gompi_info", "profcalls": "./testdata/profcalls",
		})
		if err != nil {
			profErr = err
			return
		}
		plugins := filepath.Join(dir, "plugins")
		pbins, err := jobtest.Build(plugins, map[string]string{"mca_prof_jsonl": "../../examples/plugins/mca_prof_jsonl"})
		if err != nil {
			profErr = err
			return
		}
		jsonl := pbins["mca_prof_jsonl"]
		profBuilt = profBins{dir: dir, plugins: plugins, jsonl: jsonl,
			gompirun: bins["gompirun"], gompiInfo: bins["gompi_info"], profcalls: bins["profcalls"]}
	})
	if profErr != nil {
		t.Fatalf("building the prof plugin tests' programs: %v", profErr)
	}
	return profBuilt
}

func removeProfBuild() {
	profRemove.Lock()
	defer profRemove.Unlock()
	if profBuilt.dir != "" {
		os.RemoveAll(profBuilt.dir)
	}
}

// jobLimit is gompirun's own limit on a job, hangLimit the test's on
// gompirun: hang guards, never what decides a pass.
const (
	jobLimit  = 120 * time.Second
	hangLimit = jobLimit + 30*time.Second
)

// runJob runs gompirun with args under its --timeout, and afterwards
// checks that no plugin process of the build outlives the job.
func runJob(t *testing.T, b profBins, args ...string) jobtest.Job {
	t.Helper()
	args = append([]string{"--timeout", fmt.Sprint(int(jobLimit.Seconds()))}, args...)
	j := jobtest.Run(t, b.gompirun, hangLimit, nil, args...)
	if j.Code == 124 {
		t.Fatalf("hung: gompirun's --timeout ended the job\n%v", j)
	}
	noStrayPlugins(t, b.plugins)
	return j
}

// noStrayPlugins waits until no process runs an executable under dir. A
// plugin whose rank died exits when it reads the end of its lifeline,
// promptly but not at once: the bound is a hang guard.
func noStrayPlugins(t *testing.T, dir string) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = pluginProcesses(dir); len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin processes still running 30 s after their job:\n%s", strings.Join(left, "\n"))
		}
	}
}

// pluginProcesses lists the processes whose command line starts with an
// executable under dir. A zombie has an empty command line: it is gone.
func pluginProcesses(dir string) []string {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		argv0, _, _ := strings.Cut(string(b), "\x00")
		if strings.HasPrefix(argv0, dir+string(filepath.Separator)) {
			found = append(found, filepath.Dir(p)+": "+argv0)
		}
	}
	return found
}

// line is one record of mca_prof_jsonl.
type line struct {
	Fn    string `json:"fn"`
	Peer  int    `json:"peer"`
	Tag   int    `json:"tag"`
	Bytes int64  `json:"bytes"`
	Comm  string `json:"comm"`
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
	Err   bool   `json:"error"`
	Level *int   `json:"level"`
}

// readRanks reads the files of a job's ranks from dir, by rank.
func readRanks(t *testing.T, dir string, ranks int) ([][]line, []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "gompi-jsonl-*.*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != ranks {
		t.Fatalf("%d files in %s, want one per rank (%d): %v", len(files), dir, ranks, files)
	}
	out, paths := make([][]line, ranks), make([]string, ranks)
	for rank := range ranks {
		matches, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("gompi-jsonl-*.%d.jsonl", rank)))
		if len(matches) != 1 {
			t.Fatalf("rank %d: files %v", rank, matches)
		}
		paths[rank] = matches[0]
		out[rank] = readLines(t, matches[0])
	}
	return out, paths
}

func readLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// profcallsCalls is what profcalls calls on a rank of a job of size
// ranks, in order, as gompi's PMPI API names the calls.
func profcallsCalls(rank, size int) []string {
	calls := []string{"Init", "CommWorld", "CommRank", "CommSize"}
	switch rank {
	case 0:
		calls = append(calls, "Send", "Recv")
	case 1:
		calls = append(calls, "Recv", "Send")
	}
	calls = append(calls, "Pcontrol", "Allreduce", "Barrier", "Pcontrol")
	for range 20 {
		calls = append(calls, "Bcast")
	}
	return append(calls, "Barrier", "Finalize")
}

func fns(lines []line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Fn)
	}
	return out
}

// find returns the first record of fn, failing the test without one.
func find(t *testing.T, lines []line, fn string) line {
	t.Helper()
	i := slices.IndexFunc(lines, func(l line) bool { return l.Fn == fn })
	if i < 0 {
		t.Fatalf("no %s in %v", fn, fns(lines))
	}
	return lines[i]
}

func TestProfJSONLRecordsEveryCall(t *testing.T) {
	b := profBuild(t)
	out := t.TempDir()
	const size = 3
	j := runJob(t, b, "-np", fmt.Sprint(size), "--oversubscribe", "--mca", "mca_base_component_path", b.plugins,
		"--mca", "prof", "jsonl", "--mca", "prof_jsonl_dir", out, b.profcalls)
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	ranks, paths := readRanks(t, out, size)
	for rank, lines := range ranks {
		if got, want := fns(lines), profcallsCalls(rank, size); !slices.Equal(got, want) {
			t.Errorf("rank %d recorded\n%v\nwant\n%v", rank, got, want)
		}
		for i, l := range lines {
			if l.Start > l.End || (i > 0 && l.End < lines[i-1].End) || l.Err {
				t.Errorf("rank %d: record %d out of order or failed: %+v", rank, i, l)
			}
		}
		if !strings.Contains(j.Stdout+j.Stderr, "report written: "+paths[rank]) {
			t.Errorf("rank %d's file %s not announced\n%v", rank, paths[rank], j)
		}
	}
	for _, tc := range []struct {
		rank int
		fn   string
		want line
	}{
		{0, "Send", line{Fn: "Send", Peer: 1, Tag: 7, Bytes: 80, Comm: "MPI_COMM_WORLD"}},
		{0, "Recv", line{Fn: "Recv", Peer: 1, Tag: 9, Bytes: 24, Comm: "MPI_COMM_WORLD"}},
		{1, "Recv", line{Fn: "Recv", Peer: 0, Tag: 7, Bytes: 80, Comm: "MPI_COMM_WORLD"}},
		{1, "Send", line{Fn: "Send", Peer: 0, Tag: 9, Bytes: 24, Comm: "MPI_COMM_WORLD"}},
		{2, "Allreduce", line{Fn: "Allreduce", Peer: -1, Tag: -1, Bytes: 16, Comm: "MPI_COMM_WORLD"}},
		{2, "Init", line{Fn: "Init", Peer: -1, Tag: -1}},
	} {
		got := find(t, ranks[tc.rank], tc.fn)
		got.Start, got.End = 0, 0
		if got.Level != nil || got != tc.want {
			t.Errorf("rank %d: %s recorded as %+v, want %+v", tc.rank, tc.fn, got, tc.want)
		}
	}
	// The Pcontrols keep their places, with their levels; the Bcasts name
	// their roots.
	var levels []int
	for i, l := range ranks[0] {
		switch l.Fn {
		case "Pcontrol":
			if l.Level == nil {
				t.Fatalf("Pcontrol without a level: %+v", l)
			}
			levels = append(levels, *l.Level)
		case "Bcast":
			if root := (i - 10) % size; l.Peer != root || l.Bytes != 5 || l.Tag != -1 {
				t.Errorf("record %d: %+v, want a Bcast of 5 bytes from root %d", i, l, root)
			}
		}
	}
	if !slices.Equal(levels, []int{2, 0}) {
		t.Errorf("Pcontrol levels %v, want [2 0]", levels)
	}
}

func TestProfJSONLParametersFromTheEnvironment(t *testing.T) {
	b := profBuild(t)
	out := t.TempDir()
	t.Setenv("GOMPI_MCA_prof_jsonl_dir", out)
	t.Setenv("GOMPI_MCA_prof_jsonl_functions", "Send,Recv")
	j := runJob(t, b, "-np", "2", "--mca", "mca_base_component_path", b.plugins, "--mca", "prof", "jsonl", b.profcalls)
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	ranks, _ := readRanks(t, out, 2)
	for rank, want := range [][]string{{"Send", "Recv"}, {"Recv", "Send"}} {
		if got := fns(ranks[rank]); !slices.Equal(got, want) {
			t.Errorf("rank %d recorded %v, want %v (prof_jsonl_functions)", rank, got, want)
		}
	}
}

func TestProfJSONLListedByGompiInfo(t *testing.T) {
	b := profBuild(t)
	cmd := exec.Command(b.gompiInfo, "--param", "prof", "jsonl", "--level", "9", "--parsable")
	cmd.Env = append(os.Environ(), "GOMPI_MCA_mca_base_component_path="+b.plugins, "HOME="+t.TempDir())
	outb, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gompi_info: %v\n%s", err, outb)
	}
	out := string(outb)
	for _, want := range []string{
		"mca:prof:jsonl:origin:" + b.jsonl,
		"mca:prof:jsonl:version:api:1.1.0",
		"mca:prof:jsonl:param:prof_jsonl_dir:default:.",
		"mca:prof:jsonl:param:prof_jsonl_functions:type:list",
		"mca:prof:jsonl:param:prof_jsonl_batch_events:default:1024",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("%q missing from gompi_info:\n%s", want, out)
		}
	}
	noStrayPlugins(t, b.plugins)
}

func TestProfPluginKilledMidJob(t *testing.T) {
	b := profBuild(t)
	out := t.TempDir()
	// Small batches: rank 0 meets its dead tool at a call, before Finalize.
	j := runJob(t, b, "-np", "2", "--mca", "mca_base_component_path", b.plugins, "--mca", "prof", "jsonl",
		"--mca", "prof_jsonl_dir", out, "--mca", "prof_jsonl_batch_events", "4", b.profcalls, "-kill-plugin")
	if j.Code != 0 {
		t.Fatalf("the job did not survive its tool\n%v", j)
	}
	all := j.Stdout + j.Stderr
	for _, want := range []string{"out-of-process component failed", "path=" + b.jsonl, "step=record"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q missing from the job's output\n%v", want, j)
		}
	}
	// Rank 1's tool lived: its file is whole and announced; rank 0's is not.
	ranks, paths := readRanks(t, out, 2)
	if got, want := fns(ranks[1]), profcallsCalls(1, 2); !slices.Equal(got, want) {
		t.Errorf("rank 1 recorded\n%v\nwant\n%v", got, want)
	}
	if !strings.Contains(all, "report written: "+paths[1]) || strings.Contains(all, "report written: "+paths[0]) {
		t.Errorf("want only rank 1's file announced\n%v", j)
	}
}

func TestProfRankKilledLeavesNoPlugin(t *testing.T) {
	b := profBuild(t)
	j := runJob(t, b, "-np", "2", "--mca", "mca_base_component_path", b.plugins, "--mca", "prof", "jsonl",
		"--mca", "prof_jsonl_dir", t.TempDir(), b.profcalls, "-die")
	if j.Code == 0 || !strings.Contains(j.Stderr, "SIGKILL") {
		t.Fatalf("want the job to fail with its rank killed\n%v", j)
	}
	// runJob has checked that no plugin outlived it.
}

func TestProfPluginLogsReachTheRank(t *testing.T) {
	b := profBuild(t)
	j := runJob(t, b, "-np", "2", "--mca", "mca_base_component_path", b.plugins, "--mca", "prof", "jsonl",
		"--mca", "prof_jsonl_dir", t.TempDir(), "--mca", "prof_base_verbose", "debug", b.profcalls)
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	var debug, info bool
	for l := range strings.SplitSeq(j.Stdout+j.Stderr, "\n") {
		debug = debug || strings.Contains(l, "[DEBUG]") && strings.Contains(l, "prof.jsonl") && strings.Contains(l, "writing events")
		info = info || strings.Contains(l, "[INFO]") && strings.Contains(l, "prof.jsonl") && strings.Contains(l, "wrote events")
	}
	if !debug || !info {
		t.Errorf("the plugin's debug (%v) and info (%v) lines are not in the job's output\n%v", debug, info, j)
	}
}
