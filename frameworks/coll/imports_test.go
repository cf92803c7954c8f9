package coll_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forbidden are the packages that the coll framework and its components
// must not depend on: pmpi builds on them (docs/architecture.md), and a
// dependency the other way would route a collective's messages through
// the API, or make a cycle.
var forbidden = []string{"github.com/gompi/gompi/pmpi", "github.com/gompi/gompi/mpi"}

// TestImportDirection fails if a package of the coll framework or of a
// coll component depends, directly or not, on pmpi or mpi. Their tests
// are not checked.
func TestImportDirection(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	patterns := []string{"github.com/gompi/gompi/frameworks/coll/...", "github.com/gompi/gompi/components/coll/..."}
	cmd := exec.Command(goCmd, append([]string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}, patterns...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(patterns, " "), err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var checked []string
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		checked = append(checked, pkg)
		for _, f := range forbidden {
			if slices.Contains(deps, f) {
				t.Errorf("%s depends on %s", pkg, f)
			}
		}
	}
	// The list must hold what it checks: the framework and the components
	// every build links.
	for _, want := range []string{"frameworks/coll", "components/coll/basic", "components/coll/self", "components/coll/sm", "components/coll/tuned"} {
		if !slices.Contains(checked, "github.com/gompi/gompi/"+want) {
			t.Errorf("go list did not list %s; it listed %v", want, checked)
		}
	}
}
