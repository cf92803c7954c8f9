package examples_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestCPI runs the C example cpi on the C library with 3 ranks and
// checks the pi it prints.
func TestCPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds libmpi_abi and runs a job")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc)")
	}
	dir := t.TempDir()
	lib := cpmpiLibrary(t, dir)
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../cmd/gompirun"})
	if err != nil {
		t.Fatal(err)
	}
	inc, err := filepath.Abs("../capi/include")
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "cpi")
	args := []string{"-O2", "-Wall", "-I", inc, "-o", prog, "cpi/cpi.c", "-L" + lib, "-lmpi_abi", "-Wl,-rpath," + lib, "-lm"}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %v: %v\n%s", args, err, b)
	}
	j := jobtest.Run(t, bins["gompirun"], 90*time.Second, nil, "--timeout", "60", "-np", "3", "--oversubscribe", prog, "300000")
	if j.Code != 0 {
		t.Fatalf("cpi failed\n%v", j)
	}
	m := regexp.MustCompile(`pi is (\S+), error \S+, 300000 intervals`).FindStringSubmatch(j.Stdout)
	if m == nil {
		t.Fatalf("no pi line\n%v", j)
	}
	if pi, err := strconv.ParseFloat(m[1], 64); err != nil || pi < 3.14159265 || pi > 3.14159266 {
		t.Errorf("pi = %s, want 3.1415926...\n%v", m[1], j)
	}
	if !regexp.MustCompile(`libmpi_abi \(MPI 5\.0 standard ABI 1\.0\), 3 ranks`).MatchString(j.Stdout) {
		t.Errorf("no library version line naming 3 ranks\n%v", j)
	}
}
