package p2p_test

import "testing"

// TestIntercommunicators runs the intercommunicator and CommCreateGroup
// scenarios (p2pcheck inter.go) over sm and tcp: halves of several
// shapes, merges, concurrent creations, a group made while the other
// ranks are busy, and the calls that must fail without leaving a rank
// waiting.
func TestIntercommunicators(t *testing.T) {
	tests := []scenario{
		{"inter", 4, nil},
		{"inter", 3, nil},
		{"inter", 2, nil},
		{"interconcurrent", 4, nil},
		{"interconcurrent", 5, nil},
		{"creategroup", 4, nil},
		{"intererrors", 4, nil},
		{"intererrors", 3, nil},
	}
	runScenarios(t, tests)
}
