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
