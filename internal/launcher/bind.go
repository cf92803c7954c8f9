package launcher

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Bind is a binding policy: which CPUs each rank may run on.
type Bind int

const (
	// BindNone leaves placement to the kernel; it is Config's zero value.
	BindNone Bind = iota
	// BindAuto gives each rank its own share of the CPUs when the ranks fit
	// (one rank on a 4-CPU host keeps all 4; 2 ranks get 2 each), and pins
	// rank r to the (r mod n)-th CPU when they do not, so that every CPU
	// carries as many ranks as any other: left to the kernel, 4 ranks on 2
	// CPUs often ran 3 on one, and a 4-rank alltoall took 18.5 us a call
	// instead of 10.5 in some runs. gompirun's default.
	BindAuto
	// BindCore pins rank r to the (r mod n)-th of the n allowed CPUs.
	BindCore
)

// rankCPUs returns the CPUs each of np ranks is bound to under b, nil for
// no binding; cpus are the CPUs gompirun may use.
func (b Bind) rankCPUs(np int, cpus []int) [][]int {
	n := len(cpus)
	switch {
	case b == BindNone:
		return nil
	case b == BindCore, b == BindAuto && np > n:
		out := make([][]int, np)
		for r := range out {
			out[r] = []int{cpus[r%n]}
		}
		return out
	}
	out := make([][]int, np)
	for r := range out {
		out[r] = cpus[r*n/np : (r+1)*n/np] // an even split; earlier ranks never get fewer
	}
	return out
}

// cpuSet is the affinity mask of cpus.
func cpuSet(cpus []int) unix.CPUSet {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return set
}

// allowedCPUs lists the CPUs this process may run on, in order. Using the mask rather than 0..NumCPU-1
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

// LocalCPUs returns the CPUs each of n ranks of this host is bound to
// under b, by local rank, as Run binds them; nil for no binding.
func LocalCPUs(b Bind, n int) ([][]int, error) {
	if b == BindNone || n == 0 {
		return nil, nil
	}
	cpus, err := allowedCPUs()
	if err != nil {
		return nil, fmt.Errorf("--bind-to: %w", err)
	}
	return b.rankCPUs(n, cpus), nil
}
