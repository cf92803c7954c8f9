package pmpi

import (
	"runtime"
	"testing"
)

func TestHostCPUsCountsTheHostNotTheMask(t *testing.T) {
	if n := hostCPUs(); n < runtime.NumCPU() {
		t.Fatalf("hostCPUs() = %d, fewer than this process may use (%d)", n, runtime.NumCPU())
	}
}
