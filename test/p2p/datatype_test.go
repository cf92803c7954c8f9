package p2p_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestDatatypes runs the derived-datatype scenarios (testdata/p2pcheck/
// datatypes.go) over each transport: self alone with one rank, sending
// to itself, and sm and tcp between ranks, with small eager limits too,
// so that packed messages take the rendezvous path.
func TestDatatypes(t *testing.T) {
	small := []string{"--mca", "btl_tcp_eager_limit", "256", "--mca", "btl_sm_eager_limit", "256", "--mca", "btl_self_eager_limit", "0"}
	type job struct {
		scenario string
		np       int
		btl      string
		mca      []string
		variant  string // names mca in the test's name
	}
	tests := []job{
		{"ddt-p2p", 1, "self", nil, ""},
		{"ddt-p2p", 1, "self", small, "small-eager"},
		{"ddt-reduce", 1, "self", nil, ""},
		{"ddt-coll", 1, "self", nil, ""},
		{"ddt-collv", 1, "self", nil, ""},
		{"ddt-modes", 1, "self", nil, ""},
		{"ddt-darray", 1, "self", nil, ""},
		// Blocking sends of long blocks read by single copy (ExposeVector)
		// on any machine; by default they stream while each rank has a CPU.
		{"ddt-p2p", 2, "self,sm", []string{"--mca", "btl_sm_single_copy_blocking_threshold", "1"}, "blocking-single-copy"},
	}
	for _, btl := range transports {
		tests = append(tests,
			job{"ddt-p2p", 3, btl, nil, ""},
			job{"ddt-p2p", 2, btl, small, "small-eager"},
			job{"ddt-reduce", 4, btl, nil, ""},
			job{"ddt-coll", 4, btl, nil, ""},
			job{"ddt-collv", 3, btl, nil, ""},
			job{"ddt-errors", 2, btl, nil, ""},
			job{"ddt-modes", 3, btl, nil, ""},
			job{"ddt-modes", 2, btl, small, "small-eager"},
			job{"ddt-darray", 3, btl, nil, ""},
			job{"ddt-darray", 4, btl, small, "small-eager"},
		)
	}
	for _, tt := range tests {
		variant := ""
		if tt.variant != "" {
			variant = "-" + tt.variant
		}
		t.Run(fmt.Sprintf("%s/%s-np%d%s", tt.btl, tt.scenario, tt.np, variant), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-np", fmt.Sprint(tt.np), "--oversubscribe", "--timeout", "120", "--mca", "btl", tt.btl}, tt.mca...)
			j := run(t, 3*time.Minute, nil, append(args, p2pcheck, tt.scenario)...)
			jobtest.ExpectOK(t, j, tt.scenario, tt.np)
		})
	}
}
