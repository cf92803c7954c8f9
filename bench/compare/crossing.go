package compare

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/bench/table"
	"github.com/gompi/gompi/internal/cpuset"
)

// LineCrossing times a cache line's crossing between the first two CPUs
// the process may use, the floor under every shared-memory transport's
// small-message latency: the median over a few rounds of half a round
// trip, in ns. On a virtual machine it changes with where the host runs
// the two virtual CPUs, often within seconds, and every library's latency
// with it; Run measures it at every turn so that the tables say in which
// state each turn ran.
func LineCrossing() (float64, error) {
	const rounds, trips = 5, 20000
	per := make([]float64, rounds)
	for i := range per {
		d, err := CrossLines(trips)
		if err != nil {
			return 0, err
		}
		per[i] = float64(d.Nanoseconds()) / (2 * trips)
	}
	return table.Median(per), nil
}

// CrossLines passes a counter n times there and back between two threads,
// each pinned to one of the first two CPUs the process may use, through
// two words on cache lines of their own, as sm's rings pass a record's
// first word, and returns how long the n round trips took.
func CrossLines(n int) (time.Duration, error) {
	cpus, err := cpuset.Allowed()
	if err != nil {
		return 0, err
	}
	if len(cpus) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return 0, fmt.Errorf("a cache line's crossing needs two CPUs and two Ps; this process may use CPUs %s with %d Ps",
			cpuset.Format(cpus), runtime.GOMAXPROCS(0))
	}
	const line = 64
	var words struct {
		_    [line]byte
		ping atomic.Int64
		_    [2*line - 8]byte
		pong atomic.Int64
		_    [line - 8]byte
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		return 0, fmt.Errorf("reading this thread's CPUs: %w", err)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &was) }()
	ready, done := make(chan error), make(chan struct{})
	go func() {
		defer close(done)
		// Never unlocked: the pinned thread ends with this goroutine.
		runtime.LockOSThread()
		err := pin(cpus[1])
		ready <- err
		if err != nil {
			return
		}
		for i := int64(1); i <= int64(n); i++ {
			for v := words.ping.Load(); v != i; v = words.ping.Load() {
				if v < 0 { // stop
					return
				}
			}
			words.pong.Store(i)
		}
	}()
	err = pin(cpus[0])
	if perr := <-ready; err == nil {
		err = perr
	}
	if err != nil {
		words.ping.Store(-1)
		<-done
		return 0, err
	}
	start := time.Now()
	for i := int64(1); i <= int64(n); i++ {
		words.ping.Store(i)
		for words.pong.Load() != i {
		}
	}
	took := time.Since(start)
	<-done
	return took, nil
}

// pin binds the calling thread to cpu.
func pin(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("binding a thread to CPU %d: %w", cpu, err)
	}
	return nil
}
