package compare

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeGompiC is the gompi C library as GompiC gives it, over an empty
// library file, launched by gompirun.
func fakeGompiC(t *testing.T, gompirun string) *Library {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"bin/gompicc", "lib/" + CLibrary, "include/mpi.h"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := GompiC(gompirun, filepath.Join(dir, "bin", "gompicc"))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestGompiCSide: the gompi C side comes after gompi sm, held against it,
// over sm, in every plan; its programs are bench/c's built with cc
// against gompi's header and library and run by gompirun with gompi sm's
// btl; without sm or without the library it is left out.
func TestGompiCSide(t *testing.T) {
	if _, err := GompiC("gompirun", filepath.Join(t.TempDir(), "bin", "gompicc")); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("no library: %v", err)
	}
	lib := fakeGompiC(t, "bin/gompirun")
	labels := func(sides []*Side) (out []string) {
		for _, s := range sides {
			out = append(out, s.Label)
		}
		return out
	}
	sides := Sides(OpenMPI(), MPICH(), lib, true)
	if got := labels(sides); !slices.Equal(got, []string{"gompi tcp", "Open MPI tcp", "gompi sm", "gompi C", "Open MPI sm", "MPICH"}) {
		t.Errorf("sides %v", got)
	}
	if got := labels(Sides(OpenMPI(), MPICH(), lib, false)); slices.Contains(got, GompiCLabel) {
		t.Errorf("without gompi sm: %v", got)
	}
	c := sides[3]
	if c.Against != sides[2] || !c.SM || c.btl() != "self,sm" || c.Lib.Banner != "libmpi_abi" {
		t.Errorf("gompi C: %+v", c)
	}
	if filepath.Base(lib.CC) != "gompicc" || len(lib.CFlags) != 0 || len(lib.Libs) != 0 {
		t.Errorf("build: %s %v ... %v, want gompicc alone", lib.CC, lib.CFlags, lib.Libs)
	}
	paths := Paths{Gompirun: "bin/gompirun", Bench: "bin/gompi-bench", Build: "bench/build"}
	plans := Plans(false)
	lat, ring, launch := plan(t, plans, "latency"), plan(t, plans, "ring-16"), plan(t, plans, "launch")
	over := []string{}
	if ring.NP > runtime.NumCPU() {
		over = []string{"--oversubscribe"}
	}
	for _, w := range []struct {
		plan Plan
		want []string
	}{
		{lat, append([]string{"bin/gompirun", "-np", "2", "--mca", "btl", "self,sm", "bench/build/gompi/latency"}, lat.Args...)},
		{ring, slices.Concat([]string{"bin/gompirun", "-np", "16"}, over, []string{"--mca", "btl", "self,sm", "bench/build/gompi/ring"}, ring.Args)},
		{launch, slices.Concat([]string{"bin/gompi-bench", "launch"}, launch.Args,
			[]string{"--", "bin/gompirun", "-np", "{np}", "--oversubscribe", "--mca", "btl", "self,sm", "bench/build/gompi/init_finalize"})},
	} {
		if got := c.Command(w.plan, paths); !slices.Equal(got, w.want) {
			t.Errorf("%s:\n got %q\nwant %q", w.plan.Key(), got, w.want)
		}
	}
	for _, p := range plans {
		if !c.inPlan(p) || c.skips(p) != "" {
			t.Errorf("gompi C leaves out %s", p.Key())
		}
	}
}

// TestVerifyGompiC: a C program on gompi prints Open MPI's btl variable,
// which gompirun does not set, so its btl line is not held to the side's;
// its title must name gompi's library.
func TestVerifyGompiC(t *testing.T) {
	c := Sides(OpenMPI(), nil, fakeGompiC(t, "gompirun"), true)[3]
	lat := plan(t, Plans(true), "latency")
	tb := fakeTable(t, "not reported by this MPI library", "0 1\n")
	tb.Title, tb.Fields["btl"] = "bench/c latency (gompi 0.1.0, libmpi_abi (MPI 5.0 standard ABI 1.0))", "the library's default"
	if err := c.verify(lat, tb, nil); err != nil {
		t.Errorf("gompi C: %v", err)
	}
	tb.Title = "bench/c latency (Open MPI v4.1.4)"
	if err := c.verify(lat, tb, nil); err == nil || !strings.Contains(err.Error(), "does not name libmpi_abi") {
		t.Errorf("gompi C on Open MPI: %v", err)
	}
}

// TestCGoals: the gompi C side is held to gompi sm within CWithin in
// every plan but the overlaps, and to Open MPI sm wherever gompi sm is;
// the summary counts them in a line per kind (as it does the cold
// collectives'), the tables' page lists them.
func TestCGoals(t *testing.T) {
	var toGo, toOMPI []string
	for _, g := range Goals() {
		if g.Side != GompiCLabel {
			continue
		}
		switch g.Against {
		case "gompi sm":
			toGo = append(toGo, g.Plan)
			if g.Within != CWithin || g.From != 0 || g.absolute() {
				t.Errorf("goal %+v", g)
			}
		case "Open MPI sm":
			toOMPI = append(toOMPI, g.Plan)
		default:
			t.Errorf("goal %+v", g)
		}
	}
	// The cold collectives' goals are summed up by kind too.
	for _, g := range Goals() {
		if cold := strings.Contains(g.Plan, "-cold"); g.Side == "gompi sm" && cold != (g.Group != "") {
			t.Errorf("goal %+v", g)
		}
	}
	var want, wantOMPI []string
	for _, p := range Plans(false) {
		if p.Column == 0 {
			want = append(want, p.Key())
		}
	}
	for _, g := range Goals() {
		if g.Side == "gompi sm" && !g.absolute() && g.Against == "" {
			wantOMPI = append(wantOMPI, g.Plan)
		}
	}
	if !slices.Equal(toGo, want) || !slices.Equal(toOMPI, wantOMPI) || !slices.Contains(toOMPI, "latency") {
		t.Errorf("gompi C held to gompi sm in %v, to Open MPI sm in %v", toGo, toOMPI)
	}

	r := fakeResult(t)
	r.Sides = Sides(OpenMPI(), nil, fakeGompiC(t, "gompirun"), true)
	lat := r.Plans[0]
	for _, rows := range []string{"0 0.45\n1024 0.5\n", "0 0.2\n1024 3\n", "0 0.3\n1024 1.2\n"} {
		key := [2]string{lat.Name, GompiCLabel}
		r.tables[key] = append(r.tables[key], fakeTable(t, "x", rows))
	}
	var got []Verdict
	for _, v := range r.Check(Goals(), 0) {
		if v.Side == GompiCLabel && v.Absent == "" {
			got = append(got, v)
		}
	}
	// gompi sm's medians are 0.3 and 0.9, Open MPI sm's 0.5 and 1.
	if len(got) != 2 ||
		got[0].Goal != "latency gompi C / gompi sm every size: <= 1.05" || got[0].Worst != "1.33 ratio at 1 KiB" || got[0].Met ||
		got[1].Goal != "latency gompi C / Open MPI sm 0 to 1 KiB: <= 1.0" || got[1].Worst != "1.20 ratio at 1 KiB" || got[1].Met {
		t.Fatalf("verdicts %+v", got)
	}
	rep := &Report{Result: r, Verdicts: r.Check(Goals(), 0)}
	md := rep.Summary("t.md")
	for _, w := range []string{
		"| gompi C / gompi sm: <= 1.05 for a time, >= 0.95 for a bandwidth | 1 | 0 | latency 1.33 ratio at 1 KiB (1.00-1.33, 1 of 3 above 1.05) |",
		"| gompi C / Open MPI sm wherever gompi sm is held to it: <= 1.0 for a time, >= 1.0 for a bandwidth | 1 | 0 | latency 1.20 ratio at 1 KiB",
		"(t.md#goals-summed-up-by-kind)",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("summary lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "| latency gompi C /") {
		t.Errorf("the summary lists the gompi C goals one by one:\n%s", md)
	}
	tables := rep.Tables("p.md")
	for _, w := range []string{
		"| size | gompi tcp | Open MPI tcp | gompi tcp / Open MPI tcp | gompi sm | gompi C | gompi C / gompi sm | Open MPI sm | gompi sm / Open MPI sm |",
		"\n## Goals summed up by kind\n",
		"| latency gompi C / gompi sm every size: <= 1.05 | worst 1.33 ratio at 1 KiB | 1.00-1.33, 1 of 3 above 1.05 | missed |",
	} {
		if !strings.Contains(tables, w) {
			t.Errorf("tables lack %q:\n%s", w, tables)
		}
	}
}

// TestCProgramsOnGompiHeader compiles every bench/c program, unmodified,
// against gompi's standard ABI header: what the gompi C side builds.
func TestCProgramsOnGompiHeader(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	for _, p := range Programs {
		out, err := exec.CommandContext(ctx, "cc", "-O2", "-Wall", "-Werror", "-I", "../../capi/include", "-fsyntax-only",
			filepath.Join("../c", p+".c")).CombinedOutput()
		if err != nil {
			t.Errorf("%s.c on gompi's mpi.h: %v\n%s", p, err, out)
		}
	}
}

// TestGompiCRunFails: a gompi C run that fails (a function its library
// lacks) leaves that side out of the plan with the run's first words, in
// every repetition, and the comparison goes on; another side's failure
// still ends it.
func TestGompiCRunFails(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := `#!/bin/sh
echo "$0 $*" >> ` + log + `
case "$*" in
*/gompi/*) echo "gompi: fatal error: MPI_Dims_create is not supported" >&2; echo "gompirun: rank 0 exited" >&2; exit 1 ;;
esac
printf '# fake (Open MPI, libmpi_abi)\n# btl: self,vader\n# unit: us: x\n# transports: 0:self 1:sm\n# Size  Avg Latency (us)\n4 2\n64 3\n'
`
	fake := filepath.Join(dir, "run")
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ompi := OpenMPI()
	ompi.Run = fake
	all := Sides(ompi, nil, fakeGompiC(t, fake), true)
	sides := []*Side{all[3], all[4]} // gompi C and Open MPI sm: the fake launcher serves both
	p := plan(t, Plans(true), "allreduce-2")
	var progress strings.Builder
	r, err := Run(context.Background(), Config{Plans: []Plan{p}, Sides: sides, Reps: 2, Timeout: time.Minute,
		Paths: Paths{Gompirun: fake, Bench: "gompi-bench", Build: "build"}, Env: os.Environ(), Log: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Skipped[p.Key()]; len(got) != 1 ||
		got[0] != "gompi C left out: its run failed in repetition 1: gompi: fatal error: MPI_Dims_create is not supported" {
		t.Errorf("notes %q", got)
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "/gompi/") != 1 {
		t.Errorf("gompi C ran again after it failed:\n%s", b)
	}
	if keys, _ := r.Medians(p, sides[0]); keys != nil || len(r.runs(p, sides[1], 4)) != 2 {
		t.Errorf("gompi C has figures %v; Open MPI sm %v", keys, r.runs(p, sides[1], 4))
	}
	sides[0].MayFail = false
	if _, err := Run(context.Background(), Config{Plans: []Plan{p}, Sides: sides, Reps: 1, Timeout: time.Minute,
		Paths: Paths{Gompirun: fake, Bench: "gompi-bench", Build: "build"}, Env: os.Environ(), Log: &progress}); err == nil {
		t.Error("a side that may not fail failed, and the comparison went on")
	}
}
