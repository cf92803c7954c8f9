package wrappergen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and the generated packages in testdata")

// examples are MPICH wrappergen's documented examples rewritten in Go,
// alone and nested (timing outermost).
var examples = []struct {
	name     string
	wrappers []string
}{
	{"timing", []string{"timing.w"}},
	{"counter", []string{"counter.w"}},
	{"msgsize", []string{"msgsize.w"}},
	{"nested", []string{"timing.w", "counter.w", "msgsize.w"}},
}

func generateExample(t *testing.T, name string, wrappers []string) []byte {
	t.Helper()
	cfg := Config{Package: name, Component: name}
	for _, w := range wrappers {
		path := filepath.Join("testdata", w)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Wrappers = append(cfg.Wrappers, Wrapper{Name: path, Src: src})
	}
	out, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Warnings) > 0 {
		t.Errorf("warnings: %q", out.Warnings)
	}
	return out.Code
}

// checkFile compares got with a file, or rewrites the file under -update.
func checkFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/wrappergen -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generator's output: run go test ./internal/wrappergen -update and review the diff", path)
	}
}

func TestGolden(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			checkFile(t, filepath.Join("testdata", ex.name+".go.golden"), generateExample(t, ex.name, ex.wrappers))
		})
	}
}

// TestGeneratedPackagesAreCurrent checks the committed packages under
// testdata/gen, which the job test's program links: they must be what the
// generator writes today.
func TestGeneratedPackagesAreCurrent(t *testing.T) {
	for _, ex := range examples {
		if ex.name != "counter" && ex.name != "nested" {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			checkFile(t, filepath.Join("testdata", "gen", ex.name, ex.name+".go"), generateExample(t, ex.name, ex.wrappers))
		})
	}
}
