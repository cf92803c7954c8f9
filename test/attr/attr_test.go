// Package attr_test runs the attribute and info scenarios as real
// multi-rank jobs: it builds gompirun and the attrcheck program and
// launches them as a user would.
package attr_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, attrcheck string

func TestMain(m *testing.M) {
	jobtest.Main(m, map[string]string{"gompirun": "../../cmd/gompirun", "attrcheck": "./testdata/attrcheck"}, func(bins map[string]string) {
		gompirun, attrcheck = bins["gompirun"], bins["attrcheck"]
	})
}

// TestScenarios runs each scenario over shared memory and over tcp.
func TestScenarios(t *testing.T) {
	for _, btl := range []string{"self,sm", "self,tcp"} {
		for _, tt := range []struct {
			scenario string
			np       int
		}{{"comm", 3}, {"commerrors", 1}, {"predefined", 2}, {"info", 2}, {"types", 2}, {"idup", 3}, {"hints", 2}} {
			t.Run(fmt.Sprintf("%s/%s-np%d", btl, tt.scenario, tt.np), func(t *testing.T) {
				t.Parallel()
				j := jobtest.Run(t, gompirun, time.Minute, nil, "-np", fmt.Sprint(tt.np), "--oversubscribe",
					"--timeout", "60", "--mca", "btl", btl, attrcheck, tt.scenario)
				jobtest.ExpectOK(t, j, tt.scenario, tt.np)
				if tt.scenario == "comm" {
					expectHooks(t, j, tt.np)
				}
			})
		}
	}
}

// TestAppNum: on an MPMD command line, MPI_APPNUM is each rank's app
// context, and MPI_UNIVERSE_SIZE the whole job's size.
func TestAppNum(t *testing.T) {
	j := jobtest.Run(t, gompirun, time.Minute, nil, "--oversubscribe", "--timeout", "60",
		"-np", "1", attrcheck, "predefined", "0", ":", "-np", "2", attrcheck, "predefined", "1")
	jobtest.ExpectOK(t, j, "predefined", 3)
}

// expectHooks checks that Finalize ran each rank's CommSelf delete
// callbacks, the last set first, before Finalize returned.
func expectHooks(t *testing.T, j jobtest.Job, np int) {
	t.Helper()
	for r := range np {
		second := strings.Index(j.Stdout, fmt.Sprintf("finalize hook 2 rank %d\n", r))
		first := strings.Index(j.Stdout, fmt.Sprintf("finalize hook 1 rank %d\n", r))
		ok := strings.Index(j.Stdout, fmt.Sprintf("ok comm rank %d\n", r))
		if second < 0 || first < second || ok < first {
			t.Errorf("rank %d: Finalize's hooks at %d and %d, its end at %d; want hook 2, then 1, then the end\n%v", r, second, first, ok, j)
		}
	}
}
