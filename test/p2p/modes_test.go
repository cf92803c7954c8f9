package p2p_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestModes runs the send modes, persistent requests, Request.Free and the
// completion calls over shared memory and tcp.
func TestModes(t *testing.T) {
	tests := []struct {
		scenario string
		np       int
		mca      []string
	}{
		{"sendmodes", 2, nil},
		{"rsendearly", 2, nil},
		{"bsendroom", 2, nil},
		{"bsendalone", 2, nil},
		// The rendezvous messages through the rings, which move only when
		// the sender's side polls: its buffered sends' own goroutine does.
		{"bsendalone", 2, []string{"--mca", "btl_sm_single_copy_mechanism", "none"}},
		{"persistent", 3, nil},
		{"persistent", 2, nil},
		{"reqfree", 2, nil},
		{"sendrecvring", 3, nil},
		{"sendrecvring", 1, nil},
		{"mixedsome", 2, nil},
		{"startallocs", 2, nil},
		{"modesmore", 3, nil},
	}
	for _, btl := range transports {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%s-np%d-%s", btl, tt.scenario, tt.np, strings.Join(tt.mca, "_")), func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-np", fmt.Sprint(tt.np), "--oversubscribe", "--timeout", "120", "--mca", "btl", btl}, tt.mca...)
				j := run(t, 3*time.Minute, nil, append(args, p2pcheck, tt.scenario)...)
				expectOK(t, j, tt.scenario, tt.np)
			})
		}
	}
}
