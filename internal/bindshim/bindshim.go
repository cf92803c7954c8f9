// Package bindshim is the binding shim that gompirun starts a bound rank
// through: it pins itself to the rank's CPUs and execs the program, which
// keeps the pid and inherits the affinity mask. It imports next to nothing
// so that cmd/gompi-bind, which runs it, starts in a few milliseconds:
// gompirun itself, which runs it when gompi-bind is missing, takes about
// 40 ms of CPU to start on a small virtual machine, once per rank.
package bindshim

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// EnvVar switches a binary into the shim: it is started with
// EnvVar=<cpu>[,<cpu>...] and the arguments "-- <path> <argv0> [args...]".
const EnvVar = "GOMPI_INTERNAL_BIND"

// Run sets this thread's CPU affinity to the comma-separated cpus and
// replaces the process with the program named in args. It returns only
// on failure.
func Run(cpus string, args []string) error {
	var set unix.CPUSet
	for _, f := range strings.Split(cpus, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return fmt.Errorf("binding shim: %s=%q: want CPU numbers separated by commas", EnvVar, cpus)
		}
		set.Set(n)
	}
	if len(args) < 3 || args[0] != "--" {
		return errors.New("binding shim: want arguments -- PATH ARGV0 [ARGS...]; this mode is internal to gompirun")
	}
	path, argv := args[1], args[2:]

	// The mask is per thread; exec keeps the calling thread's mask, so
	// stay on the thread that set it.
	runtime.LockOSThread()
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("binding shim: binding to CPUs %s: %w", cpus, err)
	}
	if err := os.Unsetenv(EnvVar); err != nil {
		return fmt.Errorf("binding shim: %w", err)
	}
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("cannot run %q: %w", path, err)
	}
	return nil // not reached
}
