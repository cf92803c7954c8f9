package pmpi

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// setSchedSlice asks the kernel for slices of us microseconds on every
// thread of the process (threads made later inherit it from the thread
// that makes them). A rank that a peer's message wakes while another
// process holds its CPU runs when that process's slice ends: with the
// kernel's default of a few milliseconds, each wait of a rank sharing its
// CPU costs that much, and a shorter slice brings it back sooner without
// changing the rank's share of the CPU. Kernels before 6.12 ignore the
// request; a thread in another scheduling class than the normal ones is
// left alone.
func setSchedSlice(us int) error {
	if us <= 0 {
		return nil
	}
	want := uint64(us) * 1000
	// A thread made during a pass by one not yet changed misses it: pass
	// again until a pass changes nothing (kernels that report no slice
	// stop at the bound).
	for range 4 {
		changed, err := setSliceOnce(want)
		if err != nil || changed == 0 {
			return err
		}
	}
	return nil
}

// setSliceOnce asks for slices of want ns on every thread that lacks it
// and returns how many it changed.
func setSliceOnce(want uint64) (int, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, err
	}
	changed := 0
	var errs []error
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil {
			if !errors.Is(err, unix.ESRCH) { // a thread that exited
				errs = append(errs, err)
			}
			continue
		}
		if attr.Runtime == want || attr.Policy != unix.SCHED_NORMAL && attr.Policy != unix.SCHED_BATCH {
			continue
		}
		attr.Runtime = want
		attr.Flags &= unix.SCHED_FLAG_RESET_ON_FORK
		if err := unix.SchedSetAttr(tid, attr, 0); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, err)
		}
		changed++
	}
	return changed, errors.Join(errs...)
}
