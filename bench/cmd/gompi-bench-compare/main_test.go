package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/bench/compare"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(nil)
	if err != nil || o.reps != 5 || o.timeout != 3*time.Minute || o.quick || !o.writeDocs || !o.install || o.acrossRounds != 7 || o.goCmd != "go" {
		t.Errorf("defaults: %+v %v", o, err)
	}
	if o.gompicc != "bin/gompicc" {
		t.Errorf("gompi's C compiler wrapper %q: want make build's", o.gompicc)
	}
	if o.command != "bin/gompi-bench-compare" {
		t.Errorf("command %q", o.command)
	}
	o, err = parseFlags([]string{"-quick", "-only", "latency,launch"})
	if err != nil || o.reps != 3 || o.timeout != time.Minute || o.acrossRounds != 3 || o.command != "bin/gompi-bench-compare -quick -only latency,launch" {
		t.Errorf("quick: %+v %v", o, err)
	}
	plans, across, err := selectPlans(o)
	if err != nil || len(plans) != 2 || plans[0].Name != "latency" || plans[1].Name != "launch" || across {
		t.Errorf("-only: %v %v %v", plans, across, err)
	}
	// The comparison across hosts runs in a whole run, or when -only
	// names it, alone or with plans.
	if plans, across, err := selectPlans(options{}); err != nil || !across || len(plans) != len(compare.Plans(false)) {
		t.Errorf("everything: %d plans, across %v, %v", len(plans), across, err)
	}
	for only, n := range map[string]int{"across": 0, "across,latency": 1} {
		if plans, across, err := selectPlans(options{only: only}); err != nil || !across || len(plans) != n {
			t.Errorf("-only %s: %v, across %v, %v", only, plans, across, err)
		}
	}
	if o.doc != "docs/performance.md" || o.tables != "docs/performance-tables.md" {
		t.Errorf("pages %q, %q", o.doc, o.tables)
	}
	if _, err := parseFlags([]string{"-tables", "./docs/performance.md"}); err == nil || !strings.Contains(err.Error(), "the same page as -doc") {
		t.Errorf("-tables on -doc's page: %v", err)
	}
	for _, bad := range [][]string{{"-reps", "-1"}, {"-across-rounds", "-2"}, {"extra"}, {"-nope"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, _, err := selectPlans(options{only: "gather"}); err == nil || !strings.Contains(err.Error(), `no measurement "gather"`) {
		t.Errorf("unknown measurement: %v", err)
	}
	// A name picks every plan of a measurement, a key one, a group (cold,
	// neighbor, nbc) every plan in it; the run's order holds.
	var cold []string
	for _, c := range []string{"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"} {
		for _, np := range []string{"2", "4", "8"} {
			cold = append(cold, c+"-"+np+"-cold20", c+"-"+np+"-cold100")
		}
	}
	for only, want := range map[string][]string{
		"ring":           {"ring-8", "ring-16"},
		"ring-16,incast": {"incast", "ring-16"},
		"launch,ring-8":  {"ring-8", "launch"},
		"allreduce": {"allreduce-2", "allreduce-4", "allreduce-8", "allreduce-2-cold20", "allreduce-2-cold100",
			"allreduce-4-cold20", "allreduce-4-cold100", "allreduce-8-cold20", "allreduce-8-cold100"},
		"launch,bcast-8":            {"bcast-8", "launch"},
		"alltoall-4-cold20,bcast-8": {"bcast-8", "alltoall-4-cold20"},
		"cold":                      cold,
		"nbc": {"iallreduce-2", "iallreduce-2-overlap", "iallreduce-4", "iallreduce-4-overlap", "ibcast-2", "ibcast-2-overlap",
			"ibcast-4", "ibcast-4-overlap", "ialltoall-2", "ialltoall-2-overlap", "ialltoall-4", "ialltoall-4-overlap"},
		"ibcast-2-overlap,latency": {"latency", "ibcast-2-overlap"},
		"neighbor": {"neighbor-allgather-2", "neighbor-allgather-4", "neighbor-allgather-8",
			"neighbor-alltoall-2", "neighbor-alltoall-4", "neighbor-alltoall-8"},
	} {
		plans, _, err := selectPlans(options{only: only})
		var keys []string
		for _, p := range plans {
			keys = append(keys, p.Key())
		}
		if err != nil || !slices.Equal(keys, want) {
			t.Errorf("-only %s: %v %v, want %v", only, keys, err, want)
		}
	}
	if _, _, err := selectPlans(options{only: "ring-16", quick: true}); err == nil || !strings.Contains(err.Error(), `no measurement "ring-16" in this run`) {
		t.Errorf("ring-16 in a quick run: %v", err)
	}
}

func TestCheckInputs(t *testing.T) {
	dir := t.TempDir()
	o := options{src: dir, doc: dir + "/none.md", tables: dir + "/nodir/tables.md", writeDocs: true}
	err := checkInputs(o, compare.Paths{Gompirun: dir + "/gompirun", Bench: dir + "/gompi-bench"})
	for _, want := range []string{"gompirun not found: run make build first", "gompi-bench not found", "latency.c", "none.md", "the tables' page", "nodir"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// TestWritePages writes the summary into the performance page between its
// markers and the tables into their own page, each linking to the other
// by a path relative to itself, wherever the pages are.
func TestWritePages(t *testing.T) {
	plans, _, err := selectPlans(options{only: "latency,bw"})
	if err != nil {
		t.Fatal(err)
	}
	rep := &compare.Report{Result: &compare.Result{Plans: plans, Reps: 1}, Started: time.Date(2026, 11, 22, 1, 2, 0, 0, time.UTC)}
	for name, c := range map[string]struct{ doc, tables, toTables, toDoc string }{
		"side by side": {"docs/performance.md", "docs/performance-tables.md", "performance-tables.md", "performance.md"},
		"apart":        {"docs/performance.md", "out/tables.md", "../out/tables.md", "../docs/performance.md"},
	} {
		dir := t.TempDir()
		o := options{doc: filepath.Join(dir, c.doc), tables: filepath.Join(dir, c.tables)}
		for _, f := range []string{o.doc, o.tables} {
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		page := "# Performance\n\nBy hand.\n\n" + compare.BeginMarker + "\nold\n" + compare.EndMarker + "\n"
		if err := os.WriteFile(o.doc, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := writePages(o, rep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, _ := os.ReadFile(o.doc)
		tables, _ := os.ReadFile(o.tables)
		if !strings.HasPrefix(string(doc), "# Performance\n\nBy hand.\n\n"+compare.BeginMarker+"\n## Side by side") ||
			strings.Contains(string(doc), "old") || strings.Contains(string(doc), "## latency") {
			t.Errorf("%s: performance page\n%s", name, doc)
		}
		if !strings.Contains(string(doc), "]("+c.toTables+").") {
			t.Errorf("%s: no link to %s in\n%s", name, c.toTables, doc)
		}
		if !strings.Contains(string(tables), "]("+c.toDoc+"#side-by-side-with-open-mpi-and-mpich-generated)") ||
			!strings.Contains(string(tables), "\n## latency\n") || !strings.Contains(string(tables), "\n## bw\n") {
			t.Errorf("%s: tables' page\n%s", name, tables)
		}
	}
}
