package wrappergen

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestGeneratedCodeCompiles vets the committed generated packages and the
// program that links them: go build ./... skips testdata.
func TestGeneratedCodeCompiles(t *testing.T) {
	cmd := exec.Command("go", "vet", "./testdata/gen/...", "./testdata/profprog")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
}

// TestCounterJob runs the generated counter component in a 2-rank job and
// checks that its counts match the calls profprog makes.
func TestCounterJob(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a gompirun job")
	}
	bins, err := jobtest.Build(t.TempDir(), map[string]string{"gompirun": "../../cmd/gompirun", "profprog": "./testdata/profprog"})
	if err != nil {
		t.Fatal(err)
	}
	j := jobtest.Run(t, bins["gompirun"], 120*time.Second, nil,
		"--timeout", "90", "-np", "2", "--mca", "prof", "counter", bins["profprog"])
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	counts := map[string]int{} // "rank name" -> count
	re := regexp.MustCompile(`(?m)^counter rank (\d+): (\w+) (\d+)$`)
	for _, m := range re.FindAllStringSubmatch(j.Stdout, -1) {
		n, _ := strconv.Atoi(m[3])
		counts[m[1]+" "+m[2]] = n
	}
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
		t.Log(fmt.Sprint(j))
	}
}
