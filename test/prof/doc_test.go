package prof_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// docToolProgram links the example tool of docs/profiling.md (package
// counter) and makes three sends on rank 0.
const docToolProgram = `package main

import (
	"fmt"
	"os"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
	_ "github.com/gompi/gompi/test/prof/testdata/doctool/counter"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "doctool:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.CommWorld()
	for i := range 3 {
		switch w.Rank() {
		case 0:
			if err := mpi.Send([]int{i}, 1, 0, w); err != nil {
				return err
			}
		case 1:
			if _, err := mpi.Recv(make([]int, 1), 0, 0, w); err != nil {
				return err
			}
		}
	}
	return mpi.Finalize()
}
`

// docExample is the Go code block of docs/profiling.md's section
// "Writing a tool": the complete example tool.
func docExample(t *testing.T) string {
	t.Helper()
	md, err := os.ReadFile("../../docs/profiling.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(md), "\n## Writing a tool\n")
	if !ok {
		t.Fatal(`docs/profiling.md has no section "Writing a tool"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, code, ok := strings.Cut(section, "\n```go\n")
	if !ok {
		t.Fatal(`docs/profiling.md: "Writing a tool" has no go code block`)
	}
	code, _, ok = strings.Cut(code, "\n```\n")
	if !ok || !strings.HasPrefix(code, "package counter\n") {
		t.Fatalf("docs/profiling.md: the example tool is not a whole package counter:\n%s", code)
	}
	return code + "\n"
}

// TestDocExampleTool builds the example tool of docs/profiling.md, as the
// document shows it, into a program (both put in place with go build
// -overlay, so the source tree is left alone) and runs it in a job under
// --mca prof counter: the tool must count each rank's sends.
func TestDocExampleTool(t *testing.T) {
	dir := t.TempDir()
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(here, "testdata", "doctool")
	files := map[string]string{
		filepath.Join(pkg, "main.go"):               docToolProgram,
		filepath.Join(pkg, "counter", "counter.go"): docExample(t),
	}
	replace := map[string]string{}
	for path, src := range files {
		tmp := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(tmp, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[path] = tmp
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "doctool")
	build := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, "./testdata/doctool")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the example tool of docs/profiling.md does not build: %v\n%s", err, out)
	}

	j := jobtest.Run(t, gompirun, 90*time.Second, nil, "--timeout", "60", "-np", "2", "--mca", "prof", "counter", bin)
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	lines := strings.Split(strings.TrimSpace(j.Stdout), "\n")
	slices.Sort(lines)
	if want := []string{"sends: 0", "sends: 3"}; !slices.Equal(lines, want) {
		t.Fatalf("the example tool printed %q, want %q (rank 1 and rank 0)", lines, want)
	}
}
