package p2p_test

import (
	"fmt"
	"testing"
	"time"
)

// TestIntercommunicators runs the intercommunicator and CommCreateGroup
// scenarios (p2pcheck inter.go) over sm and tcp: halves of several
// shapes, merges, concurrent creations, a group made while the other
// ranks are busy, and the calls that must fail without leaving a rank
// waiting.
func TestIntercommunicators(t *testing.T) {
	tests := []struct {
		scenario string
		np       int
	}{
		{"inter", 4},
		{"inter", 3},
		{"inter", 2},
		{"interconcurrent", 4},
		{"interconcurrent", 5},
		{"creategroup", 4},
		{"intererrors", 4},
		{"intererrors", 3},
	}
	for _, btl := range transports {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%s-np%d", btl, tt.scenario, tt.np), func(t *testing.T) {
				t.Parallel()
				j := run(t, 3*time.Minute, nil, "-np", fmt.Sprint(tt.np), "--oversubscribe", "--timeout", "120",
					"--mca", "btl", btl, p2pcheck, tt.scenario)
				expectOK(t, j, tt.scenario, tt.np)
			})
		}
	}
}
