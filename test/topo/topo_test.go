// Package topo_test runs process-topology scenarios as real multi-rank
// jobs: it builds gompirun and the topocheck program and launches them as
// a user would.
package topo_test

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, topocheck string

func TestMain(m *testing.M) {
	jobtest.Main(m, map[string]string{"gompirun": "../../cmd/gompirun", "topocheck": "./testdata/topocheck"}, func(bins map[string]string) {
		gompirun, topocheck = bins["gompirun"], bins["topocheck"]
	})
}

// TestScenarios runs each scenario over shared memory and over tcp, on
// grids of 4 ranks (2x2) and 6 (3x2).
func TestScenarios(t *testing.T) {
	tests := []struct {
		scenario string
		nps      []int
	}{
		{"cart", []int{4, 6}},
		{"beyond", []int{4, 6}},
		{"sub", []int{4, 6}},
		{"halo", []int{4, 6}},
		{"graph", []int{4}},
		{"distgraph", []int{4}},
		{"neighbor", []int{4, 6}},
		{"neighbor-graph", []int{4}},
		{"neighbor-nonblocking", []int{4}},
		{"neighbor-mismatch", []int{2, 4}},
		{"neighbor-alltoallw", []int{4, 6}},
	}
	for _, btl := range []string{"self,sm", "self,tcp"} {
		for _, tt := range tests {
			for _, np := range tt.nps {
				t.Run(fmt.Sprintf("%s/%s-np%d", btl, tt.scenario, np), func(t *testing.T) {
					t.Parallel()
					j := jobtest.Run(t, gompirun, 2*time.Minute, nil, "-np", fmt.Sprint(np), "--oversubscribe",
						"--timeout", "100", "--mca", "btl", btl, topocheck, tt.scenario)
					jobtest.ExpectOK(t, j, tt.scenario, np)
				})
			}
		}
	}
}

// TestNeighborThroughSegment runs the neighbourhood scenarios with coll
// sm's segment made at the first call (coll_sm_segment_after 0), so that
// the grids' blocking calls go through it rather than through basic's
// messages: 1-D and 2-D grids of 2 to 8 ranks, every combination of
// periods, a rank its own neighbour in dimensions of one or two ranks.
func TestNeighborThroughSegment(t *testing.T) {
	for _, np := range []int{2, 3, 4, 8} {
		for _, scenario := range []string{"neighbor", "neighbor-graph", "neighbor-nonblocking", "neighbor-mismatch"} {
			t.Run(fmt.Sprintf("%s-np%d", scenario, np), func(t *testing.T) {
				t.Parallel()
				j := jobtest.Run(t, gompirun, 2*time.Minute, nil, "-np", fmt.Sprint(np), "--oversubscribe",
					"--timeout", "100", "--mca", "btl", "self,sm", "--mca", "coll_sm_segment_after", "0", topocheck, scenario)
				jobtest.ExpectOK(t, j, scenario, np)
			})
		}
	}
}

// TestReorderAcrossHosts runs each rank in a UTS namespace of its own,
// named after its host: rank r on host fake<r mod hosts>, so that each
// host's ranks are spread over the world's order. CartCreate with
// reorder must bring each host's ranks onto whole rows of the grid.
func TestReorderAcrossHosts(t *testing.T) {
	if out, err := exec.Command("unshare", "--uts", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot give ranks hosts of their own (unshare --uts needs root): %v: %s; the placement's unit tests in pmpi cover it", err, out)
	}
	for _, c := range []struct{ np, hosts int }{{4, 2}, {6, 3}} {
		t.Run(fmt.Sprintf("np%d-hosts%d", c.np, c.hosts), func(t *testing.T) {
			t.Parallel()
			script := fmt.Sprintf("hostname fake$((GOMPI_COMM_WORLD_RANK %% %d)) && exec %s reorder", c.hosts, topocheck)
			j := jobtest.Run(t, gompirun, 2*time.Minute, nil, "-np", fmt.Sprint(c.np), "--oversubscribe",
				"--timeout", "100", "--mca", "btl", "self,tcp", "unshare", "--uts", "sh", "-c", script)
			jobtest.ExpectOK(t, j, "reorder", c.np)
		})
	}
}
