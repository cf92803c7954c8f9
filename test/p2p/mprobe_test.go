package p2p_test

import (
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestMatchedProbe runs the matched probe's scenarios over every
// transport: messages of unknown size taken by Mprobe and Improbe and
// received by Mrecv and Imrecv, MessageNoProc and the errors (mprobe),
// and a goroutine's Mprobe and Mrecv racing another's Recv (mproberace).
func TestMatchedProbe(t *testing.T) {
	tests := []scenario{
		{"mprobe", 2, nil},
		{"mprobe", 3, nil},
		{"mproberace", 2, nil},
		{"mproberace", 3, nil},
		// With small eager limits most messages take the rendezvous path.
		{"mproberace", 2, smallEager},
	}
	runScenarios(t, tests)
}

// TestMatchedProbeSingleCopy receives Mprobe'd messages around the sizes
// where sm changes how it moves them: eager to 63 KiB, read by single
// copy from there (by default and from a threshold of its own; the
// scenario's blocking sends asked to), or through the rings in fragments
// without it.
func TestMatchedProbeSingleCopy(t *testing.T) {
	blocking := []string{"--mca", "btl_sm_single_copy_blocking_threshold", "1"}
	tests := []struct {
		name  string
		mca   []string
		sizes []string
	}{
		{"sm", blocking, boundaries(63<<10, 126<<10)},
		{"sm-single-copy", append([]string{"--mca", "btl_sm_single_copy_threshold", "100000"}, blocking...), boundaries(63<<10, 100000)},
		{"sm-ring", []string{"--mca", "btl_sm_single_copy_mechanism", "none"}, boundaries(63<<10, 126<<10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-np", "3", "--oversubscribe", "--timeout", "120", "--mca", "btl", "self,sm"}, tt.mca...)
			j := run(t, 3*time.Minute, nil, append(append(args, p2pcheck, "mprobe"), tt.sizes...)...)
			jobtest.ExpectOK(t, j, "mprobe", 3)
		})
	}
}
