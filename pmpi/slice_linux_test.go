package pmpi

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/params"
)

// TestSchedSliceEveryThread: every thread of the process asks for the
// slice and keeps its nice value.
func TestSchedSliceEveryThread(t *testing.T) {
	before, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if before.Runtime == 0 {
		t.Skip("this kernel reports no slice of a normal thread (before Linux 6.12)")
	}
	const us = 250
	if err := setSchedSlice(us); err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil {
			continue // exited
		}
		if attr.Runtime != us*1000 {
			t.Errorf("thread %d: slice %d ns, want %d", tid, attr.Runtime, us*1000)
		}
		if attr.Nice != before.Nice {
			t.Errorf("thread %d: nice %d, want %d as before", tid, attr.Nice, before.Nice)
		}
	}
}

func TestSchedSliceBounds(t *testing.T) {
	reg := params.NewRegistry()
	if err := RegisterParams(reg); err != nil {
		t.Fatal(err)
	}
	for v, ok := range map[string]bool{"0": true, "100": true, "100000": true, "99": false, "100001": false, "-1": false} {
		_, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: paramSlice, Value: v}}})
		if ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "from 100 to 100000") {
			t.Errorf("%s=%s: %v", paramSlice, v, err)
		}
	}
}
