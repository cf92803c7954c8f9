package prof_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestCommNames runs names on 2 ranks under the trace tool, which reads
// every communicator's name, and checks the names MPI gives the
// predefined communicators (MPI_COMM_WORLD, MPI_COMM_SELF, and
// MPI_COMM_NULL for the zero Comm and a freed one) and those of derived
// ones, which are named after their parent.
func TestCommNames(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	j := jobtest.Run(t, gompirun, 90*time.Second, nil, "--timeout", "60", "-np", "2",
		"--mca", "prof", "trace", "--mca", "prof_trace_output", trace, names)
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	want := strings.Join([]string{
		"world: MPI_COMM_WORLD",
		"self: MPI_COMM_SELF",
		"null: MPI_COMM_NULL",
		"null string: comm MPI_COMM_NULL",
		"dup: MPI_COMM_WORLD.dup",
		"split of dup: MPI_COMM_WORLD.dup.split",
		"freed: MPI_COMM_NULL",
	}, "\n")
	if got := strings.TrimSpace(j.Stdout); got != want {
		t.Errorf("names:\n%s\nwant:\n%s", got, want)
	}
	// The trace names the communicator of each call as Comm.Name does,
	// beside its own shorter id.
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{`"comm":"MPI_COMM_WORLD","comm_id":"world"`, `"comm":"MPI_COMM_WORLD.dup","comm_id":"world.0"`} {
		if !strings.Contains(string(data), arg) {
			t.Errorf("the trace has no call with args %s", arg)
		}
	}
}
