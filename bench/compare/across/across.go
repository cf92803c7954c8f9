// Package across is the record of gompi measured against Open MPI and
// MPICH across simulated hosts: TestMeasureAcrossHosts (test/multihost),
// which must run under go test because its hosts (test/cluster) live and
// die with a test, writes it as JSON (-measure-json), and bench/compare
// reads it into its report. Compare turns the runs into each measure's
// medians and gompi's ratio to the better of the other libraries.
package across

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/gompi/gompi/bench/table"
)

// Gompi is the library held against the others.
const Gompi = "gompi"

// Measure is one figure every library is measured for.
type Measure struct {
	Name   string `json:"name"`             // "latency 8 B"
	Setup  string `json:"setup"`            // where it runs and with what: "h1 and h2, 1 rank each, latency -s 8"
	Unit   string `json:"unit"`             // "us", "MB/s", "ms"
	Higher bool   `json:"higher,omitempty"` // a higher figure is better (bandwidth)
}

// Library is one MPI as the measurement launches it.
type Library struct {
	Name  string `json:"name"`
	About string `json:"about"` // its launcher and settings, for a reader
}

// Run is one library's figure for one measure in one round, or why it
// has none; after a failure the library's later rounds of that measure
// are left out.
type Run struct {
	Measure string  `json:"measure"`
	Library string  `json:"library"`
	Round   int     `json:"round"` // from 1
	Value   float64 `json:"value"`
	Error   string  `json:"error,omitempty"`
}

// Results are one measurement: every library's runs, the libraries
// taking turns in each round. Skipped, if set, is why nothing was
// measured.
type Results struct {
	Rounds    int       `json:"rounds"`
	Hosts     int       `json:"hosts"`
	Libraries []Library `json:"libraries"`
	Measures  []Measure `json:"measures"`
	Runs      []Run     `json:"runs"`
	Skipped   string    `json:"skipped,omitempty"`
}

// Write writes the results as JSON to path.
func (r *Results) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the results across hosts: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the results across hosts: %w", err)
	}
	return nil
}

// Read reads results that Write wrote and checks that they hold together.
func Read(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the results across hosts: %w", err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading the results across hosts: %s: %w", path, err)
	}
	if err := r.Check(); err != nil {
		return nil, fmt.Errorf("reading the results across hosts: %s: %w", path, err)
	}
	return &r, nil
}

// Check reports what does not hold together: no rounds, no gompi, a run
// of an unknown measure or library, or out of the rounds.
func (r *Results) Check() error {
	if r.Skipped != "" {
		return nil
	}
	var errs []error
	if r.Rounds < 1 {
		errs = append(errs, fmt.Errorf("%d rounds: want 1 or more", r.Rounds))
	}
	if r.library(Gompi) < 0 {
		errs = append(errs, fmt.Errorf("no library %q among %v", Gompi, r.libraryNames()))
	}
	for _, run := range r.Runs {
		switch {
		case r.measure(run.Measure) < 0:
			errs = append(errs, fmt.Errorf("a run of %q, which is not among the measures", run.Measure))
		case r.library(run.Library) < 0:
			errs = append(errs, fmt.Errorf("a run of %q by %q, which is not among the libraries %v", run.Measure, run.Library, r.libraryNames()))
		case run.Round < 1 || run.Round > r.Rounds:
			errs = append(errs, fmt.Errorf("%s's run of %q in round %d: the rounds are 1 to %d", run.Library, run.Measure, run.Round, r.Rounds))
		}
	}
	return errors.Join(errs...)
}

func (r *Results) measure(name string) int {
	return slices.IndexFunc(r.Measures, func(m Measure) bool { return m.Name == name })
}

func (r *Results) library(name string) int {
	return slices.IndexFunc(r.Libraries, func(l Library) bool { return l.Name == name })
}

func (r *Results) libraryNames() []string {
	names := make([]string, len(r.Libraries))
	for i, l := range r.Libraries {
		names[i] = l.Name
	}
	return names
}

// Comparison is one measure as measured: each library's median, and
// gompi's ratio to the better of the others.
type Comparison struct {
	Measure Measure
	Median  map[string]float64 // by library; a library without a figure is absent
	Failed  map[string]string  // by library: why its run failed, and in which round
	Better  string             // the other library with the better median; "" if none has one
	// Ratio is gompi's median over Better's; NaN without both.
	Ratio float64
	// Turns is gompi's figure over the better other's of the same round,
	// round by round, where both have one.
	Turns []float64
}

// Compare compares every measure, in the measures' order.
func (r *Results) Compare() []Comparison {
	out := make([]Comparison, len(r.Measures))
	for i, m := range r.Measures {
		out[i] = r.compare(m)
	}
	return out
}

func (r *Results) compare(m Measure) Comparison {
	c := Comparison{Measure: m, Median: map[string]float64{}, Failed: map[string]string{}, Ratio: math.NaN()}
	byRound := map[string][]float64{} // library → figure per round, NaN where none
	for _, l := range r.Libraries {
		byRound[l.Name] = slices.Repeat([]float64{math.NaN()}, r.Rounds)
	}
	for _, run := range r.Runs {
		if run.Measure != m.Name || byRound[run.Library] == nil || run.Round < 1 || run.Round > r.Rounds {
			continue // another measure's, or out of the results (see Check)
		}
		if run.Error != "" {
			c.Failed[run.Library] = fmt.Sprintf("round %d: %s", run.Round, run.Error)
			continue
		}
		byRound[run.Library][run.Round-1] = run.Value
	}
	for lib, figs := range byRound {
		if vals := slices.DeleteFunc(slices.Clone(figs), math.IsNaN); len(vals) > 0 {
			c.Median[lib] = table.Median(vals)
		}
	}
	var others []string
	for _, l := range r.Libraries {
		if l.Name != Gompi {
			others = append(others, l.Name)
		}
	}
	c.Better = best(m, others, func(lib string) float64 {
		if v, ok := c.Median[lib]; ok {
			return v
		}
		return math.NaN()
	})
	if g, ok := c.Median[Gompi]; ok && c.Better != "" {
		c.Ratio = g / c.Median[c.Better]
	}
	for round := range r.Rounds {
		g := byRound[Gompi][round]
		ref := best(m, others, func(lib string) float64 { return byRound[lib][round] })
		if !math.IsNaN(g) && ref != "" {
			c.Turns = append(c.Turns, g/byRound[ref][round])
		}
	}
	return c
}

// best is the library among libs with the better figure, "" if none has
// a positive one.
func best(m Measure, libs []string, figure func(string) float64) string {
	var lib string
	var x float64
	for _, l := range libs {
		v := figure(l)
		if math.IsNaN(v) || v <= 0 {
			continue
		}
		if lib == "" || (m.Higher && v > x) || (!m.Higher && v < x) {
			lib, x = l, v
		}
	}
	return lib
}

// Met says whether gompi's median is at most the better other's for a
// time, at least it for a bandwidth; false without a ratio.
func (c Comparison) Met() bool {
	if math.IsNaN(c.Ratio) {
		return false
	}
	if c.Measure.Higher {
		return c.Ratio >= 1
	}
	return c.Ratio <= 1
}

// Short counts the rounds whose ratio falls on the wrong side of 1.
func (c Comparison) Short() int {
	n := 0
	for _, x := range c.Turns {
		if (c.Measure.Higher && x < 1) || (!c.Measure.Higher && x > 1) {
			n++
		}
	}
	return n
}
