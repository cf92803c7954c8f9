// Package osu holds gompi-bench's measurements, in the manner of the OSU
// micro-benchmarks: the same loops, flags and output layout, so that the
// tables of gompi and of the C programs in bench/c read alike.
//
// A measurement is an entry in the registry: a name, its defaults and a
// run function over (world, options) returning rows. Rank 0's rows are the
// table; the other ranks return nil.
package osu

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// Row is one line of a table: a message size (or a rank count) and the
// measured value, and with -f the further columns (minimum, maximum).
type Row struct {
	Key   int
	Value float64
	More  []float64
}

// Counts are a measurement's default iterations and warm-up iterations,
// for small messages and for those above LargeSize.
type Counts struct {
	Iters, Warmup           int
	LargeIters, LargeWarmup int
}

// Measurement is one subcommand that runs under gompirun.
type Measurement struct {
	Name    string
	Summary string // one line for --help
	Unit    string // of the value column
	About   string // how the value is obtained, for the header
	Column  string // value column heading
	// MoreColumns are the headings of the columns after the value's that
	// every row has (Row.More); nil for none.
	MoreColumns []string
	MinSize     int // smallest message size the measurement accepts
	// DefaultMax is the largest size measured without -m or -s;
	// 0 means DefaultMaxSize.
	DefaultMax int
	// NoSizes: the measurement has no message size (barrier), so no -m
	// or -s; its one row is keyed by the rank count.
	NoSizes bool
	// Large is the size above which Counts' large-message counts apply;
	// 0 means LargeSize. OSU's collectives switch at 8 KiB.
	Large int
	// Stats: the value is an average over the ranks, and -f adds their
	// minimum and maximum as two more columns.
	Stats bool
	// Cold: -c runs each size on a fresh communicator and times its
	// first calls (a collective).
	Cold   bool
	Counts Counts // OSU's defaults
	// CheckRanks rejects a job size the measurement cannot use.
	CheckRanks func(n int) error
	// Transports describes, on rank 0, which transport carries each pair
	// the measurement times; every rank calls it.
	Transports func(w mpi.Comm) (string, error)
	// Run measures every size in o; rank 0 returns the rows.
	Run func(w mpi.Comm, o Options) ([]Row, error)
}

// All lists the measurements in the order --help shows them.
func All() []Measurement {
	all := []Measurement{latency(), sendrecv(), ddt(), ddtRows(), bandwidth(), biBandwidth(), multiLatency(), incast(), ring()}
	all = append(all, collectives()...)
	all = append(all, neighbourCollectives()...)
	all = append(all, nonBlockingCollectives()...)
	return append(all, commMeasurements()...)
}

// AboutFor is how the value is obtained under o, for the header.
func (m Measurement) AboutFor(o Options) string {
	if o.Cold {
		return m.About + "; cold: each size on a fresh communicator (a Dup of the one it runs on) timed from its first call, " +
			"the same count at every size"
	}
	return m.About
}

// Lookup finds a measurement by name.
func Lookup(name string) (Measurement, error) {
	all := All()
	i := slices.IndexFunc(all, func(m Measurement) bool { return m.Name == name })
	if i < 0 {
		names := make([]string, len(all))
		for j, m := range all {
			names[j] = m.Name
		}
		return Measurement{}, fmt.Errorf("unknown measurement %q (known: %v)", name, names)
	}
	return all[i], nil
}

// atLeast returns a CheckRanks that wants n or more ranks.
func atLeast(name string, min int) func(int) error {
	return func(n int) error {
		if n < min {
			return fmt.Errorf("%s needs at least %d ranks, got %d (gompirun -np %d ...)", name, min, n, min)
		}
		return nil
	}
}
