package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedIsCurrent fails when capi/mpi.abi or capi's
// implementations changed and make generate-abi was not run.
func TestGeneratedIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: run make generate-abi", path)
		}
	}
}

// TestOutByImplChecked fails when a constructor of outByImpl has no
// implementation that refuses a NULL address for a handle it writes: the
// generated function no longer checks it, so the implementation would
// write through NULL.
func TestOutByImplChecked(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, abiFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := parseABI(f)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "capi", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, name := range files {
		if strings.HasSuffix(name, "_gen.go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	handles := handleTypes(a)
	found := map[string]bool{}
	for _, fn := range a.funcs {
		if !outByImpl[fn.name] {
			continue
		}
		found[fn.name] = true
		impl := implBody(src.String(), implName(fn.name))
		for _, p := range fn.params {
			if implChecked(fn.name, p, handles) && !strings.Contains(impl, fmt.Sprintf("nullArg(%q)", p.name)) {
				t.Errorf("%s: its implementation %s does not return nullArg(%q), and the generated function leaves that check to it",
					fn.name, implName(fn.name), p.name)
			}
		}
	}
	for name := range outByImpl {
		if !found[name] {
			t.Errorf("outByImpl names %s, which %s does not declare", name, abiFile)
		}
	}
}

// implBody is the text of function name in src, up to its closing brace
// at the start of a line; empty if src has none.
func implBody(src, name string) string {
	_, body, ok := strings.Cut(src, "\nfunc "+name+"(")
	if !ok {
		return ""
	}
	body, _, _ = strings.Cut(body, "\n}\n")
	return body
}
