package stats_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/components/prof/stats"
	"github.com/gompi/gompi/internal/jobtest"
)

// TestJob runs statsprog, whose traffic is known exactly, on 3 ranks
// under gompirun --mca prof stats and checks the report gompirun writes:
// counts and bytes per function, per call site (by the program's line
// numbers) and per pair of ranks, in each phase and in the whole run.
func TestJob(t *testing.T) {
	base, rep := runJob(t, "statsprog")
	lines := siteLines(t, "testdata/statsprog/main.go")
	checkReport(t, rep, lines)
	checkSVG(t, base+".svg")
	if txt, err := os.ReadFile(base + ".txt"); err != nil || !strings.Contains(string(txt), "Whole run") {
		t.Errorf("text report: %v\n%s", err, txt)
	}
}

// TestJobProcNull runs haloprog, a halo exchange on a line of 3 ranks
// whose ends send to and receive from ProcNull, and checks that those
// calls count as calls but move no bytes: in the functions, the call
// sites and the p2p matrix.
func TestJobProcNull(t *testing.T) {
	_, rep := runJob(t, "haloprog")
	ph := rep.Total
	// Every rank makes 2 Sendrecv, 2 Isend, 2 Irecv, 1 Send and 1 Recv;
	// of the Sendrecv's and the Isend's, 4 reach a rank (0 to 1, 1 to 0,
	// 1 to 2, 2 to 1).
	checkFuncs(t, "total", ph, map[string]expect{
		"Sendrecv": {"", 6, 4 * 80, 0}, "Isend": {"", 6, 4 * 16, 0}, "Irecv": {"", 6, 4 * 16, 0},
		"Waitall": {"", 3, 0, 0}, "Send": {"", 3, 0, 0}, "Recv": {"", 3, 0, 0},
	})
	var siteBytes int64
	var bySite []string
	for _, s := range ph.Sites {
		siteBytes += s.Bytes
		bySite = append(bySite, fmt.Sprintf("%s at line %d: %d", s.Name, s.Line, s.Bytes))
	}
	if want := int64(4*80 + 2*4*16); siteBytes != want {
		t.Errorf("call sites: %d bytes in all, want %d: %v", siteBytes, want, bySite)
	}
	msgs := [][]int64{{0, 2, 0}, {2, 0, 2}, {0, 2, 0}}
	bytes := [][]int64{{0, 96, 0}, {96, 0, 96}, {0, 96, 0}}
	checkMatrix(t, "total p2p", ph.P2P, msgs, bytes)
}

// runJob builds prog (a directory of testdata) and gompirun, runs prog on
// 3 ranks under --mca prof stats, checks that gompirun wrote and named
// the three report files, and returns their path without the extension,
// and the JSON report.
func runJob(t *testing.T, prog string) (string, *stats.Report) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a job")
	}
	dir := t.TempDir()
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../../cmd/gompirun", prog: "./testdata/" + prog})
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "out", "stats")
	if err := os.Mkdir(filepath.Dir(prefix), 0o755); err != nil {
		t.Fatal(err)
	}
	j := jobtest.Run(t, bins["gompirun"], 150*time.Second, nil, "--timeout", "120", "-np", "3", "--oversubscribe",
		"--mca", "prof", "stats", "--mca", "prof_stats_output", prefix, bins[prog])
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	files, _ := filepath.Glob(prefix + ".*")
	want := map[string]bool{".txt": true, ".json": true, ".svg": true}
	if len(files) != 3 {
		t.Fatalf("report files %v, want a .txt, a .json and an .svg", files)
	}
	for _, f := range files {
		if !want[filepath.Ext(f)] || !strings.Contains(j.Stderr, "gompirun: report written: "+f+"\n") {
			t.Errorf("%s: unexpected, or gompirun did not name it at the end\n%s", f, j.Stderr)
		}
	}
	base := strings.TrimSuffix(files[0], filepath.Ext(files[0]))
	var rep stats.Report
	data, err := os.ReadFile(base + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Job == "" || base != prefix+"."+rep.Job {
		t.Errorf("job %q, files named %s.*", rep.Job, base)
	}
	return base, &rep
}

// siteLines finds the lines of the "site:" marks in the program.
func siteLines(t *testing.T, path string) map[string]int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	re := regexp.MustCompile(`// site:(\w+)$`)
	lines := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			lines[m[1]] = n
		}
	}
	if len(lines) != 6 {
		t.Fatalf("found marks %v, want 6", lines)
	}
	return lines
}

// expect is a call site's or a function's counts.
type expect struct {
	fn           string
	calls, bytes int64
	ranks        int
}

func checkReport(t *testing.T, rep *stats.Report, lines map[string]int) {
	if rep.Ranks != 3 || len(rep.Phases) != 2 {
		t.Fatalf("%d ranks and %d phases, want 3 and 2", rep.Ranks, len(rep.Phases))
	}
	p1, p2 := rep.Phases[0], rep.Phases[1]
	if p1.EndedBy != "pcontrol" || p2.EndedBy != "finalize" {
		t.Errorf("phases ended by %q and %q", p1.EndedBy, p2.EndedBy)
	}
	phase1 := map[string]expect{
		"send100": {"Send", 5, 500, 1}, "recv100": {"Recv", 5, 500, 1},
		"split":   {"Comm_split", 3, 0, 3},
		"sendsub": {"Send", 3, 48, 1}, "recvsub": {"Recv", 3, 48, 1},
	}
	phase2 := map[string]expect{"allreduce": {"Allreduce", 6, 6 * 2 * 64, 3}}
	checkSites(t, "phase 1", p1, lines, phase1)
	checkSites(t, "phase 2", p2, lines, phase2)
	both := map[string]expect{}
	for k, v := range phase1 {
		both[k] = v
	}
	both["allreduce"] = phase2["allreduce"]
	checkSites(t, "total", rep.Total, lines, both)

	checkFuncs(t, "phase 1", p1, map[string]expect{"Send": {"", 8, 548, 0}, "Recv": {"", 8, 548, 0}, "Comm_split": {"", 3, 0, 0}})
	checkFuncs(t, "phase 2", p2, map[string]expect{"Allreduce": {"", 6, 768, 0}})

	// The uncounted traffic, rank 1 to 2 and a Barrier, must be absent.
	p2p := [][]int64{{0, 5, 0}, {0, 0, 0}, {0, 3, 0}}
	p2pBytes := [][]int64{{0, 500, 0}, {0, 0, 0}, {0, 48, 0}}
	zero := [][]int64{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}
	coll := [][]int64{{0, 2, 2}, {2, 0, 2}, {2, 2, 0}}
	collBytes := [][]int64{{0, 128, 128}, {128, 0, 128}, {128, 128, 0}}
	checkMatrix(t, "phase 1 p2p", p1.P2P, p2p, p2pBytes)
	checkMatrix(t, "phase 1 coll", p1.Coll, zero, zero)
	checkMatrix(t, "phase 2 p2p", p2.P2P, zero, zero)
	checkMatrix(t, "phase 2 coll", p2.Coll, coll, collBytes)
	checkMatrix(t, "total p2p", rep.Total.P2P, p2p, p2pBytes)
	checkMatrix(t, "total coll", rep.Total.Coll, coll, collBytes)

	ar := findSite(rep.Total, "Allreduce", lines["allreduce"])
	if ar == nil || ar.BytesSpread != (stats.Spread{Min: 256, Mean: 256, Max: 256}) {
		t.Errorf("Allreduce's bytes across ranks: %+v", ar)
	}
	for _, ph := range append(rep.Phases, rep.Total) {
		if len(ph.Tasks) != 3 || ph.Aggregate.MPISeconds <= 0 || ph.Aggregate.MPIPercent > 100 {
			t.Errorf("phase %d: tasks %+v, aggregate %+v", ph.Phase, ph.Tasks, ph.Aggregate)
		}
	}
}

func findSite(ph stats.PhaseReport, fn string, line int) *stats.SiteStat {
	for i, s := range ph.Sites {
		if s.Name == fn && s.Line == line && filepath.Base(s.File) == "main.go" {
			return &ph.Sites[i]
		}
	}
	return nil
}

func checkSites(t *testing.T, name string, ph stats.PhaseReport, lines map[string]int, want map[string]expect) {
	t.Helper()
	if len(ph.Sites) != len(want) {
		t.Errorf("%s: %d call sites, want %d: %+v", name, len(ph.Sites), len(want), ph.Sites)
	}
	for mark, w := range want {
		s := findSite(ph, w.fn, lines[mark])
		if s == nil {
			t.Errorf("%s: no %s site at line %d (%s)", name, w.fn, lines[mark], mark)
			continue
		}
		if s.Calls != w.calls || s.Bytes != w.bytes || s.Ranks != w.ranks || s.Caller != "main.run" {
			t.Errorf("%s: %s at line %d: %d calls, %d bytes, %d ranks, in %s; want %d, %d, %d, in main.run",
				name, w.fn, s.Line, s.Calls, s.Bytes, s.Ranks, s.Caller, w.calls, w.bytes, w.ranks)
		}
	}
}

func checkFuncs(t *testing.T, name string, ph stats.PhaseReport, want map[string]expect) {
	t.Helper()
	if len(ph.Functions) != len(want) {
		t.Errorf("%s: functions %+v, want %v", name, ph.Functions, want)
	}
	for _, f := range ph.Functions {
		if w, ok := want[f.Name]; !ok || f.Calls != w.calls || f.Bytes != w.bytes {
			t.Errorf("%s: %s: %d calls, %d bytes; want %+v", name, f.Name, f.Calls, f.Bytes, w)
		}
	}
}

func checkMatrix(t *testing.T, name string, m stats.Matrix, msgs, bytes [][]int64) {
	t.Helper()
	if fmt.Sprint(m.Messages) != fmt.Sprint(msgs) || fmt.Sprint(m.Bytes) != fmt.Sprint(bytes) {
		t.Errorf("%s: messages %v, bytes %v; want %v, %v", name, m.Messages, m.Bytes, msgs, bytes)
	}
}

// checkSVG checks the heatmap's structure: 3 ranks, both panels with
// bytes.
func checkSVG(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSVGLayout(t, data, 3, 2)
}

// TestJobModes runs modesprog on 3 ranks: the buffered, ready,
// persistent, partitioned, replace and matched calls count their bytes, a
// persistent or partitioned send counts at each Start, the topology
// constructors and Free count, and a send across an intercommunicator
// goes to the remote rank's world rank in the p2p matrix.
func TestJobModes(t *testing.T) {
	_, rep := runJob(t, "modesprog")
	ph := rep.Total
	want := map[string]expect{
		"Bsend": {"", 3, 3 * 80, 0}, "Rsend": {"", 3, 3 * 64, 0}, "Irecv": {"", 3, 3 * 64, 0},
		"Send_init": {"", 3, 0, 0}, "Recv_init": {"", 3, 0, 0},
		// 8 persistent sends and receives a rank, and 2 partitioned
		// sends of 24 bytes.
		"Start": {"", 3 * (8 + 2), 3 * (4*8 + 2*24), 0}, "Startall": {"", 3 * (2 + 2), 3 * 2 * 8, 0},
		"Psend_init": {"", 3, 0, 0}, "Precv_init": {"", 3, 0, 0}, "Pready_range": {"", 3 * 2, 0, 0},
		"Request_free": {"", 3 * 4, 0, 0}, "Sendrecv_replace": {"", 3, 3 * 32, 0},
		"Send": {"", 4, 3*5 + 7, 0}, "Mprobe": {"", 3, 0, 0}, "Mrecv": {"", 3, 3 * 5, 0},
		"Recv": {"", 4, 3*80 + 7, 0}, "Intercomm_create": {"", 3, 0, 0},
		"Cart_create": {"", 3, 0, 0}, "Cart_sub": {"", 3, 0, 0}, "Comm_free": {"", 3 * 2, 0, 0},
	}
	checkFunctions(t, ph, want)
	// Each rank sends its right neighbour 12 messages of 277 bytes in all;
	// rank 0 also sends 7 bytes to world rank 2 across the intercommunicator.
	msgs := [][]int64{{0, 12, 1}, {0, 0, 12}, {12, 0, 0}}
	bytes := [][]int64{{0, 277, 7}, {0, 0, 277}, {277, 0, 0}}
	checkMatrix(t, "total p2p", ph.P2P, msgs, bytes)
}

// checkFunctions checks the calls and bytes of the functions want names.
func checkFunctions(t *testing.T, ph stats.PhaseReport, want map[string]expect) {
	t.Helper()
	got := map[string]stats.FuncStat{}
	for _, f := range ph.Functions {
		got[f.Name] = f
	}
	for name, w := range want {
		f, ok := got[name]
		if !ok || f.Calls != w.calls || f.Bytes != w.bytes {
			t.Errorf("%s: %d calls, %d bytes (found %v); want %d and %d", name, f.Calls, f.Bytes, ok, w.calls, w.bytes)
		}
	}
}

// TestJobNonblocking runs nbcprog on 3 ranks: a non-blocking collective
// counts the blocking call's bytes at its start, a persistent one's Init
// its time only, an Alltoallw each block's bytes by its own datatype, and
// a neighbourhood collective the blocks each rank sends to its
// neighbours on a line, in the collective matrix too.
func TestJobNonblocking(t *testing.T) {
	_, rep := runJob(t, "nbcprog")
	ph := rep.Total
	want := map[string]expect{
		// Every rank sends its 64 bytes to the 2 others; the root its 16.
		"Iallreduce": {"", 3, 3 * 2 * 64, 0}, "Ibcast": {"", 3, 2 * 16, 0},
		"Allreduce_init": {"", 3, 0, 0}, "Start": {"", 3 * 2, 0, 0},
		// On the line 0-1-2, ranks 0 and 2 send to 1, rank 1 to both.
		"Neighbor_allgather": {"", 3, 4 * 32, 0}, "Ineighbor_alltoall": {"", 3, 4 * 24, 0},
		// Each rank sends rank j 8*(j+1) bytes, its own block aside; one
		// int64 to each neighbour on the line.
		"Alltoallw": {"", 3, (16 + 24) + (8 + 24) + (8 + 16), 0}, "Neighbor_alltoallw": {"", 3, 4 * 8, 0},
	}
	checkFunctions(t, ph, want)
	// Per call, one logical message to each other member: Iallreduce,
	// Ibcast, Alltoallw and the three neighbourhood calls (the Inits move
	// nothing, and Start counts no message).
	msgs := [][]int64{{0, 6, 6}, {6, 0, 6}, {6, 6, 0}}
	bytes := [][]int64{{0, 64 + 16 + 32 + 24 + 16 + 8, 64 + 16 + 24}, {64 + 32 + 24 + 8 + 8, 0, 64 + 32 + 24 + 24 + 8},
		{64 + 8, 64 + 32 + 24 + 16 + 8, 0}}
	checkMatrix(t, "total coll", ph.Coll, msgs, bytes)
}

// TestJobTypes runs typesprog on 3 ranks: a layout's constructor (a
// vector's, a darray's) counts as the type constructor and Type_commit,
// Pack and Unpack their bytes, the Info calls one each, and a send with
// the layout one Send.
func TestJobTypes(t *testing.T) {
	_, rep := runJob(t, "typesprog")
	want := map[string]expect{
		"Type_vector": {"", 3, 0, 0}, "Type_create_darray": {"", 3, 0, 0}, "Type_commit": {"", 3 * 2, 0, 0},
		"Type_dup": {"", 3, 0, 0}, "Type_free": {"", 3 * 3, 0, 0},
		"Pack": {"", 3, 3 * 32, 0}, "Unpack": {"", 3, 3 * 32, 0},
		"Send": {"", 3, 3 * 32, 0}, "Irecv": {"", 3, 3 * 32, 0},
		"Info_create": {"", 3, 0, 0}, "Info_set": {"", 3 * 2, 0, 0}, "Info_get_string": {"", 3, 0, 0}, "Info_free": {"", 3, 0, 0},
	}
	checkFunctions(t, rep.Total, want)
}

// TestJobComms runs commsprog on 3 ranks and checks the per-communicator
// table: the halves of a Split, named apart, and two Dups and an Idup of
// world each get their own row, apart from world's; the counts of the
// communicators freed before Finalize are in, under their names.
func TestJobComms(t *testing.T) {
	base, rep := runJob(t, "commsprog")
	want := map[string]stats.CommStat{
		"MPI_COMM_WORLD": {Ranks: 3, Calls: 3 * 5},
		"evens":          {Ranks: 2, Calls: 2 * 2, Bytes: 2 * 2 * 32, Freed: 2},
		"odds":           {Ranks: 1, Calls: 2, Freed: 1},
		"kept":           {Ranks: 3, Calls: 3 * 3},
		"idupped":        {Ranks: 3, Calls: 3},
		"freed":          {Ranks: 3, Calls: 3, Bytes: 2 * 16, Freed: 3},
	}
	got := map[string]stats.CommStat{}
	for _, c := range rep.Total.Comms {
		got[c.Name] = c
	}
	for name, w := range want {
		c := got[name]
		if c.Ranks != w.Ranks || c.Calls != w.Calls || c.Bytes != w.Bytes || c.Freed != w.Freed {
			t.Errorf("%s: %d ranks, %d calls, %d bytes, %d freed; want %d, %d, %d, %d",
				name, c.Ranks, c.Calls, c.Bytes, c.Freed, w.Ranks, w.Calls, w.Bytes, w.Freed)
		}
	}
	if len(got) != len(want) {
		t.Errorf("communicators %v, want those of %v", rep.Total.Comms, want)
	}
	txt, err := os.ReadFile(base + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*freed\s+3\s+3\s+[0-9.]+\s+32\s+3\s*$`).Match(txt) {
		t.Errorf("the text report has no row for the freed communicator:\n%s", txt)
	}
}
