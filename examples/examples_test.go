// Package examples_test checks the example programs: they import package
// mpi and no layer below it, since what a user copies is what a user
// should write, and hello names the transport that reaches each peer.
package examples_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestExamplesImportOnlyMPI parses every example program (the
// out-of-process components of plugins/ are tools, not programs) and
// fails on an import of gompi other than mpi and the blank import of the
// components.
func TestExamplesImportOnlyMPI(t *testing.T) {
	files, err := filepath.Glob("*/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example found: %v", err)
	}
	allowed := map[string]bool{"github.com/gompi/gompi/mpi": true, "github.com/gompi/gompi/components/all": true}
	for _, f := range files {
		if strings.HasPrefix(f, "plugins/") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/gompi/gompi/") && !allowed[path] {
				t.Errorf("%s imports %s: an example uses package mpi only", f, path)
			}
		}
	}
}

// TestHelloTransports runs hello on 2 ranks, with the default transports
// and with self and tcp alone: each rank names self for itself and the
// chosen transport for the other.
func TestHelloTransports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bins, err := jobtest.Build(t.TempDir(), map[string]string{"gompirun": "../cmd/gompirun", "hello": "./hello"})
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^hello from rank (\d) of 2 on \S+ \(transports: (.*)\)$`)
	for _, tc := range []struct{ btl, other string }{{"", "sm"}, {"self,tcp", "tcp"}} {
		args := []string{"--timeout", "60", "-np", "2", "--oversubscribe"}
		if tc.btl != "" {
			args = append(args, "--mca", "btl", tc.btl)
		}
		j := jobtest.Run(t, bins["gompirun"], 90*time.Second, nil, append(args, bins["hello"])...)
		if j.Code != 0 {
			t.Fatalf("btl %q: job failed\n%v", tc.btl, j)
		}
		want := map[string]string{"0": "0:self 1:" + tc.other, "1": "0:" + tc.other + " 1:self"}
		got := line.FindAllStringSubmatch(j.Stdout, -1)
		if len(got) != 2 {
			t.Fatalf("btl %q: %d hello lines, want 2\n%v", tc.btl, len(got), j)
		}
		for _, m := range got {
			if want[m[1]] != m[2] {
				t.Errorf("btl %q: rank %s names transports %q, want %q", tc.btl, m[1], m[2], want[m[1]])
			}
		}
	}
}

// TestHeat runs heat on a 2x2 grid of ranks over sm and over tcp, and on
// one rank: rank 0 compares the gathered plate with a serial run, cell
// by cell, and the job fails on a mismatch.
func TestHeat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bins, err := jobtest.Build(t.TempDir(), map[string]string{"gompirun": "../cmd/gompirun", "heat": "./heat"})
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^heat: 48x40 plate on (\dx\d) ranks, 100 steps in \S+: checksum (\S+), serial (\S+): match$`)
	for _, tc := range []struct {
		np        int
		btl, grid string
	}{{4, "self,sm", "2x2"}, {4, "self,tcp", "2x2"}, {1, "self", "1x1"}} {
		args := []string{"--timeout", "60", "-np", strconv.Itoa(tc.np), "--oversubscribe", "--mca", "btl", tc.btl,
			bins["heat"], "-nx", "48", "-ny", "40", "-steps", "100"}
		j := jobtest.Run(t, bins["gompirun"], 90*time.Second, nil, args...)
		if j.Code != 0 {
			t.Fatalf("np %d btl %s: job failed\n%v", tc.np, tc.btl, j)
		}
		m := line.FindStringSubmatch(j.Stdout)
		if m == nil || m[1] != tc.grid || m[2] != m[3] {
			t.Errorf("np %d btl %s: want a matching checksum on a %s grid\n%v", tc.np, tc.btl, tc.grid, j)
		}
	}
}

// TestStencil runs stencil, on CartCreate with NeighborAlltoall halos and
// an overlapped Iallreduce, on 2x2 and 3x2 grids over sm, 2x2 over tcp,
// and one rank: rank 0 compares the plate and the number of steps with a
// serial run, and the job fails on a mismatch. A run cut short by
// -max-steps must match too.
func TestStencil(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bins, err := jobtest.Build(t.TempDir(), map[string]string{"gompirun": "../cmd/gompirun", "stencil": "./stencil"})
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^stencil: 48x42 plate on (\dx\d) ranks, (\d+) steps \(serial (\d+)\) in \S+: checksum (\S+), serial (\S+): match$`)
	for _, tc := range []struct {
		np        int
		btl, grid string
		maxSteps  string
	}{{4, "self,sm", "2x2", ""}, {6, "self,sm", "3x2", ""}, {4, "self,tcp", "2x2", ""}, {1, "self", "1x1", ""}, {4, "self,sm", "2x2", "37"}} {
		args := []string{"--timeout", "60", "-np", strconv.Itoa(tc.np), "--oversubscribe", "--mca", "btl", tc.btl,
			bins["stencil"], "-nx", "48", "-ny", "42", "-tol", "1e-2"}
		if tc.maxSteps != "" {
			args = append(args, "-max-steps", tc.maxSteps)
		}
		j := jobtest.Run(t, bins["gompirun"], 90*time.Second, nil, args...)
		if j.Code != 0 {
			t.Fatalf("np %d btl %s: job failed\n%v", tc.np, tc.btl, j)
		}
		m := line.FindStringSubmatch(j.Stdout)
		if m == nil || m[1] != tc.grid || m[2] != m[3] || m[4] != m[5] || (tc.maxSteps != "" && m[2] != tc.maxSteps) {
			t.Errorf("np %d btl %s: want matching steps and checksum on a %s grid\n%v", tc.np, tc.btl, tc.grid, j)
		}
	}
}
