package lowlevel

import "testing"

// The raw call is sched_yield, which cannot fail: a wrong call number
// would come back with an error (ENOSYS, or another call's EINVAL/EFAULT).
func TestYieldCallsSchedYield(t *testing.T) {
	for range 100 {
		if errno := schedYield(); errno != 0 {
			t.Fatalf("sched_yield: %v", errno)
		}
	}
}
