package compare

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkLineCrossing is CrossLines for b.N round trips:
// ns/crossing is half a round trip, the machine's state.
func BenchmarkLineCrossing(b *testing.B) {
	if runtime.NumCPU() < 2 || runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two CPUs and two Ps")
	}
	d, err := CrossLines(b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(d.Nanoseconds())/float64(2*b.N), "ns/crossing")
}

// TestLineCrossing: where two CPUs can be used, round trips take some
// time and the caller's thread is not left bound to one CPU; with one P
// they are refused.
func TestLineCrossing(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was, is unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		t.Fatal(err)
	}
	// A few round trips: on a loaded machine each may wait for a slice.
	d, err := CrossLines(1000)
	if runtime.GOMAXPROCS(0) >= 2 && (err != nil || d <= 0) {
		t.Errorf("1000 round trips took %v: %v", d, err)
	}
	if err := unix.SchedGetaffinity(0, &is); err != nil || is != was {
		t.Errorf("the caller's thread may use %d CPUs after, %d before (%v)", is.Count(), was.Count(), err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if _, err := CrossLines(10); err == nil {
		t.Error("a crossing with one P did not fail")
	}
}
