package compare

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/bench/compare/across"
	"github.com/gompi/gompi/bench/table"
)

func TestReplaceSection(t *testing.T) {
	doc := "# Performance\n\nHand-written.\n"
	once, err := replaceSection(doc, "first\n")
	if err != nil || once != doc+"\n"+BeginMarker+"\nfirst\n"+EndMarker+"\n" {
		t.Fatalf("appending: %q %v", once, err)
	}
	twice, err := replaceSection(once+"After.\n", "second")
	if err != nil || twice != doc+"\n"+BeginMarker+"\nsecond\n"+EndMarker+"\nAfter.\n" {
		t.Fatalf("replacing: %q %v", twice, err)
	}
	for _, bad := range []string{EndMarker + BeginMarker, BeginMarker, BeginMarker + EndMarker + BeginMarker + EndMarker} {
		if _, err := replaceSection(bad, "x"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	path := filepath.Join(t.TempDir(), "performance.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateDoc(path, "third"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), doc) || !strings.Contains(string(b), "\nthird\n") {
		t.Errorf("file now %q", b)
	}
}

// fakeTable is a parsed table with the given rows.
func fakeTable(t *testing.T, transports string, rows string) *table.Table {
	t.Helper()
	tb, err := table.Parse(strings.NewReader("# t (Open MPI v4.1.4)\n# btl: self,tcp\n# unit: us: x\n# transports: " + transports + "\n# Size  Latency (us)\n" + rows))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func fakeResult(t *testing.T) *Result {
	sides := Sides(OpenMPI(), nil, nil, true)
	lat := Plans(true)[0]
	r := &Result{Plans: []Plan{lat}, Sides: sides, Reps: 3,
		tables: map[[2]string][]*table.Table{}, Commands: map[[2]string]string{}, Skipped: map[string][]string{},
		Crossings: map[string][]float64{lat.Key(): {61.4, 290.2, 58}}}
	add := func(label, transports string, rows ...string) {
		for _, rs := range rows {
			r.tables[[2]string{lat.Name, label}] = append(r.tables[[2]string{lat.Name, label}], fakeTable(t, transports, rs))
		}
		r.Commands[[2]string{lat.Name, label}] = label + " command"
	}
	add("gompi tcp", "0:self 1:tcp", "0 30\n1024 40\n", "0 20\n1024 50\n", "0 10\n1024 45\n")
	add("Open MPI tcp", "not reported", "0 10\n1024 20\n", "0 10\n1024 20\n", "0 10\n1024 20\n")
	add("gompi sm", "0:self 1:sm", "0 0.4\n1024 0.5\n", "0 0.2\n1024 3\n", "0 0.3\n1024 0.9\n")
	add("Open MPI sm", "not reported", "0 0.5\n1024 1\n", "0 0.5\n1024 1\n", "0 0.5\n1024 1\n")
	return r
}

func TestReport(t *testing.T) {
	r := fakeResult(t)
	rep := &Report{Result: r, Command: "make bench-compare QUICK=1", Started: time.Date(2026, 11, 22, 1, 2, 0, 0, time.UTC),
		Took: 90 * time.Second, Machine: Machine{CPUs: 2, Model: "AMD EPYC", Kernel: "Linux 6.1", Copy: 9876.5},
		Versions: []string{"gompi 0.1.0 built with go1.26.8"}, Notes: []string{"MPICH left out: no"}}
	md := rep.Summary("performance-tables.md")
	for _, want := range []string{
		"- Command: `make bench-compare QUICK=1`, 3 repetitions, 1m30s in all",
		"- Date: 2026-11-22 01:02 UTC",
		"- Machine: 2 CPUs (AMD EPYC), Linux 6.1, copies 4 MiB at 9876 MB/s (Go's copy between two reused buffers)",
		"- Note: MPICH left out: no",
		"| gompi sm | `--mca btl self,sm`: gompi over shared memory between ranks |",
		"- State: a cache line crossed between the CPUs in 58-290 ns before a plan's turn, 61 in the median",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	tables := rep.Tables("performance.md")
	for _, want := range []string{
		"| size | gompi tcp | Open MPI tcp | gompi tcp / Open MPI tcp | gompi sm | Open MPI sm | gompi sm / Open MPI sm |",
		"| 0 | 20.0 | 10.0 | 2.00 | 0.30 | 0.50 | 0.60 |",     // medians, and their ratios
		"| 1 KiB | 45.0 | 20.0 | 2.25 | 0.90 | 1.00 | 0.90 |", // 1 KiB keys print in binary units
		"gompi tcp command\nOpen MPI tcp command\ngompi sm command\nOpen MPI sm command\n",
		", 2 ranks.\nA cache line crossed between the CPUs in 61, 290, 58 ns before its turns.\n",
	} {
		if !strings.Contains(tables, want) {
			t.Errorf("tables lack %q:\n%s", want, tables)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "2.25") || !strings.Contains(text.String(), "9876 MB/s") ||
		!strings.Contains(text.String(), "crossed between the CPUs in 61, 290, 58 ns") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	dir := t.TempDir()
	files, err := r.Plot(dir)
	if err != nil || len(files) != 1 || files[0] != "perf-latency.svg" {
		t.Fatalf("plots %v, %v", files, err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, files[0]))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("gompi sm")) {
		t.Errorf("plot: %v, %.200s", err, svg)
	}
}

// TestSummaryAndTables splits a report in two: the summary keeps the
// header, sides, goals and plots and links to the tables; the tables hold
// every plan, size by size, and link back to the summary's heading.
func TestSummaryAndTables(t *testing.T) {
	r := fakeResult(t)
	plans := Plans(true)
	r.Plans = append(r.Plans, plans[1], plan(t, plans, "allreduce-2"), plan(t, plans, "allreduce-2-cold20"))
	rep := &Report{Result: r, Started: time.Date(2026, 11, 22, 1, 2, 0, 0, time.UTC),
		PlotFiles: []string{"perf-latency.svg"}, Verdicts: r.Check(Goals(), 6000)}
	summary, tables := rep.Summary("performance-tables.md"), rep.Tables("performance.md")

	for _, want := range []string{
		"## Side by side with Open MPI and MPICH (generated)\n",
		"are in [performance-tables.md](performance-tables.md).",
		"| side | what it is |",
		"| goal | worst figure | by turn | verdict |",
		"| latency gompi sm / Open MPI sm 0 to 1 KiB: <= 1.0 | worst 0.90 ratio at 1 KiB | 0.50-3.00, 1 of 3 above 1 | met |",
		"![latency](perf-latency.svg)",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	for _, notThere := range []string{"| size |", "| ranks |", "Commands", "gompi sm command", "Flags `"} {
		if strings.Contains(summary, notThere) {
			t.Errorf("summary holds a plan's table (%q):\n%s", notThere, summary)
		}
	}
	// The summary ends with its plots: UpdateDoc puts the end marker after.
	if !strings.HasSuffix(summary, "![latency](perf-latency.svg)\n") {
		t.Errorf("summary does not end with its plots:\n%s", summary)
	}

	link := "[its summary](performance.md#side-by-side-with-open-mpi-and-mpich-generated)"
	if !strings.HasPrefix(tables, "# Performance tables (generated)\n\nWritten by `make bench-compare` (bench/compare) on 2026-11-22 01:02 UTC with "+link+"; do not edit this page by hand.\n") {
		t.Errorf("tables' header:\n%.400s", tables)
	}
	for _, p := range r.Plans {
		head := "\n## " + p.Key() + "\n\n" + p.Title + ". Flags `" + strings.Join(p.Args, " ") + "`"
		if !strings.Contains(tables, head) {
			t.Errorf("tables lack plan %s (%q)", p.Key(), head)
		}
	}
	if n := strings.Count(tables, "<summary>Commands</summary>"); n != len(r.Plans) {
		t.Errorf("%d command lists for %d plans", n, len(r.Plans))
	}
	// The tables' page lists only the goals the summary sums up by kind.
	byPlan, grouped, _ := strings.Cut(tables, "\n## "+groupsHeading+"\n")
	if strings.Contains(byPlan, "| goal |") || strings.Contains(tables, "![") || strings.Contains(grouped, "| latency gompi sm /") {
		t.Errorf("tables hold the goals or a plot:\n%s", tables)
	}
}

// TestAnchor checks the tables' link back against GitHub's rule for a
// heading's fragment.
func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		summaryHeading:                "side-by-side-with-open-mpi-and-mpich-generated",
		"Where gompi stands, and why": "where-gompi-stands-and-why",
		"bench_compare: a-b (c)":      "bench_compare-a-b-c",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestVerify(t *testing.T) {
	r := fakeResult(t)
	gompi, ompi := r.Sides[0], r.Sides[1]
	lat := r.Plans[0]
	good := fakeTable(t, "0:self 1:tcp", "0 1\n")
	sm := fakeTable(t, "0:self 1:sm", "0 1\n")
	sm.Fields["btl"] = "self,sm"
	if err := r.Sides[2].verify(lat, sm, nil); err != nil {
		t.Errorf("gompi sm: %v", err)
	}
	if err := gompi.verify(lat, good, nil); err != nil {
		t.Errorf("good table: %v", err)
	}
	sm0 := fakeTable(t, "0:self 1:sm", "0 1\n") // its btl line says self,tcp
	for name, c := range map[string]struct {
		side      *Side
		tb, first *table.Table
		want      string
	}{
		"wrong transport": {side: gompi, tb: fakeTable(t, "0:self 1:sm", "0 1\n"), want: "1 ran over sm, not tcp"},
		"no transports":   {side: gompi, tb: fakeTable(t, "unknown", "0 1\n"), want: "no transports"},
		"other rows":      {side: gompi, tb: good, first: fakeTable(t, "0:self 1:tcp", "0 1\n8 1\n"), want: "differ from the first"},
		"wrong btl":       {side: r.Sides[3], tb: good, want: `btl is "self,tcp", not "self,vader"`},
		"sm over tcp":     {side: r.Sides[2], tb: good, want: "1 ran over tcp, not sm"},
		"gompi's btl":     {side: r.Sides[2], tb: sm0, want: `btl is "self,tcp", not "self,sm"`},
	} {
		if err := c.side.verify(lat, c.tb, c.first); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if err := ompi.verify(lat, good, nil); err != nil {
		t.Errorf("Open MPI tcp: %v", err)
	}
}

func TestVersionLine(t *testing.T) {
	for out, want := range map[string]string{
		"mpirun.openmpi (OpenRTE) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n":      "mpirun.openmpi (OpenRTE) 4.1.4",
		"HYDRA build details:\n    Version:                                 4.0.2\n    Release Date: x\n": "Version: 4.0.2",
		"something else\nsecond\n": "something else",
	} {
		if got := versionLine(out); got != want {
			t.Errorf("versionLine(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestParseComponents(t *testing.T) {
	out := `package:gompi:0.1.0
framework:btl:api:1.0.0
mca:btl:self:version:component:1.0.0
mca:btl:self:status:available
mca:btl:tcp:version:component:1.0.0
mca:btl:tcp:param:btl_tcp_eager_limit:value:65536
mca:btl:sm:status:excluded
mca:btl:base:param:btl:value:
mca:coll:basic:status:available
`
	btls := parseComponents(out, "btl")
	if want := []Component{{"self", "available", ""}, {"tcp", "", ""}, {"sm", "excluded", ""}}; !slices.Equal(btls, want) {
		t.Errorf("btl: %v, want %v", btls, want)
	}
	if got := parseComponents(out, "coll"); !slices.Equal(got, []Component{{"basic", "available", ""}}) {
		t.Errorf("coll: %v", got)
	}
	if got := parseComponents("mca:btl\nmca:btl::x\n", "btl"); got != nil {
		t.Errorf("malformed records: %v", got)
	}
	// An excluded component is one a selection left out: naming it selects it.
	if ok, why := Usable(btls, "btl", "sm"); !ok {
		t.Errorf("sm excluded: %s", why)
	}
	if ok, why := Usable(btls[:2], "btl", "sm"); ok || why != "this build of gompi has no sm btl (it has self, tcp)" {
		t.Errorf("no sm: %v %q", ok, why)
	}
	refused := parseComponents("mca:btl:sm:status:refused\nmca:btl:sm:refused:no /dev/shm: it is not mounted\n", "btl")
	if ok, why := Usable(refused, "btl", "sm"); ok || why != "gompi's sm btl refuses to open here: no /dev/shm: it is not mounted" {
		t.Errorf("sm refused: %v %q", ok, why)
	}
	if _, err := Components(context.Background(), filepath.Join(t.TempDir(), "gompi_info"), "btl"); err == nil ||
		!strings.Contains(err.Error(), "listing gompi's btl components") {
		t.Errorf("a missing gompi_info: %v", err)
	}
}

func TestGoals(t *testing.T) {
	r := fakeResult(t)
	bw := plan(t, Plans(true), "bw")
	r.Plans = append(r.Plans, bw, plan(t, Plans(true), "multi-lat")) // multi-lat did not run on any side
	add := func(label string, rows string) {
		r.tables[[2]string{bw.Name, label}] = append(r.tables[[2]string{bw.Name, label}], fakeTable(t, "x", rows))
	}
	add("gompi sm", "65536 900\n4194304 2000\n")
	add("Open MPI sm", "65536 1000\n4194304 1500\n")
	got := slices.DeleteFunc(r.Check(Goals(), 6000), func(v Verdict) bool { return v.Side == GompiCLabel })
	// The latency goal is met on the medians though one of the three
	// turns missed it: the run-by-run column says so.
	want := []struct{ status, goal, detail, runs string }{
		{"met", "latency gompi sm / Open MPI sm 0 to 1 KiB: <= 1.0", "worst 0.90 ratio at 1 KiB", "0.50-3.00, 1 of 3 above 1"},
		{"not measured", "latency gompi sm / MPICH 4 KiB to 8 KiB: <= 1.0", "MPICH did not run", "-"},
		{"not measured", "latency gompi tcp / Open MPI tcp 128 KiB to 4 MiB: <= 1.0", "no size in range was measured", "-"},
		{"not measured", "bw gompi tcp / Open MPI tcp 128 KiB to 4 MiB: >= 1.0", "no size in range was measured", "-"},
		{"missed", "bw gompi sm / Open MPI sm 64 KiB to 4 MiB: >= 1.0", "worst 0.90 ratio at 64 KiB", "0.90-0.90, 1 of 1 below 1"},
		{"missed", "bw gompi sm / half the copy bandwidth (3000 MB/s) at 4 MiB: >= 1.0", "worst 0.67 of half the copy bandwidth at 4 MiB", "0.67-0.67, 1 of 1 below 1"},
		{"not measured", "multi-lat gompi sm / Open MPI sm every size: <= 1.0", "no size in range was measured", "-"},
	}
	if len(got) != len(want) {
		t.Fatalf("verdicts %+v", got)
	}
	for i, w := range want {
		if g := got[i]; g.status() != w.status || g.Goal != w.goal || g.detail() != w.detail || g.byTurn() != w.runs {
			t.Errorf("verdict %d: %s | %s | %s | %s\nwant %s | %s | %s | %s", i, g.status(), g.Goal, g.detail(), g.byTurn(),
				w.status, w.goal, w.detail, w.runs)
		}
	}
	if v := r.Check(Goals(), 0); v[5].Absent != "the copy bandwidth was not measured" {
		t.Errorf("no copy bandwidth: %+v", v[5])
	}
	r.Sides = Sides(OpenMPI(), nil, nil, false)
	if v := r.Check(Goals(), 6000); v[0].status() != "not measured" || v[0].Absent != "gompi sm did not run" {
		t.Errorf("without gompi sm: %+v", v[0])
	}
	rep := &Report{Result: r, Verdicts: got}
	if md := rep.Summary("t.md"); !strings.Contains(md, "| bw gompi sm / Open MPI sm 64 KiB to 4 MiB: >= 1.0 | worst 0.90 ratio at 64 KiB | 0.90-0.90, 1 of 1 below 1 | missed |") {
		t.Errorf("summary lacks the goals:\n%s", md)
	}
}

func TestCopyBandwidth(t *testing.T) {
	if c := CopyBandwidth(); !(c > 0) || math.IsInf(c, 0) {
		t.Errorf("copy bandwidth %v MB/s", c)
	}
}

// TestCollectiveRun runs two collective plans through Run with fake
// launchers that print a table and log their command lines: only the
// shared-memory sides run them, and the reports show only their columns.
func TestCollectiveRun(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	// Prints the btl it was given and, for barrier, one row keyed by 2.
	script := `#!/bin/sh
echo "$0 $*" >> ` + log + `
btl= prev=
for a in "$@"; do [ "$prev" = btl ] && btl=$a; prev=$a; done
printf '# fake (Open MPI, MPICH, libmpi_abi)\n# btl: %s\n# unit: us: x\n# transports: 0:self 1:sm\n' "${btl:-default}"
case "$*" in
*barrier*) printf '# Ranks  Avg Latency (us)\n2 %s\n' "$VALUE" ;;
*) printf '# Size  Avg Latency (us)\n4 %s\n64 3\n' "$VALUE" ;;
esac
`
	fake := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ompi, mpich := OpenMPI(), MPICH()
	ompi.Run, mpich.Run = fake("mpirun"), fake("mpiexec")
	gompiC := fakeGompiC(t, fake("gompirun"))
	plans := Plans(true)
	allreduce, barrier := plan(t, plans, "allreduce-2"), plan(t, plans, "barrier-2")
	var progress bytes.Buffer
	// The machine's state before each plan's turn: 100, 200, 300 ns,
	// then a failure, which ends the measuring.
	crossings := 0
	crossing := func() (float64, error) {
		if crossings++; crossings > 3 {
			return 0, errors.New("no second CPU")
		}
		return float64(100 * crossings), nil
	}
	r, err := Run(context.Background(), Config{
		Plans: []Plan{allreduce, barrier}, Sides: Sides(ompi, mpich, gompiC, true), Reps: 2, Timeout: time.Minute,
		Paths: Paths{Gompirun: fake("gompirun"), Bench: "gompi-bench", Build: "build"},
		Env:   append(os.Environ(), "VALUE=2"), Log: &progress, Crossing: crossing,
	})
	if err != nil {
		t.Fatal(err)
	}
	if crossings != 4 || !slices.Equal(r.Crossings["allreduce-2"], []float64{100, 300}) || !slices.Equal(r.Crossings["barrier-2"], []float64{200}) ||
		!strings.Contains(progress.String(), "the machine's state is not measured: no second CPU\n") {
		t.Errorf("%d crossings measured, by plan %v; progress:\n%s", crossings, r.Crossings, progress.String())
	}
	b, _ := os.ReadFile(log)
	runs := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(runs) != 2*2*4 || strings.Contains(string(b), "tcp") {
		t.Errorf("%d runs, want 16 (2 plans, 2 repetitions, 4 sides), none over tcp:\n%s", len(runs), b)
	}
	if len(r.Skipped) != 0 {
		t.Errorf("notes on sides not in the plan: %v", r.Skipped)
	}
	rep := &Report{Result: r, Verdicts: r.Check(Goals(), 0)}
	md := rep.Summary("t.md") + rep.Tables("p.md")
	for _, want := range []string{
		"| size | gompi sm | gompi C | gompi C / gompi sm | Open MPI sm | gompi sm / Open MPI sm | MPICH |\n|---|---|---|---|---|---|---|\n" +
			"| 4 | 2.00 | 2.00 | 1.00 | 2.00 | 1.00 | 2.00 |",
		"| ranks | gompi sm | gompi C | gompi C / gompi sm | Open MPI sm | gompi sm / Open MPI sm | MPICH |\n|---|---|---|---|---|---|---|\n" +
			"| 2 | 2.00 | 2.00 | 1.00 | 2.00 | 1.00 | 2.00 |",
		"| gompi C / gompi sm: <= 1.05 for a time, >= 0.95 for a bandwidth | 2 | 2 |  |",
		"| allreduce-2 gompi C / Open MPI sm every size: <= 1.0 | worst 1.00 ratio at 4 | 1.00-1.00, 0 of 2 above 1 | met |",
		"| allreduce-2 gompi sm / Open MPI sm every size: <= 1.0 | worst 1.00 ratio at 4 | 1.00-1.00, 0 of 2 above 1 | met |",
		"| barrier-2 gompi sm / Open MPI sm every size: <= 1.0 | worst 1.00 ratio at 2 | 1.00-1.00, 0 of 2 above 1 | met |",
		"The collectives ran on the shared-memory sides only (gompi sm, gompi C, Open MPI sm, MPICH), each library",
		"- State: a cache line crossed between the CPUs in 100-300 ns before a plan's turn, 200 in the median",
		"\nA cache line crossed between the CPUs in 200 ns before its turns.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| size | gompi tcp") || strings.Contains(md, "| ranks | gompi tcp") {
		t.Errorf("a tcp column in a collective's table:\n%s", md)
	}
	files, err := r.Plot(dir)
	if err != nil || len(files) != 0 {
		t.Errorf("plots %v, %v: allreduce-2 and barrier-2 are not plotted", files, err)
	}
	// At 8 ranks allreduce is drawn.
	r.Plans = []Plan{plan(t, plans, "allreduce-8")}
	r.tables[[2]string{"allreduce-8", "gompi sm"}] = r.tables[[2]string{"allreduce-2", "gompi sm"}]
	if files, err := r.Plot(dir); err != nil || !slices.Equal(files, []string{"perf-allreduce.svg"}) {
		t.Errorf("plots %v, %v", files, err)
	}
}

// TestTurns pairs each repetition with the reference's of the same turn,
// and leaves out a turn that the reference lacks.
func TestTurns(t *testing.T) {
	r := fakeResult(t)
	lat := r.Plans[0]
	gsm, osm := r.Sides[2], r.Sides[3]
	if gsm.Label != "gompi sm" || osm.Label != "Open MPI sm" {
		t.Fatalf("sides %s, %s", gsm.Label, osm.Label)
	}
	if got := r.turns(Goal{}, lat, gsm, osm, 0, 0); got != "0.40-0.80, 0 of 3 above 1" {
		t.Errorf("three turns: %q", got)
	}
	key := [2]string{lat.Name, osm.Label}
	r.tables[key] = r.tables[key][:2] // Open MPI's third run failed
	if got := r.turns(Goal{}, lat, gsm, osm, 1024, 0); got != "0.50-3.00, 1 of 2 above 1" {
		t.Errorf("two turns: %q", got)
	}
	if got := r.turns(Goal{}, lat, gsm, osm, 7, 0); got != "" {
		t.Errorf("a size no run measured: %q", got)
	}
}

// acrossHosts is a measurement across hosts of two rounds: gompi beats
// Open MPI's latency in one round and MPICH's in none; MPICH's bandwidth
// failed.
func acrossHosts() *AcrossHosts {
	res := &across.Results{Rounds: 2, Hosts: 8,
		Libraries: []across.Library{{Name: "gompi", About: "gompirun"}, {Name: "Open MPI", About: "mpirun"}, {Name: "MPICH", About: "Hydra"}},
		Measures: []across.Measure{{Name: "latency 8 B", Unit: "us", Setup: "h1 and h2: latency -s 8"},
			{Name: "bandwidth 1 MiB", Unit: "MB/s", Higher: true, Setup: "h1 and h2: bw -s 1048576"}},
		Runs: []across.Run{
			{Measure: "latency 8 B", Library: "gompi", Round: 1, Value: 12.7}, {Measure: "latency 8 B", Library: "Open MPI", Round: 1, Value: 12.9},
			{Measure: "latency 8 B", Library: "MPICH", Round: 1, Value: 12.3}, {Measure: "latency 8 B", Library: "gompi", Round: 2, Value: 13.1},
			{Measure: "latency 8 B", Library: "Open MPI", Round: 2, Value: 13.3}, {Measure: "latency 8 B", Library: "MPICH", Round: 2, Value: 12.5},
			{Measure: "bandwidth 1 MiB", Library: "gompi", Round: 1, Value: 1500}, {Measure: "bandwidth 1 MiB", Library: "Open MPI", Round: 1, Value: 1200},
			{Measure: "bandwidth 1 MiB", Library: "MPICH", Round: 1, Error: "did not finish within 1m0s\nmore"},
			{Measure: "bandwidth 1 MiB", Library: "gompi", Round: 2, Value: 1400}, {Measure: "bandwidth 1 MiB", Library: "Open MPI", Round: 2, Value: 1450},
			{Measure: "launch 8 hosts", Library: "gompi", Round: 1, Error: "exit status 1"}, {Measure: "launch 8 hosts", Library: "MPICH", Round: 1, Value: 350},
		}}
	res.Measures = append(res.Measures, across.Measure{Name: "launch 8 hosts", Unit: "ms", Setup: "h1 to h8"})
	return &AcrossHosts{Command: "go test ./test/multihost -args -measure-json FILE", Started: time.Date(2026, 11, 22, 2, 3, 0, 0, time.UTC),
		Took: 125 * time.Second, Results: res}
}

// TestAcrossSummary: the summary ends with the subsection across hosts:
// its command and rounds, each measure's medians, gompi's ratio to the
// better other and the verdict on its goal, round by round too; the
// tables' page has every run.
func TestAcrossSummary(t *testing.T) {
	rep := &Report{Result: fakeResult(t), Command: "make bench-compare", Started: time.Date(2026, 11, 22, 1, 2, 0, 0, time.UTC),
		Verdicts: nil, Across: acrossHosts()}
	summary := rep.Summary("performance-tables.md")
	for _, want := range []string{
		"\n### Across simulated hosts\n\n- Command: `go test ./test/multihost -args -measure-json FILE` (run by bench/compare from the repository's root; FILE is where the runs go, as JSON), 2 rounds, 2m5s\n- Date: 2026-11-22 02:03 UTC\n",
		"builds 8 simulated hosts",
		"Every run's figure is in [performance-tables.md](performance-tables.md#across-hosts).",
		"In each of 2 rounds the libraries took turns at each measure (gompi, Open MPI, MPICH)",
		"| library | how it runs |\n|---|---|\n| gompi | gompirun |\n",
		"| measure | where | gompi | Open MPI | MPICH | gompi / better | goal | by turn | verdict |\n|---|---|---|---|---|---|---|---|---|\n",
		// Medians 12.9, 13.1, 12.4: MPICH is the better, in both rounds.
		"| latency 8 B (us) | h1 and h2: latency -s 8 | 12.9 | 13.1 | 12.4 | 1.04 (MPICH) | <= 1.0 | 1.03-1.05, 2 of 2 above 1 | missed |\n",
		// MPICH has no figure: Open MPI is the better, 1450 against 1325.
		"| bandwidth 1 MiB (MB/s) | h1 and h2: bw -s 1048576 | 1450 | 1325 | - | 1.09 (Open MPI) | >= 1.0 | 0.97-1.25, 1 of 2 below 1 | met |\n",
		"- MPICH, bandwidth 1 MiB: round 1: did not finish within 1m0s\n",
		// A gompi that failed misses its goal.
		"| launch 8 hosts (ms) | h1 to h8 | - | - | 350 | - | <= 1.0 | - | missed (gompi failed) |\n",
		"- gompi, launch 8 hosts: round 1: exit status 1\n",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if i, j := strings.Index(summary, "| side | what it is |"), strings.Index(summary, "### Across"); i < 0 || j < i {
		t.Errorf("the one-host part does not come first:\n%s", summary)
	}
	tables := rep.Tables("performance.md")
	for _, want := range []string{
		"\n## across hosts\n\nEvery run of the comparison [across simulated hosts](performance.md#across-simulated-hosts)",
		"| measure | library | 1 | 2 |\n|---|---|---|---|\n| latency 8 B (us) | gompi | 12.7 | 13.1 |\n",
		"| bandwidth 1 MiB (MB/s) | MPICH | - | - |\n",
	} {
		if !strings.Contains(tables, want) {
			t.Errorf("tables lack %q:\n%s", want, tables)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "1.04 (MPICH)") ||
		!strings.Contains(text.String(), "failed: MPICH, bandwidth 1 MiB: round 1: did not finish within 1m0s\n") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
}

// TestAcrossAlone: a run of the hosts alone has no one-host part; one
// where no hosts could be built says why.
func TestAcrossAlone(t *testing.T) {
	rep := &Report{Result: &Result{Reps: 5}, Command: "bin/gompi-bench-compare -only across", Across: acrossHosts()}
	summary := rep.Summary("performance-tables.md")
	if strings.Contains(summary, "| side |") || strings.Contains(summary, "Every side ran") || strings.Contains(summary, "- State:") ||
		!strings.Contains(summary, "### Across simulated hosts") ||
		!strings.Contains(summary, "- Command: `bin/gompi-bench-compare -only across`, 0s in all\n") {
		t.Errorf("summary of the hosts alone:\n%s", summary)
	}
	rep.Across = &AcrossHosts{Command: "go test", Started: time.Date(2026, 11, 22, 2, 3, 0, 0, time.UTC), Took: time.Second,
		Absent: "no hosts can be built here: not root"}
	summary, tables := rep.Summary("performance-tables.md"), rep.Tables("performance.md")
	if !strings.Contains(summary, "- Command: `go test` (run by bench/compare from the repository's root; FILE is where the runs go, as JSON), 1s\n"+
		"- Date: 2026-11-22 02:03 UTC\n- Not measured: no hosts can be built here: not root\n") || strings.Contains(summary, "| measure |") {
		t.Errorf("summary without hosts:\n%s", summary)
	}
	if !strings.Contains(tables, "Not measured: no hosts can be built here: not root.\n") {
		t.Errorf("tables without hosts:\n%s", tables)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "Not measured: no hosts can be built here: not root\n") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
}

// TestUpdateAcross: a run of the hosts alone replaces only their parts of
// the two pages; the one-host figures and the text around the generated
// section stay, and a page without those parts is refused, naming what it
// lacks.
func TestUpdateAcross(t *testing.T) {
	dir := t.TempDir()
	doc, tables := filepath.Join(dir, "performance.md"), filepath.Join(dir, "performance-tables.md")
	whole := &Report{Result: fakeResult(t), Command: "make bench-compare", Started: time.Date(2026, 11, 22, 1, 2, 0, 0, time.UTC),
		Across: &AcrossHosts{Command: "go test old", Started: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Absent: "old: not root"}}
	before := "# Performance\n\nBy hand.\n\n" + BeginMarker + "\n" + whole.Summary("performance-tables.md") + EndMarker + "\n\nAfter.\n"
	if err := os.WriteFile(doc, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tables, []byte(whole.Tables("performance.md")), 0o644); err != nil {
		t.Fatal(err)
	}
	alone := &Report{Result: &Result{Reps: 5}, Command: "bin/gompi-bench-compare -only across", Across: acrossHosts()}
	if err := alone.UpdateAcross(doc, tables, "performance-tables.md", "performance.md"); err != nil {
		t.Fatal(err)
	}
	gotDoc, _ := os.ReadFile(doc)
	gotTables, _ := os.ReadFile(tables)
	oneHost, _, _ := strings.Cut(whole.Summary("performance-tables.md"), "\n### "+acrossHeading)
	var sub strings.Builder
	alone.Across.writeAcross(&sub, "performance-tables.md")
	if want := "# Performance\n\nBy hand.\n\n" + BeginMarker + "\n" + oneHost + sub.String() + EndMarker + "\n\nAfter.\n"; string(gotDoc) != want {
		t.Errorf("performance page:\n%s\nwant:\n%s", gotDoc, want)
	}
	for _, want := range []string{"| side | what it is |", "| latency 8 B (us) | h1 and h2: latency -s 8 | 12.9 |"} {
		if !strings.Contains(string(gotDoc), want) {
			t.Errorf("performance page lacks %q", want)
		}
	}
	tablesBefore, _, _ := strings.Cut(whole.Tables("performance.md"), "\n## "+acrossRunsHeading)
	if !strings.HasPrefix(string(gotTables), tablesBefore+"\n## across hosts\n") || strings.Contains(string(gotTables), "old: not root") ||
		!strings.Contains(string(gotTables), "| latency 8 B (us) | gompi | 12.7 | 13.1 |\n") {
		t.Errorf("tables:\n%s", gotTables)
	}

	// A page whose generated section has no comparison across hosts.
	if err := os.WriteFile(doc, []byte(BeginMarker+"\n## Side by side\n"+EndMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := alone.UpdateAcross(doc, tables, "performance-tables.md", "performance.md")
	if err == nil || !strings.Contains(err.Error(), `no "### Across simulated hosts" to replace: run the whole comparison first`) {
		t.Errorf("a page without the subsection: %v", err)
	}
	if got, _ := os.ReadFile(doc); string(got) != BeginMarker+"\n## Side by side\n"+EndMarker+"\n" {
		t.Errorf("a refused update changed the page:\n%s", got)
	}
}
