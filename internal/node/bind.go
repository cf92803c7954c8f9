package node

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/cpuset"
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

// RankCPUs returns the CPUs each of np ranks is bound to under b, nil for
// no binding; cpus are the CPUs gompirun may use.
func (b Bind) RankCPUs(np int, cpus []int) [][]int {
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

// LocalCPUs returns the CPUs each of n ranks of this host is bound to
// under b, by local rank, as Run binds them; nil for no binding.
func LocalCPUs(b Bind, n int) ([][]int, error) {
	if b == BindNone || n == 0 {
		return nil, nil
	}
	cpus, err := cpuset.Allowed()
	if err != nil {
		return nil, fmt.Errorf("--bind-to: %w", err)
	}
	return b.RankCPUs(n, cpus), nil
}

// bindNames are the policies' names, as --bind-to spells them.
var bindNames = map[Bind]string{BindNone: "none", BindAuto: "auto", BindCore: "core"}

// String is the policy's name, as --bind-to spells it.
func (b Bind) String() string {
	if s, ok := bindNames[b]; ok {
		return s
	}
	return fmt.Sprintf("Bind(%d)", int(b))
}

// parseBind reads a policy's name.
func parseBind(s string) (Bind, error) {
	for b, name := range bindNames {
		if s == name {
			return b, nil
		}
	}
	return 0, fmt.Errorf("binding policy %q: allowed values are auto, core and none", s)
}

// hostCPUs lists the CPUs this host allows the ranks a daemon starts, in
// order: not the daemon's own mask, which a launcher may have narrowed
// (a Slurm step bound to one CPU), but what the kernel grants when a
// thread asks for every CPU: all the host's CPUs within the cpuset the
// daemon runs in. The asking thread keeps that mask, so its goroutine
// ends locked and the thread exits with it.
func hostCPUs() ([]int, error) {
	type answer struct {
		cpus []int
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with its widened mask
		set := cpuSet(everyCPU())
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			ch <- answer{err: fmt.Errorf("widening the CPU affinity mask: %w", err)}
			return
		}
		cpus, err := cpuset.Allowed()
		ch <- answer{cpus, err}
	}()
	a := <-ch
	return a.cpus, a.err
}

// everyCPU lists every CPU a mask can name. A mask of them all is
// clamped by the kernel to the CPUs the cpuset allows.
func everyCPU() []int {
	cpus := make([]int, len(unix.CPUSet{})*64)
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}
