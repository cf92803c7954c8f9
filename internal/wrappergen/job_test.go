package wrappergen

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestGeneratedCodeCompiles builds the committed generated packages and
// the program that links them: go build ./... skips testdata. make lint
// vets them. A build (unlike go vet) takes GOFLAGS' -buildmode, and so
// reuses what make test compiled.
func TestGeneratedCodeCompiles(t *testing.T) {
	cmd := exec.Command("go", "build", "./testdata/gen/...", "./testdata/profprog")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// TestJobs runs generated components in 2-rank jobs of profprog: the
// counter alone, whose counts must match the calls profprog makes, and the
// three examples nested, whose message sizes are known.
func TestJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gompirun jobs")
	}
	bins, err := jobtest.Build(t.TempDir(), map[string]string{"gompirun": "../../cmd/gompirun", "profprog": "./testdata/profprog"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, tool string) jobtest.Job {
		j := jobtest.Run(t, bins["gompirun"], 120*time.Second, nil,
			"--timeout", "90", "-np", "2", "--mca", "prof", tool, bins["profprog"])
		if j.Code != 0 {
			t.Fatalf("job failed\n%v", j)
		}
		return j
	}

	t.Run("counter", func(t *testing.T) {
		j := run(t, "counter")
		counts := counterLines(j.Stdout)
		want := map[string]int{
			"0 Init": 1, "0 Send": 3, "0 Recv": 0, "0 Barrier": 2, "0 Allreduce": 1,
			"1 Init": 1, "1 Send": 0, "1 Recv": 3, "1 Barrier": 2, "1 Allreduce": 1,
			// Finalize is counted before the counts are printed.
			"0 Finalize": 1, "1 Finalize": 1,
		}
		for k, n := range want {
			if counts[k] != n {
				t.Errorf("rank %s: count %d, want %d", k, counts[k], n)
			}
		}
		if t.Failed() {
			t.Log(j)
		}
	})

	t.Run("nested", func(t *testing.T) {
		j := run(t, "nested")
		if counts := counterLines(j.Stdout); counts["0 Send"] != 3 || counts["1 Recv"] != 3 {
			t.Errorf("counter in the nest: rank 0 Send %d, rank 1 Recv %d; want 3 and 3", counts["0 Send"], counts["1 Recv"])
		}
		for tag := range 3 {
			// 4 int32 elements a message.
			line := fmt.Sprintf("msgsize: Send to 1 tag %d: 16 bytes (buffer 16)\n", tag)
			if !strings.Contains(j.Stderr, line) {
				t.Errorf("stderr lacks %q", line)
			}
		}
		for _, s := range []string{"timing rank 0: Send calls=3 ", "timing rank 1: Recv calls=3 ", "timing rank 0: Barrier calls=2 "} {
			if !strings.Contains(j.Stderr, s) {
				t.Errorf("stderr lacks %q", s)
			}
		}
		if t.Failed() {
			t.Log(j)
		}
	})
}

// counterLines reads the counter's report: "rank call" to count.
func counterLines(out string) map[string]int {
	counts := map[string]int{}
	re := regexp.MustCompile(`(?m)^counter rank (\d+): (\w+) (\d+)$`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[3])
		counts[m[1]+" "+m[2]] = n
	}
	return counts
}
