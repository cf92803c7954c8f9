package pmi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// buildProg builds testdata/pmiprog, the program each rank runs, or takes
// make test's build of it.
func buildProg(t *testing.T) string {
	t.Helper()
	bins, err := jobtest.Build(t.TempDir(), map[string]string{"pmiprog": "./testdata/pmiprog"})
	if err != nil {
		t.Fatal(err)
	}
	return bins["pmiprog"]
}

var rankLine = regexp.MustCompile(`(?m)^rank (\d+) size (\d+) local (\d+)/(\d+) node (\d+) appnum (-?\d+) (PMI-\d) job (\S+) ok$`)

// placement is what one rank printed.
type placement struct{ local, localSize, node int }

// mpiexec runs pmiprog under Hydra and returns each rank's placement.
// The deadline only stops a hung launcher from holding the test run.
func mpiexec(t *testing.T, launcher string, args ...string) (map[int]placement, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, launcher, args...)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	got := map[int]placement{}
	for _, m := range rankLine.FindAllStringSubmatch(string(out), -1) {
		n := make([]int, 6)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+1])
		}
		got[n[0]] = placement{local: n[2], localSize: n[3], node: n[4]}
	}
	return got, string(out), err
}

// cleanEnv drops PMI variables a surrounding launcher may have set.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PMI") && !strings.HasPrefix(kv, "MPI_LOCAL") {
			env = append(env, kv)
		}
	}
	return env
}

// TestHydra runs real jobs under MPICH's mpiexec (Hydra) in both
// protocols, over an inherited socket and over -pmi-port, and checks
// every rank's key exchange and its node layout. Hydra counts a second
// host name that resolves to this machine (localhost) as another node, so
// layouts over two nodes are checked on one machine.
func TestHydra(t *testing.T) {
	launcher, err := exec.LookPath("mpiexec.mpich")
	if err != nil {
		t.Skip("mpiexec.mpich (MPICH's Hydra) is not installed")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	prog := buildProg(t)
	one := func(size int) map[int]placement {
		m := map[int]placement{}
		for r := 0; r < size; r++ {
			m[r] = placement{r, size, 0}
		}
		return m
	}
	cases := []struct {
		name string
		args []string
		want map[int]placement
	}{
		{"PMI-1 -n 3", []string{"-n", "3", prog}, one(3)},
		{"PMI-2 -n 3", []string{"-n", "3", prog, "-pmi", "2"}, one(3)},
		{"PMI-1 -n 3 long values", []string{"-n", "3", prog, "-value-size", "3000"}, one(3)},
		{"PMI-2 -n 3 long values", []string{"-n", "3", prog, "-pmi", "2", "-value-size", "3000"}, one(3)},
		{"PMI-1 -ppn 2 on two nodes", []string{"-n", "4", "-ppn", "2", "-hosts", host + ",localhost", prog},
			map[int]placement{0: {0, 2, 0}, 1: {1, 2, 0}, 2: {0, 2, 1}, 3: {1, 2, 1}}},
		{"PMI-2 -ppn 2 on two nodes", []string{"-n", "4", "-ppn", "2", "-hosts", host + ",localhost", prog, "-pmi", "2"},
			map[int]placement{0: {0, 2, 0}, 1: {1, 2, 0}, 2: {0, 2, 1}, 3: {1, 2, 1}}},
		// Five ranks on 2+1 slots: the mapping (vector,(0,1,2),(1,1,1))
		// wraps, putting ranks 3 and 4 back on node 0.
		{"PMI-1 -pmi-port wrapping layout", []string{"-pmi-port", "-n", "5", "-hosts", host + ":2,localhost:1", prog, "-pmi", "1", "-value-size", "2000"},
			map[int]placement{0: {0, 4, 0}, 1: {1, 4, 0}, 2: {0, 1, 1}, 3: {2, 4, 0}, 4: {3, 4, 0}}},
		{"PMI-2 -pmi-port wrapping layout", []string{"-pmi-port", "-n", "5", "-hosts", host + ":2,localhost:1", prog, "-pmi", "2", "-value-size", "2000"},
			map[int]placement{0: {0, 4, 0}, 1: {1, 4, 0}, 2: {0, 1, 1}, 3: {2, 4, 0}, 4: {3, 4, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if host == "localhost" && len(tc.want) > 3 {
				t.Skip("the host is named localhost, so Hydra cannot be shown two nodes on it")
			}
			got, out, err := mpiexec(t, launcher, tc.args...)
			if err != nil {
				t.Fatalf("mpiexec %v: %v\n%s", tc.args, err, out)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("placements %v, want %v\n%s", describe(got), describe(tc.want), out)
			}
		})
	}
}

func describe(m map[int]placement) []string {
	var s []string
	for r, p := range m {
		s = append(s, fmt.Sprintf("rank %d: local %d/%d node %d", r, p.local, p.localSize, p.node))
	}
	sort.Strings(s)
	return s
}

// TestHydraAbort: under PMI-1 Hydra ends the job with the exit code
// Abort sent.
func TestHydraAbort(t *testing.T) {
	launcher, err := exec.LookPath("mpiexec.mpich")
	if err != nil {
		t.Skip("mpiexec.mpich (MPICH's Hydra) is not installed")
	}
	prog := buildProg(t)
	_, out, err := mpiexec(t, launcher, "-n", "3", prog, "-pmi", "1", "-abort", "1")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("mpiexec with rank 1 aborting: %v, want exit code 7\n%s", err, out)
	}
}
