// Package components_test checks the import rules of the components: what
// each may build on, so that a component stays a plugin of its framework
// and the layers above never come back through it.
package components_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/gompi/gompi/"

// listed runs go list on patterns and returns, per package, the gompi
// packages it imports directly and those it depends on at all.
func listed(t *testing.T, patterns ...string) (imports, deps map[string][]string) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	args := []string{"list", "-f", `{{.ImportPath}}{{range .Imports}} i:{{.}}{{end}}{{range .Deps}} d:{{.}}{{end}}`}
	cmd := exec.Command(goCmd, append(args, patterns...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(patterns, " "), err, stderr.String())
	}
	imports, deps = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		imports[pkg], deps[pkg] = nil, nil
		for _, x := range f[1:] {
			kind, path, _ := strings.Cut(x, ":")
			if !strings.HasPrefix(path, module) {
				continue // the standard library and outside modules are free
			}
			path = strings.TrimPrefix(path, module)
			if kind == "i" {
				imports[pkg] = append(imports[pkg], path)
			} else {
				deps[pkg] = append(deps[pkg], path)
			}
		}
	}
	return imports, deps
}

func within(path string, roots ...string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// TestComponentImports: a component builds on its own framework, the MCA
// core, the parameters, the common libraries components share
// (components/common, as Open MPI's mca/common), the CPU and runtime
// tricks of internal/lowlevel, and outside libraries, and on nothing else
// of gompi; a prof component also on pmpi, the API its layers wrap, and
// an ess component on the client of its launcher's runtime (internal/rte,
// which gompirun's launcher shares, and internal/pmi), as Open MPI's ess
// components build on its runtime's libraries. Their tests are not
// checked.
func TestComponentImports(t *testing.T) {
	imports, _ := listed(t, module+"components/...")
	checked := 0
	for pkg, imps := range imports {
		parts := strings.Split(pkg, "/")
		if len(parts) < 3 || parts[1] == "all" || parts[1] == "common" {
			continue // the list every program links, and the shared libraries
		}
		fw, self := parts[1], strings.Join(parts[:3], "/")
		allowed := []string{"frameworks/" + fw, "mca", "params", "components/common", "internal/lowlevel", self}
		switch fw {
		case "prof":
			allowed = append(allowed, "pmpi")
		case "ess":
			allowed = append(allowed, "internal/rte", "internal/pmi")
		}
		for _, imp := range imps {
			if !within(imp, allowed...) {
				t.Errorf("%s imports %s; a %s component may import only %v and outside libraries", pkg, imp, fw, allowed)
			}
		}
		checked++
	}
	for _, want := range []string{"btl/self", "btl/sm", "btl/tcp", "coll/basic", "coll/sm", "prof/stats"} {
		if _, ok := imports["components/"+want]; !ok {
			t.Errorf("go list did not list components/%s", want)
		}
	}
	if checked == 0 {
		t.Fatal("no component checked")
	}
}

// TestCollDoesNotReachPMPI: the coll framework and its components depend
// neither on pmpi nor on mpi, directly or not: pmpi builds on them, and a
// dependency the other way would route a collective's messages through
// the API (where tools would count them), or make a cycle.
func TestCollDoesNotReachPMPI(t *testing.T) {
	_, deps := listed(t, module+"frameworks/coll/...", module+"components/coll/...")
	for pkg, ds := range deps {
		for _, f := range []string{"pmpi", "mpi"} {
			if slices.Contains(ds, f) {
				t.Errorf("%s depends on %s", pkg, f)
			}
		}
	}
	for _, want := range []string{"frameworks/coll", "components/coll/basic", "components/coll/self", "components/coll/sm", "components/coll/tuned"} {
		if _, ok := deps[want]; !ok {
			t.Errorf("go list did not list %s", want)
		}
	}
}
