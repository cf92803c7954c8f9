package prof_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/components/prof/stats"
	"github.com/gompi/gompi/internal/jobtest"
)

// TestReportsInGompirunsDir: the ranks of partsjob work in another
// directory than gompirun's, and the stats and trace reports, by their
// default names, land in gompirun's, which names them when the job ends.
func TestReportsInGompirunsDir(t *testing.T) {
	here, elsewhere := t.TempDir(), t.TempDir()
	t.Chdir(here)
	j := jobtest.Run(t, gompirun, 150*time.Second, nil, "--timeout", "120", "-np", "3", "--oversubscribe",
		"--mca", "prof", "stats,trace", "-x", "PARTSJOB_CHDIR="+elsewhere, partsjob)
	if j.Code != 0 || strings.Count(j.Stdout, "ok rank") != 3 {
		t.Fatalf("job failed\n%v", j)
	}
	rep := readStats(t, here, "gompi-stats")
	for _, name := range []string{"gompi-stats." + rep.Job + ".txt", "gompi-stats." + rep.Job + ".json",
		"gompi-stats." + rep.Job + ".svg", "gompi-trace." + rep.Job + ".json"} {
		if _, err := os.Stat(filepath.Join(here, name)); err != nil {
			t.Errorf("%s is not in gompirun's directory: %v", name, err)
		}
		if !strings.Contains(j.Stderr, "gompirun: report written: "+name+"\n") {
			t.Errorf("gompirun does not name %s\n%v", name, j)
		}
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Errorf("the ranks' directory holds %v, want nothing", left)
	}
	if rep.Ranks != 3 || len(rep.Missing) != 0 || len(rep.Total.Tasks) != 3 {
		t.Errorf("%d ranks, missing %v, %d tasks; want 3, none, 3", rep.Ranks, rep.Missing, len(rep.Total.Tasks))
	}
}

// TestFailedJobReports: rank 2 of partsjob exits with an error once ranks
// 0 and 1 have submitted their parts at Finalize. gompirun still merges
// what it has: the stats report and the trace name rank 2 as missing and
// hold exactly what ranks 0 and 1 did.
func TestFailedJobReports(t *testing.T) {
	dir := t.TempDir()
	prefix, tracePath := filepath.Join(dir, "stats"), filepath.Join(dir, "trace.json")
	j := jobtest.Run(t, gompirun, 150*time.Second, nil, "--timeout", "120", "-np", "3", "--oversubscribe",
		"--mca", "prof", "stats,trace", "--mca", "prof_stats_output", prefix, "--mca", "prof_trace_output", tracePath,
		"-x", "PARTSJOB_DIE=2", "-x", "PARTSJOB_TOOLS=stats,trace", partsjob)
	if j.Code == 0 || !strings.Contains(j.Stderr, "partsjob: rank 2 fails on purpose") {
		t.Fatalf("the job did not fail as planned\n%v", j)
	}
	for _, tool := range []string{"stats", "trace"} {
		if !strings.Contains(j.Stderr, "gompirun: prof "+tool+": no part from rank 2,") {
			t.Errorf("gompirun does not say that rank 2's %s part is missing\n%v", tool, j)
		}
	}
	rep := readStats(t, dir, "stats")
	for _, f := range []string{prefix + "." + rep.Job + ".txt", prefix + "." + rep.Job + ".json", tracePath} {
		if !strings.Contains(j.Stderr, "gompirun: report written: "+f+"\n") {
			t.Errorf("gompirun does not name %s\n%v", f, j)
		}
	}
	checkPartialStats(t, rep)
	if txt, err := os.ReadFile(prefix + "." + rep.Job + ".txt"); err != nil || !strings.Contains(string(txt), "@ Missing : rank 2:") {
		t.Errorf("the text report does not name rank 2 as missing (%v):\n%s", err, txt)
	}
	checkPartialTrace(t, tracePath)
}

// TestAbortedJobSaysNoReport: rank 1 of partsjob aborts and the others
// are killed before Finalize, so no rank submits a part: gompirun says,
// for each tool the job ran, that there is no report and why.
func TestAbortedJobSaysNoReport(t *testing.T) {
	t.Chdir(t.TempDir())
	j := jobtest.Run(t, gompirun, 150*time.Second, nil, "--timeout", "120", "-np", "3", "--oversubscribe",
		"--mca", "prof", "stats,trace", "-x", "PARTSJOB_ABORT=1", partsjob)
	if j.Code == 0 || !strings.Contains(j.Stderr, "partsjob: rank 1 aborts on purpose") {
		t.Fatalf("the job did not abort as planned\n%v", j)
	}
	for _, tool := range []string{"stats", "trace"} {
		if !strings.Contains(j.Stderr, "gompirun: prof "+tool+": no report: no rank finished Finalize\n") {
			t.Errorf("gompirun does not say that %s has no report\n%v", tool, j)
		}
	}
	if strings.Contains(j.Stderr, "report written") {
		t.Errorf("a report was written\n%v", j)
	}
}

// readStats reads the one stats JSON report named prefix.<job>.json in dir.
func readStats(t *testing.T, dir, prefix string) stats.Report {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, prefix+".*.json"))
	if len(files) != 1 {
		t.Fatalf("stats JSON reports in %s: %v, want one", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep stats.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if filepath.Base(files[0]) != prefix+"."+rep.Job+".json" {
		t.Fatalf("%s holds the report of job %q", files[0], rep.Job)
	}
	return rep
}

func checkPartialStats(t *testing.T, rep stats.Report) {
	t.Helper()
	if rep.Ranks != 3 || fmt.Sprint(rep.Missing) != "[2]" {
		t.Errorf("%d ranks, missing %v; want 3, [2]", rep.Ranks, rep.Missing)
	}
	tot := rep.Total
	var tasks []int
	for _, tt := range tot.Tasks {
		tasks = append(tasks, tt.Rank)
	}
	if fmt.Sprint(tasks) != "[0 1]" {
		t.Errorf("tasks of ranks %v, want [0 1]", tasks)
	}
	funcs := map[string]string{}
	for _, f := range tot.Functions {
		funcs[f.Name] = fmt.Sprintf("%d calls %d bytes", f.Calls, f.Bytes)
	}
	// Rank 0: a Send of 100 bytes, 3 Recvs of 10; rank 1: a Recv of 100,
	// 2 Sends of 50; each an Allreduce of 8 bytes to 2 others.
	want := map[string]string{"Send": "3 calls 200 bytes", "Recv": "4 calls 130 bytes", "Allreduce": "2 calls 32 bytes"}
	if fmt.Sprint(funcs) != fmt.Sprint(want) {
		t.Errorf("functions %v, want %v", funcs, want)
	}
	checkMatrix := func(name string, got, want [][]int64) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
	checkMatrix("p2p messages", tot.P2P.Messages, [][]int64{{0, 1, 0}, {0, 0, 2}, {0, 0, 0}})
	checkMatrix("p2p bytes", tot.P2P.Bytes, [][]int64{{0, 100, 0}, {0, 0, 100}, {0, 0, 0}})
	checkMatrix("coll messages", tot.Coll.Messages, [][]int64{{0, 1, 1}, {1, 0, 1}, {0, 0, 0}})
	checkMatrix("coll bytes", tot.Coll.Bytes, [][]int64{{0, 8, 8}, {8, 0, 8}, {0, 0, 0}})
}

func checkPartialTrace(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Pid  int            `json:"pid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		OtherData map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got := fmt.Sprint(file.OtherData["missing_ranks"]); got != "[2]" {
		t.Errorf("otherData missing_ranks %s, want [2]", got)
	}
	calls := map[int]map[string]int{0: {}, 1: {}, 2: {}}
	arrows := map[string]int{}
	var label2 string
	for _, e := range file.TraceEvents {
		switch {
		case e.Ph == "X" && (e.Name == "MPI_Send" || e.Name == "MPI_Recv" || e.Name == "MPI_Allreduce"):
			calls[e.Pid][e.Name]++
		case e.Ph == "s" || e.Ph == "f":
			arrows[fmt.Sprintf("%s on %d", e.Ph, e.Pid)]++
		case e.Ph == "M" && e.Name == "process_labels" && e.Pid == 2:
			label2 = fmt.Sprint(e.Args["labels"])
		}
	}
	want := map[int]map[string]int{
		0: {"MPI_Send": 1, "MPI_Recv": 3, "MPI_Allreduce": 1},
		1: {"MPI_Recv": 1, "MPI_Send": 2, "MPI_Allreduce": 1},
		2: {},
	}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("calls by rank %v, want %v", calls, want)
	}
	// Only 0 -> 1 has both ends; those to and from rank 2 have one.
	if fmt.Sprint(arrows) != "map[f on 1:1 s on 0:1]" || file.OtherData["unmatched_arrow_ends"] != 5.0 {
		t.Errorf("arrow ends %v, %v unmatched; want one arrow from 0 to 1, 5 unmatched", arrows, file.OtherData["unmatched_arrow_ends"])
	}
	if !strings.HasPrefix(label2, "missing") {
		t.Errorf("rank 2's label %q does not say it is missing", label2)
	}
}
