package p2p_test

import "testing"

// TestModes runs the send modes, persistent and partitioned requests,
// Request.Free, the completion calls and generalized requests over shared
// memory and tcp.
func TestModes(t *testing.T) {
	tests := []scenario{
		{"sendmodes", 2, nil},
		{"rsendearly", 2, nil},
		{"bsendroom", 2, nil},
		{"bsendalone", 2, nil},
		// The rendezvous messages through the rings, which move only when
		// the sender's side polls: its buffered sends' own goroutine does.
		{"bsendalone", 2, []string{"--mca", "btl_sm_single_copy_mechanism", "none"}},
		{"isendalone", 2, nil},
		{"persistent", 3, nil},
		{"persistent", 2, nil},
		{"reqfree", 2, nil},
		{"sendrecvring", 3, nil},
		{"sendrecvring", 1, nil},
		{"mixedsome", 2, nil},
		{"startallocs", 2, nil},
		{"modesmore", 3, nil},
		{"grequest", 1, nil},
		{"grequest", 2, nil},
		{"partitioned", 2, nil},
		{"partitioned", 3, nil},
		{"partitioned-errors", 2, nil},
	}
	runScenarios(t, tests)
}
