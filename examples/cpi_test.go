package examples_test

import (
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
	e := cSetup(t)
	prog := e.compile(t, "cpi", "-O2", "cpi/cpi.c", "-lm")
	j := jobtest.Run(t, e.gompirun, 90*time.Second, nil, "--timeout", "60", "-np", "3", "--oversubscribe", prog, "300000")
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
