package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/bench/table"
)

// Config is one comparison.
type Config struct {
	Plans   []Plan
	Sides   []*Side
	Paths   Paths
	Reps    int
	Timeout time.Duration // for one run
	Env     []string      // the runs' environment
	Log     io.Writer     // progress
	// Crossing, if set, measures the machine's state before each plan's
	// turn (LineCrossing); the first failure stops it.
	Crossing func() (float64, error)
}

// Result holds every run's table.
type Result struct {
	Plans    []Plan
	Sides    []*Side
	Reps     int
	tables   map[[2]string][]*table.Table // (plan, side label) → one per repetition
	Commands map[[2]string]string         // (plan, side label) → the command, shell-quoted
	Skipped  map[string][]string          // plan → why sides left it out
	// Crossings are the ns a cache line took to cross between the CPUs
	// before each of a plan's turns, by plan key, in turn order.
	Crossings map[string][]float64
}

// Run runs every plan on every side Reps times, the sides taking turns so
// that drift on the machine touches each alike. Plans with the same
// command on a side (those that read another column of one table) share
// each repetition's run.
func Run(ctx context.Context, c Config) (*Result, error) {
	r := &Result{Plans: c.Plans, Sides: c.Sides, Reps: c.Reps,
		tables: map[[2]string][]*table.Table{}, Commands: map[[2]string]string{}, Skipped: map[string][]string{},
		Crossings: map[string][]float64{}}
	for _, p := range c.Plans {
		for _, s := range c.Sides {
			if why := s.skips(p); why != "" && s.inPlan(p) {
				r.Skipped[p.Key()] = append(r.Skipped[p.Key()], s.Label+" left out: "+why)
			}
		}
	}
	failed := map[[2]string]bool{} // (plan, side label) left out after a failed run
	for rep := 1; rep <= c.Reps; rep++ {
		ran := map[string]*table.Table{} // this repetition's tables by command
		for _, p := range c.Plans {
			if c.Crossing != nil {
				ns, err := c.Crossing()
				if err != nil {
					fmt.Fprintf(c.Log, "the machine's state is not measured: %v\n", err)
					c.Crossing = nil
				} else {
					r.Crossings[p.Key()] = append(r.Crossings[p.Key()], ns)
				}
			}
			for _, s := range c.Sides {
				if !s.inPlan(p) || s.skips(p) != "" || failed[[2]string{p.Key(), s.Label}] {
					continue
				}
				args := s.Command(p, c.Paths)
				cmd := shellQuote(args)
				start := time.Now()
				t, shared := ran[cmd]
				var err error
				if !shared {
					t, err = runOne(ctx, c, args)
				}
				if err == nil {
					err = s.verify(p, t, r.first(p, s))
				}
				if err != nil && s.MayFail {
					key := [2]string{p.Key(), s.Label}
					failed[key] = true
					delete(r.tables, key)
					delete(r.Commands, key)
					why := fmt.Sprintf("%s left out: its run failed in repetition %d: %s", s.Label, rep, firstWords(err))
					r.Skipped[p.Key()] = append(r.Skipped[p.Key()], why)
					fmt.Fprintf(c.Log, "[%d/%d] %-9s %-22s failed, left out: %v\n", rep, c.Reps, p.Key(), s.Label, err)
					continue
				}
				if err != nil {
					return nil, fmt.Errorf("%s on %s, repetition %d: %w", p.Key(), s.Label, rep, err)
				}
				ran[cmd] = t
				key := [2]string{p.Key(), s.Label}
				r.tables[key] = append(r.tables[key], t)
				r.Commands[key] = cmd
				took := fmt.Sprintf("%6.1fs", time.Since(start).Seconds())
				if shared {
					took = "the same run as above"
				}
				fmt.Fprintf(c.Log, "[%d/%d] %-9s %-22s %s\n", rep, c.Reps, p.Key(), s.Label, took)
			}
		}
	}
	return r, nil
}

// firstWords is what a failed run said: the first line it printed to
// stderr, after runOne's line naming the command, else that line.
func firstWords(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(strings.TrimPrefix(l, "...")); l != "" {
			return l
		}
	}
	return lines[0]
}

func (r *Result) first(p Plan, s *Side) *table.Table {
	if ts := r.tables[[2]string{p.Key(), s.Label}]; len(ts) > 0 {
		return ts[0]
	}
	return nil
}

// runOne runs one job and parses its table. MPIEXEC_TIMEOUT bounds the job
// for gompirun, mpirun and mpiexec alike; the context is the backstop.
func runOne(ctx context.Context, c Config, args []string) (*table.Table, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout+30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(c.Env, "MPIEXEC_TIMEOUT="+strconv.Itoa(int(c.Timeout.Seconds())))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) } // let a launcher stop its ranks
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", shellQuote(args), err, tail(stderr.String(), 2000))
	}
	t, err := table.Parse(&stdout)
	if err == nil {
		err = t.Check()
	}
	if err != nil {
		return nil, fmt.Errorf("%s printed a malformed table: %w\n%s", shellQuote(args), err, tail(stdout.String(), 2000))
	}
	return t, nil
}

// verify checks that a table comes from what the side says: gompi's timed
// pairs all over the expected transport, the btl as asked (for Open MPI's
// launch, gompi-bench launch states the command instead), the plan's
// column, and the same rows as the first repetition.
func (s *Side) verify(p Plan, t, first *table.Table) error {
	var errs []error
	if s.Lib == nil {
		tr := t.Transports()
		if len(tr) == 0 {
			errs = append(errs, fmt.Errorf("no transports in %q", t.Fields["transports"]))
		}
		for _, peer := range slices.Sorted(maps.Keys(tr)) {
			if peer != "0" && tr[peer] != s.Expect { // "0" is rank 0 itself
				errs = append(errs, fmt.Errorf("%s ran over %s, not %s (transports: %s)", peer, tr[peer], s.Expect, t.Fields["transports"]))
			}
		}
	}
	// gompi-bench prints gompi's btl parameter, also for launch; the C
	// programs print Open MPI's, which launch does not show and gompirun
	// does not set (it passes GOMPI_MCA_btl, and the gompi C side's --mca
	// btl is what keeps its ranks on its transport).
	if want := s.btl(); want != "" && (s.Lib == nil || p.Name != "launch" && s.Lib.ShowsMCA) && t.Fields["btl"] != want {
		errs = append(errs, fmt.Errorf("btl is %q, not %q", t.Fields["btl"], want))
	}
	// A C program names the library it runs on: one linked with another
	// library's would measure that.
	if s.Lib != nil && p.Name != "launch" && !strings.Contains(t.Title, s.Lib.Banner) {
		errs = append(errs, fmt.Errorf("the table's title %q does not name %s: the program runs on another library", t.Title, s.Lib.Banner))
	}
	if len(t.Rows) > 0 {
		if _, ok := p.figure(t.Rows[0]); !ok {
			errs = append(errs, fmt.Errorf("no column %d after the value: its rows have %d (headings %q)", p.Column, len(t.Rows[0].More), t.Column))
		}
	}
	if first != nil && !slices.Equal(t.Keys(), first.Keys()) {
		errs = append(errs, fmt.Errorf("rows %v differ from the first repetition's %v", t.Keys(), first.Keys()))
	}
	return errors.Join(errs...)
}

// runs returns a side's figure at key k in each repetition, in the order
// they ran; a repetition without that key gives nothing.
func (r *Result) runs(p Plan, s *Side, k int) []float64 {
	var out []float64
	for _, t := range r.tables[[2]string{p.Key(), s.Label}] {
		if i := slices.Index(t.Keys(), k); i >= 0 {
			if v, ok := p.figure(t.Rows[i]); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// Medians returns a side's keys and, per key, the median over the repetitions.
func (r *Result) Medians(p Plan, s *Side) ([]int, []float64) {
	ts := r.tables[[2]string{p.Key(), s.Label}]
	if len(ts) == 0 {
		return nil, nil
	}
	keys := ts[0].Keys()
	med := make([]float64, len(keys))
	for i := range keys {
		var vals []float64
		for _, t := range ts {
			if v, ok := p.figure(t.Rows[i]); ok {
				vals = append(vals, v)
			}
		}
		med[i] = table.Median(vals)
	}
	return keys, med
}
