package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{3}, Spread{Min: 3, Mean: 3, Max: 3}},
		{[]float64{1, 2, 3, 4}, Spread{Min: 1, Mean: 2.5, Max: 4, COV: math.Sqrt(1.25) / 2.5}},
		{[]float64{2, 2, 2}, Spread{Min: 2, Mean: 2, Max: 2}},
		{[]float64{0, 0}, Spread{}},
		{[]float64{-1, 1}, Spread{Min: -1, Max: 1}}, // mean 0: no COV
	} {
		got := spread(c.in)
		if !near(got.Min, c.want.Min) || !near(got.Mean, c.want.Mean) || !near(got.Max, c.want.Max) || !near(got.COV, c.want.COV) {
			t.Errorf("spread(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestTally(t *testing.T) {
	var a tally
	for _, d := range []int64{5, 2, 9} {
		a.add(d, 10)
	}
	if a != (tally{Calls: 3, Ticks: 16, Bytes: 30, Min: 2, Max: 9}) {
		t.Fatalf("add: %+v", a)
	}
	b := tally{Calls: 1, Ticks: 1, Bytes: 4, Min: 1, Max: 1}
	a.merge(b)
	a.merge(tally{})
	if a != (tally{Calls: 4, Ticks: 17, Bytes: 34, Min: 1, Max: 9}) {
		t.Fatalf("merge: %+v", a)
	}
	var e tally
	e.merge(b)
	if e != b {
		t.Fatalf("merge into empty: %+v", e)
	}
}

func call(name string, calls, ns, lo, hi, bytes int64) callPart {
	return callPart{Name: name, Calls: calls, Ns: ns, MinNs: lo, MaxNs: hi, Bytes: bytes}
}

// TestAggregate merges two ranks, one with two phases and one with a
// single one, and checks every figure.
func TestAggregate(t *testing.T) {
	r0 := rankPart{Rank: 0, Phases: []phasePart{
		{EndedBy: "pcontrol", AppNs: 4e9, MPINs: 1e9,
			Funcs: []callPart{call("Send", 2, 1e9, 4e8, 6e8, 200)},
			Sites: []sitePart{{callPart: call("Send", 2, 1e9, 4e8, 6e8, 200), File: "b.go", Line: 7, Caller: "main.f"}},
			P2P:   row{Msgs: []int64{0, 2}, Bytes: []int64{0, 200}}, Coll: row{Msgs: []int64{0, 0}, Bytes: []int64{0, 0}}},
		{EndedBy: "finalize", AppNs: 2e9, MPINs: 1e9,
			Funcs: []callPart{call("Allreduce", 1, 1e9, 1e9, 1e9, 8)},
			Sites: []sitePart{{callPart: call("Allreduce", 1, 1e9, 1e9, 1e9, 8), File: "a.go", Line: 9, Caller: "main.g"}},
			P2P:   row{Msgs: []int64{0, 0}, Bytes: []int64{0, 0}}, Coll: row{Msgs: []int64{0, 1}, Bytes: []int64{0, 8}}},
	}}
	r1 := rankPart{Rank: 1, Phases: []phasePart{
		{EndedBy: "finalize", AppNs: 6e9, MPINs: 3e9,
			Funcs: []callPart{call("Send", 1, 1e9, 1e9, 1e9, 50), call("Allreduce", 1, 2e9, 2e9, 2e9, 8)},
			Sites: []sitePart{
				{callPart: call("Send", 1, 1e9, 1e9, 1e9, 50), File: "b.go", Line: 7, Caller: "main.f"},
				{callPart: call("Allreduce", 1, 2e9, 2e9, 2e9, 8), File: "a.go", Line: 9, Caller: "main.g"},
			},
			P2P: row{Msgs: []int64{1, 0}, Bytes: []int64{50, 0}}, Coll: row{Msgs: []int64{1, 0}, Bytes: []int64{8, 0}}},
	}}
	r := aggregate("j", 2, []int{}, []rankPart{r0, r1})
	if r.Ranks != 2 || len(r.Phases) != 2 {
		t.Fatalf("%d ranks, %d phases", r.Ranks, len(r.Phases))
	}
	// Phase 1 is rank 0's first and rank 1's only phase.
	p1 := r.Phases[0]
	if p1.Phase != 1 || p1.Tasks[0].MPIPercent != 25 || p1.Tasks[1].MPIPercent != 50 || p1.Aggregate.MPIPercent != 40 {
		t.Errorf("phase 1 tasks %+v aggregate %+v", p1.Tasks, p1.Aggregate)
	}
	// Sites are numbered by file then line: a.go:9 is 1, b.go:7 is 2.
	if len(p1.Sites) != 2 || p1.Sites[0].ID != 1 || p1.Sites[0].File != "a.go" || p1.Sites[1].ID != 2 {
		t.Fatalf("phase 1 sites %+v", p1.Sites)
	}
	send := p1.Sites[1]
	if send.Calls != 3 || send.Bytes != 250 || send.Ranks != 2 || send.Min != 0.4 || send.Max != 1 || !near(send.Mean, 2.0/3) {
		t.Errorf("phase 1 Send site %+v", send)
	}
	if send.TimeSpread != (Spread{Min: 1, Mean: 1, Max: 1}) || !near(send.BytesSpread.COV, 75.0/125) {
		t.Errorf("phase 1 Send spreads %+v %+v", send.TimeSpread, send.BytesSpread)
	}
	if !slices.Equal(p1.TopByTime, []int{1, 2}) && !slices.Equal(p1.TopByTime, []int{2, 1}) {
		t.Errorf("top by time %v", p1.TopByTime)
	}
	if !slices.Equal(p1.TopByBytes, []int{2, 1}) {
		t.Errorf("top by bytes %v, want [2 1]", p1.TopByBytes)
	}
	if p1.P2P.Bytes[0][1] != 200 || p1.P2P.Bytes[1][0] != 50 || p1.Coll.Messages[1][0] != 1 {
		t.Errorf("phase 1 matrices %+v %+v", p1.P2P, p1.Coll)
	}
	// Phase 2 is rank 0's alone.
	p2 := r.Phases[1]
	if p2.Tasks[1].AppSeconds != 0 || len(p2.Sites) != 1 || p2.Sites[0].ID != 1 || p2.Sites[0].Ranks != 1 {
		t.Errorf("phase 2 %+v", p2)
	}
	// The total adds rank 0's phases.
	tot := r.Total
	if tot.Tasks[0].AppSeconds != 6 || tot.Tasks[0].MPISeconds != 2 || tot.Aggregate.AppSeconds != 12 {
		t.Errorf("total tasks %+v aggregate %+v", tot.Tasks, tot.Aggregate)
	}
	ar := tot.Sites[0]
	if ar.Name != "Allreduce" || ar.Calls != 2 || ar.Bytes != 16 || ar.Ranks != 2 || ar.TimeSpread.Mean != 1.5 {
		t.Errorf("total Allreduce site %+v", ar)
	}
	if tot.Coll.Bytes[0][1] != 8 || tot.P2P.Messages[0][1] != 2 {
		t.Errorf("total matrices %+v %+v", tot.P2P, tot.Coll)
	}
	fs := map[string]FuncStat{}
	for _, f := range tot.Functions {
		fs[f.Name] = f
	}
	if f := fs["Send"]; f.Calls != 3 || f.Min != 0.4 || f.Max != 1 || f.MPIPercent != 40 {
		t.Errorf("total Send %+v", f)
	}
	if tot.Functions[0].Name != "Allreduce" { // 3 s against Send's 2
		t.Errorf("functions not by time: %+v", tot.Functions)
	}
}

func TestFlow(t *testing.T) {
	counts := []int{1, 2, 3}
	for _, c := range []struct {
		name string
		fl   flow
		me   int
		want []int64 // to members 0, 1, 2
	}{
		{"allreduce", flow{kind: toAll, each: 8}, 1, []int64{8, 0, 8}},
		{"bcast root", flow{kind: fromRoot, root: 1, each: 8}, 1, []int64{8, 0, 8}},
		{"bcast leaf", flow{kind: fromRoot, root: 1, each: 8}, 0, []int64{0, 0, 0}},
		{"gather leaf", flow{kind: toRoot, root: 2, each: 8}, 0, []int64{0, 0, 8}},
		{"scan", flow{kind: toHigher, each: 8}, 1, []int64{0, 0, 8}},
		{"alltoallv", flow{kind: byCounts, counts: counts, unit: 4}, 0, []int64{0, 8, 12}},
		{"scatterv leaf", flow{kind: rootCounts, root: 1, counts: counts, unit: 4}, 0, []int64{0, 0, 0}},
		{"scatterv root", flow{kind: rootCounts, root: 1, counts: counts, unit: 4}, 1, []int64{4, 0, 12}},
	} {
		for i, w := range c.want {
			if i == c.me {
				continue
			}
			if got := c.fl.to(c.me, i); got != w {
				t.Errorf("%s: %d to %d: %d bytes, want %d", c.name, c.me, i, got, w)
			}
		}
	}
}

func TestPackageOf(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/gompi/gompi/mpi.Send[go.shape.float64]":           "github.com/gompi/gompi/mpi",
		"github.com/gompi/gompi/frameworks/prof.Base.Send":            "github.com/gompi/gompi/frameworks/prof",
		"github.com/gompi/gompi/components/prof/stats.(*module).Send": "github.com/gompi/gompi/components/prof/stats",
		"main.run.func1":                                         "main",
		"example.com/x.F[example.com/y/z.T]":                     "example.com/x",
		"github.com/gompi/gompi/components/prof/stats_test.send": "github.com/gompi/gompi/components/prof/stats_test",
	} {
		if got := packageOf(in); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", in, got, want)
		}
	}
	internal := internalPackages()
	for pkg, want := range map[string]bool{
		"github.com/gompi/gompi/mpi": true, "github.com/gompi/gompi/pmpi": true, "runtime": true,
		"github.com/gompi/gompi/frameworks/prof": true, "github.com/gompi/gompi/components/prof/stats": true,
		"github.com/gompi/gompi/components/prof/trace": true, "github.com/gompi/gompi/components/prof/stats_test": false,
		"main": false, "github.com/gompi/gompi/mpiutil": false,
	} {
		if internal(pkg) != want {
			t.Errorf("internal(%q) = %v", pkg, !want)
		}
	}
}

// TestWrite writes a report of one rank with the default prefix in a
// directory, then without the SVG.
func TestWrite(t *testing.T) {
	t.Chdir(t.TempDir())
	r := aggregate("j1", 1, []int{}, []rankPart{{Rank: 0, Phases: []phasePart{{EndedBy: "finalize", AppNs: 1e9,
		P2P: row{Msgs: []int64{0}, Bytes: []int64{0}}, Coll: row{Msgs: []int64{0}, Bytes: []int64{0}}}}}})
	paths, err := write(config{output: "gompi-stats", top: 20, svg: true}, r)
	if err != nil || !slices.Equal(paths, []string{"gompi-stats.j1.txt", "gompi-stats.j1.json", "gompi-stats.j1.svg"}) {
		t.Fatalf("write: %v, %v", paths, err)
	}
	paths, err = write(config{output: "p", top: 1, svg: false}, r)
	if err != nil || len(paths) != 2 {
		t.Fatalf("write without SVG: %v, %v", paths, err)
	}
}

// TestMergeMissing: gompirun's merge of the parts of ranks 0 and 3 of 4,
// with rank 1's unreadable, writes the report with rank 0's parameters,
// names ranks 1 and 2 as missing and keeps rank 3's row, and says which
// part it could not read.
func TestMergeMissing(t *testing.T) {
	dir := t.TempDir()
	part := func(rank int, output string, svg bool) []byte {
		b, err := json.Marshal(rankPart{Rank: rank, Size: 4, Config: partConfig{Output: output, Top: 3, SVG: svg},
			Phases: []phasePart{{EndedBy: "finalize", AppNs: 2e9, MPINs: 1e9, Funcs: []callPart{call("Send", 1, 1e9, 1e9, 1e9, 8)},
				P2P:  row{Msgs: []int64{0, 0, 0, 0}, Bytes: []int64{0, 0, 0, 0}},
				Coll: row{Msgs: []int64{1, 1, 1, 1}, Bytes: []int64{8, 8, 8, 8}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	prefix := filepath.Join(dir, "s")
	paths, err := merge("j2", map[int][]byte{0: part(0, prefix, false), 1: []byte("{junk"), 3: part(3, "elsewhere", true)})
	if err == nil || !strings.Contains(err.Error(), "rank 1's part") {
		t.Errorf("error %v, want one naming rank 1's part", err)
	}
	if !slices.Equal(paths, []string{prefix + ".j2.txt", prefix + ".j2.json"}) {
		t.Fatalf("paths %q, want rank 0's prefix, without the SVG", paths)
	}
	var r Report
	b, _ := os.ReadFile(prefix + ".j2.json")
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Ranks != 4 || !slices.Equal(r.Missing, []int{1, 2}) || len(r.Total.Tasks) != 2 || r.Total.Tasks[1].Rank != 3 {
		t.Errorf("ranks %d, missing %v, tasks %+v", r.Ranks, r.Missing, r.Total.Tasks)
	}
	if got := fmt.Sprint(r.Total.Coll.Messages); got != "[[1 1 1 1] [0 0 0 0] [0 0 0 0] [1 1 1 1]]" {
		t.Errorf("collective messages %s", got)
	}
	if f := r.Total.Functions; len(f) != 1 || f[0].Calls != 2 || !near(f[0].AppPercent, 50) || !near(r.Total.Aggregate.MPIPercent, 50) {
		t.Errorf("functions %+v, aggregate %+v: want 2 Sends, half the 4 s of the two ranks present", f, r.Total.Aggregate)
	}
	if txt, _ := os.ReadFile(prefix + ".j2.txt"); !strings.Contains(string(txt), "@ Missing : ranks 1 and 2:") {
		t.Errorf("text report:\n%s", txt)
	}
}
