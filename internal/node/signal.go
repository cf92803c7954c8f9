package node

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName is sig's name, as in SIGTERM.
func SignalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return "signal " + strconv.Itoa(int(sig))
}

// SignalGroup sends sig to the process group of a rank (its pid: ranks are
// started with Setpgid), reaching any children it left in the group.
// ESRCH means the group is already gone.
func SignalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %s to process group %d: %w", SignalName(sig), pid, err)
	}
	return nil
}
