package pmpi

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/internal/pml"
	"github.com/gompi/gompi/params"
)

// The MPI layer's own parameters, named as Open MPI's are (mpi_*).
const (
	paramYield = "mpi_yield_when_idle"
	paramBusy  = "mpi_poll_busy_us"
	paramSleep = "mpi_poll_sleep_ms"
	paramDoze  = "mpi_poll_doze_us"
	paramProcs = "mpi_gomaxprocs"
	paramSlice = "mpi_sched_slice_us"
)

// The kernel's bounds of a requested slice.
const minSliceUs, maxSliceUs = 100, 100_000

// maxProcs bounds mpi_gomaxprocs. Go takes any int32 but crashes past it,
// and each P costs memory and stop-the-world time: 1024 take 70 MiB and
// 0.2 s, 100000 stall a rank for minutes. A fixed bound, since gompirun
// checks it on the launch host, not the rank's.
const maxProcs = 1024

// RegisterParams registers the MPI layer's parameters. Init does it;
// gompi_info and the documentation generator call it to list them.
func RegisterParams(r *params.Registry) error {
	return errors.Join(
		r.Register(params.Def{
			Name: paramYield, Framework: "mpi", Component: "base", Kind: params.KindEnum, Default: "auto", Level: 4,
			Help: "Whether a waiting rank yields the CPU between polls from the start; when ranks yield, " +
				"a test or probe that finds nothing yields too, and " +
				"tuned's built-in decisions take the collective algorithms in which each rank waits fewest times",
			Values: []params.EnumValue{
				{Name: "auto", Help: "yield at once when this host's ranks outnumber its CPUs, as Open MPI does"},
				{Name: "yes", Help: "always yield between polls"},
				{Name: "no", Help: "poll without yielding for mpi_poll_busy_us first"},
			},
		}),
		r.Register(params.Def{
			Name: paramBusy, Framework: "mpi", Component: "base", Kind: params.KindInt, Default: "200", Level: 5,
			Help:  "Microseconds a waiting rank that finds nothing polls its transports without yielding the CPU",
			Range: params.IntFrom(0),
		}),
		r.Register(params.Def{
			Name: paramSleep, Framework: "mpi", Component: "base", Kind: params.KindInt, Default: "20", Level: 5,
			Help: "Milliseconds a waiting rank that finds nothing keeps polling (yielding between polls) " +
				"before it sleeps until a message wakes it; sleeping saves CPU, waking costs latency",
			Range: params.IntFrom(0),
		}),
		r.Register(params.Def{
			Name: paramDoze, Framework: "mpi", Component: "base", Kind: params.KindInt, Default: "300", Level: 5,
			Help: "Microseconds a waiting rank that yields at once (mpi_yield_when_idle) finds nothing before it " +
				"dozes between polls instead: its thread sleeps, at most 2 ms at a time, until a rank on this host " +
				"writes to it, so that the one rank with work is not kept waiting by ranks that yield to each other. " +
				"Only where shared memory carries every peer; 0 never dozes",
			Range: params.IntFrom(0),
		}),
		r.Register(params.Def{
			Name: paramProcs, Framework: "mpi", Component: "base", Kind: params.KindInt, Default: "0", Level: 4,
			Help: "GOMAXPROCS of each rank: 0 shares this host's CPUs among its ranks (at least 1 each), " +
				"the way Open MPI gives each rank a core, and keeps Go's count for a rank that gompirun bound " +
				"(it already has its share); -1 keeps Go's own choice; a positive number sets it. " +
				"A GOMAXPROCS environment variable always wins",
			Validate: func(v any) error {
				if n := v.(int); n < -1 || n > maxProcs {
					return fmt.Errorf("must be -1, 0 or 1 to %d", maxProcs)
				}
				return nil
			},
			Accepts: fmt.Sprintf("-1, 0 or 1 to %d", maxProcs),
		}),
		r.Register(params.Def{
			Name: paramSlice, Framework: "mpi", Component: "base", Kind: params.KindInt, Default: "100", Level: 5,
			Help: "Microseconds of the time slice a rank's threads ask of the kernel (Linux 6.12 and later): a rank " +
				"that a message wakes while another process holds its CPU runs when that process's slice ends, " +
				"and a short slice brings it back sooner without changing its share of the CPU. " +
				"0 keeps the kernel's default",
			Validate: func(v any) error {
				if n := v.(int); n != 0 && (n < minSliceUs || n > maxSliceUs) {
					return fmt.Errorf("must be 0 or from %d to %d", minSliceUs, maxSliceUs)
				}
				return nil
			},
			Accepts: fmt.Sprintf("0 or %d to %d", minSliceUs, maxSliceUs),
		}),
	)
}

// setGOMAXPROCS applies mpi_gomaxprocs. A waiting rank polls, so each idle
// P beyond its share only adds a thread that the network wakes for nothing.
// A rank that gompirun bound already has its share: Go sized GOMAXPROCS
// from the binding.
func setGOMAXPROCS(snap *params.Snapshot, localSize int) {
	v, ok := snap.Lookup(paramProcs)
	if !ok || os.Getenv("GOMAXPROCS") != "" {
		return
	}
	n := v.Parsed.(int)
	host := hostCPUs()
	if n == 0 {
		if runtime.NumCPU() < host {
			return // bound
		}
		n = max(1, host/max(localSize, 1))
	}
	if n > 0 {
		runtime.GOMAXPROCS(n)
	}
}

// applySchedSlice applies mpi_sched_slice_us.
func applySchedSlice(snap *params.Snapshot) error {
	v, ok := snap.Lookup(paramSlice)
	if !ok {
		return nil
	}
	if err := setSchedSlice(v.Parsed.(int)); err != nil {
		return fmt.Errorf("%s: %w", paramSlice, err)
	}
	return nil
}

// hostCPUs counts the CPUs online on this host. runtime.NumCPU counts
// those this process may use, which binding makes its own share.
func hostCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		z := a
		var err2 error
		if isRange {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a {
			return runtime.NumCPU()
		}
		n += z - a + 1
	}
	return max(n, 1)
}

// engineConfig reads the MPI layer's parameters; localSize is the number
// of ranks on this host.
func engineConfig(snap *params.Snapshot, localSize int) (pml.Config, error) {
	get := func(name string) (params.Value, error) {
		v, ok := snap.Lookup(name)
		if !ok {
			return v, fmt.Errorf("parameter %s is not registered", name)
		}
		return v, nil
	}
	yield, err1 := get(paramYield)
	busy, err2 := get(paramBusy)
	sleep, err3 := get(paramSleep)
	doze, err4 := get(paramDoze)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return pml.Config{}, err
	}
	cfg := pml.Config{
		BusyPoll:   time.Duration(busy.Parsed.(int)) * time.Microsecond,
		SleepAfter: time.Duration(sleep.Parsed.(int)) * time.Millisecond,
		DozeAfter:  time.Duration(doze.Parsed.(int)) * time.Microsecond,
	}
	if fc := foreignCaller.Load(); fc != nil {
		cfg.ForeignPC = fc.PC
	}
	switch yield.Parsed.(string) {
	case "yes":
		cfg.YieldAtOnce = true
	case "auto":
		cfg.YieldAtOnce = localSize > hostCPUs()
	}
	return cfg, nil
}

// ParamValues is the MCA parameters as Init resolved them, for the tools
// information interface (MPI_T); nil before Init and after Finalize.
func ParamValues() *params.Snapshot {
	l, err := running("")
	if err != nil {
		return nil
	}
	return l.sys.Snapshot()
}
