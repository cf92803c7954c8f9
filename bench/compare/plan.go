package compare

import (
	"fmt"
	"strings"

	"github.com/gompi/gompi/bench/table"
)

// Plan is one measurement as the comparison runs it, the same way on
// every side.
type Plan struct {
	Name   string   // gompi-bench's subcommand
	ID     string   // names the plan where one Name runs at several rank counts; "" means Name
	Prog   string   // bench/c's program
	NP     int      // ranks; launch's rank counts are in Args
	Args   []string // gompi-bench's flags, which bench/c shares
	Title  string   // what the value is, for the reports
	Higher bool     // a higher value is better (bandwidth)
	Plot   string   // the plot it is drawn in, if any
	// SMOnly: only the sides over shared memory run it (the collectives,
	// whose algorithms, not transports, are compared).
	SMOnly bool
	// Cold is how many first calls on a fresh communicator a cold plan
	// times (gompi-bench -c); 0 for the others.
	Cold int
	// Column is the column the plan's figure is read from: 0 the value,
	// n the nth column after it (3 in the overlap plans, the overlap).
	// Plans that differ only in Column share their runs.
	Column int
	// Group is a name -only picks the plan by with others ("cold", "nbc").
	Group string
}

// Plans returns the measurements of a full or a quick run. A full run
// takes about twenty minutes on a 2-core machine, half of it the
// collectives, a quick one about four (a minute of it the collectives);
// quick runs incast at three sizes, the ring at 8 ranks only and the
// collectives at five sizes. The cold collectives, 36 short jobs a side
// and repetition, add about seven minutes to a quick run; on a loaded
// machine the neighbourhood collectives (neighbor) add about seven to a
// full run, the non-blocking ones (nbc) about twenty, half of it at 4
// ranks, and under a minute to a quick one.
func Plans(quick bool) []Plan {
	lat := []string{"-m", "0:4M", "-i", "2000", "-x", "200"}
	ddt := []string{"-m", "8:4M", "-i", "1000", "-x", "100"}
	bw := []string{"-m", "1:4M", "-i", "100", "-x", "10"}
	multi := []string{"-m", "0:1M", "-i", "500", "-x", "50"}
	incast := []string{"-m", "1:1K", "-i", "100", "-x", "20"}
	ring := []string{"-s", "8", "-i", "2000", "-x", "20"}
	ranks := "1,2,4"
	if quick {
		lat = []string{"-s", "0,1,64,1K,4K,8K,16K,64K,256K,1M,4M", "-i", "500", "-x", "50"}
		ddt = []string{"-s", "8,64,1K,16K,64K,256K,1M,4M", "-i", "300", "-x", "30"}
		bw = []string{"-s", "1,64,1K,16K,64K,256K,1M,4M", "-i", "20", "-x", "2"}
		multi = []string{"-s", "0,64,1K,16K,64K,256K,1M", "-i", "200", "-x", "20"}
		incast = []string{"-s", "1,64,1K", "-i", "50", "-x", "10"}
		ring = []string{"-s", "8", "-i", "300", "-x", "10"}
		ranks = "2,4"
	}
	plans := []Plan{
		{Name: "latency", Prog: "latency", NP: 2, Args: lat, Plot: "latency",
			Title: "Latency: one-way time, half the round trip between ranks 0 and 1 (us)"},
		{Name: "ddt", Prog: "ddt", NP: 2, Args: ddt,
			Title: "Derived datatype: a grid's column (one float64 in 8) sent and received as a vector, one-way time (us)"},
		{Name: "bw", Prog: "bw", NP: 2, Args: bw, Higher: true, Plot: "bandwidth",
			Title: "Bandwidth: rank 0 to rank 1, windows of 64 non-blocking sends (MB/s)"},
		{Name: "bibw", Prog: "bibw", NP: 2, Args: bw, Higher: true, Plot: "bibw",
			Title: "Bidirectional bandwidth: both directions at once, added (MB/s)"},
		{Name: "multi-lat", Prog: "multi_lat", NP: 4, Args: multi,
			Title: "Multi-pair latency: ranks i and i+2 of 4 (two per core) ping-pong at once, average one-way time (us)", Plot: "multi-lat"},
		{Name: "incast", Prog: "incast", NP: 8, Args: incast, Plot: "incast",
			Title: "Incast: 7 ranks send windows of 64 messages to rank 0, which receives from any source: time per message (us)"},
		{Name: "ring", ID: "ring-8", Prog: "ring", NP: 8, Args: ring,
			Title: "Token ring: one token passed round 8 ranks, time per lap (us; 10,000 laps take 10,000 times this)"},
	}
	if !quick {
		plans = append(plans, Plan{Name: "ring", ID: "ring-16", Prog: "ring", NP: 16, Args: []string{"-s", "8", "-i", "1000", "-x", "10"},
			Title: "Token ring: one token passed round 16 ranks, time per lap (us; 10,000 laps take 10,000 times this)"})
	}
	plans = append(plans, collectivePlans(quick)...)
	plans = append(plans, neighbourPlans(quick)...)
	plans = append(plans, nbcPlans(quick)...)
	plans = append(plans, coldPlans(quick)...)
	return append(plans, Plan{Name: "launch", Prog: "init_finalize", Args: []string{"-n", ranks, "-r", "1", "-x", "1"},
		Title: "Launch: a job that calls Init and Finalize, from start to exit (ms)"})
}

// figure is the plan's figure in a row, false if the row has no such column.
func (p Plan) figure(r table.Row) (float64, bool) {
	switch {
	case p.Column == 0:
		return r.Value, true
	case p.Column <= len(r.More):
		return r.More[p.Column-1], true
	}
	return 0, false
}

// Key names the plan in the results and for -only: its ID, else its Name.
func (p Plan) Key() string {
	if p.ID != "" {
		return p.ID
	}
	return p.Name
}

// byRanks: the rows are rank counts, not message sizes.
func (p Plan) byRanks() bool { return p.Name == "launch" || p.Name == "barrier" }

// KeyName is the first column's heading.
func (p Plan) KeyName() string {
	if p.byRanks() {
		return "ranks"
	}
	return "size"
}

// FormatKey prints a size in bytes with binary units, or a rank count.
func (p Plan) FormatKey(k int) string {
	switch {
	case p.byRanks() || k < 1<<10:
		return fmt.Sprint(k)
	case k < 1<<20:
		return fmt.Sprintf("%d KiB", k>>10)
	default:
		return fmt.Sprintf("%d MiB", k>>20)
	}
}

func (p Plan) String() string { return p.Name + " " + strings.Join(p.Args, " ") }
