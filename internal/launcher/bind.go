package launcher

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// BindEnvVar switches gompirun into its internal binding shim: gompirun
// re-executes itself with BindEnvVar=<cpu> and the arguments
// "-- <path> <argv0> [args...]"; the shim pins itself to that CPU and execs
// the program, which keeps the pid and inherits the affinity mask. Users
// never set it.
const BindEnvVar = "GOMPI_INTERNAL_BIND"

// RunBindShim is the binding shim: it sets this thread's CPU affinity to
// cpu and replaces the process with the program named in args. It returns
// only on failure.
func RunBindShim(cpu string, args []string) error {
	n, err := strconv.Atoi(cpu)
	if err != nil || n < 0 {
		return fmt.Errorf("binding shim: %s=%q: want a CPU number", BindEnvVar, cpu)
	}
	if len(args) < 3 || args[0] != "--" {
		return errors.New("binding shim: want arguments -- PATH ARGV0 [ARGS...]; this mode is internal to gompirun")
	}
	path, argv := args[1], args[2:]

	// The mask is per thread; exec keeps the calling thread's mask, so
	// stay on the thread that set it.
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(n)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("binding shim: binding to CPU %d: %w", n, err)
	}
	if err := os.Unsetenv(BindEnvVar); err != nil {
		return fmt.Errorf("binding shim: %w", err)
	}
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("cannot run %q: %w", path, err)
	}
	return nil // not reached
}

// allowedCPUs lists the CPUs this process may run on, in order; rank r is
// bound to the (r mod len)-th. Using the mask rather than 0..NumCPU-1
// respects cpusets and taskset.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("reading the CPU affinity mask: %w", err)
	}
	var cpus []int
	for cpu := 0; len(cpus) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) == 0 {
		return nil, errors.New("the CPU affinity mask is empty")
	}
	return cpus, nil
}
