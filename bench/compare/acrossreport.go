package compare

import (
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gompi/gompi/bench/compare/across"
)

// acrossHeading heads the subsection of the summary on the comparison
// across hosts; the tables' page links to it.
const acrossHeading = "Across simulated hosts"

// acrossRunsHeading heads every run's figure in the tables' page, which
// the subsection links to.
const acrossRunsHeading = "across hosts"

// goal is what the comparison wants of gompi for a measure.
func goal(m across.Measure) string {
	if m.Higher {
		return ">= 1.0"
	}
	return "<= 1.0"
}

// acrossStatus is the verdict in a word or two: a gompi that failed
// misses its goal.
func acrossStatus(c across.Comparison) string {
	_, failed := c.Failed[across.Gompi]
	switch {
	case math.IsNaN(c.Ratio) && failed:
		return "missed (gompi failed)"
	case math.IsNaN(c.Ratio):
		return "not measured"
	case c.Met():
		return "met"
	}
	return "missed"
}

// acrossRatio is gompi's ratio and the library it is to, or "-".
func acrossRatio(c across.Comparison) string {
	if math.IsNaN(c.Ratio) {
		return "-"
	}
	return fmt.Sprintf("%.2f (%s)", c.Ratio, c.Better)
}

// acrossTurns is the ratio round by round: range, and how many fall short.
func acrossTurns(c across.Comparison) string {
	if len(c.Turns) == 0 {
		return "-"
	}
	side := "above"
	if c.Measure.Higher {
		side = "below"
	}
	return fmt.Sprintf("%.2f-%.2f, %d of %d %s 1", slices.Min(c.Turns), slices.Max(c.Turns), c.Short(), len(c.Turns), side)
}

func acrossMedian(c across.Comparison, lib string) string {
	if v, ok := c.Median[lib]; ok {
		return formatFigure(v)
	}
	return "-"
}

// failures lists the runs that failed, library and measure first.
func failures(res *across.Results, cs []across.Comparison) []string {
	var out []string
	for _, c := range cs {
		for _, l := range res.Libraries {
			if why, ok := c.Failed[l.Name]; ok {
				out = append(out, fmt.Sprintf("%s, %s: %s", l.Name, c.Measure.Name, firstLine(why)))
			}
		}
	}
	return out
}

// writeAcross writes the subsection of the summary: how the hosts were
// measured, each measure's medians, gompi's ratio to the better other and
// the verdict on its goal. tables is the path of the tables' page, which
// has every run.
func (a *AcrossHosts) writeAcross(b *strings.Builder, tables string) {
	fmt.Fprintf(b, "\n### %s\n\n", acrossHeading)
	fmt.Fprintf(b, "- Command: `%s` (run by bench/compare from the repository's root; FILE is where the runs go, as JSON)", a.Command)
	if a.Results != nil {
		fmt.Fprintf(b, ", %d rounds", a.Results.Rounds)
	}
	fmt.Fprintf(b, ", %s\n", a.Took.Round(time.Second))
	fmt.Fprintf(b, "- Date: %s\n", a.Started.UTC().Format(dateFormat))
	if a.Results == nil {
		fmt.Fprintf(b, "- Not measured: %s\n", a.Absent)
		return
	}
	res := a.Results
	names := make([]string, len(res.Libraries))
	for i, l := range res.Libraries {
		names[i] = l.Name
	}
	fmt.Fprintf(b, "\nTestMeasureAcrossHosts (test/multihost) builds %d simulated hosts on this machine (test/cluster): network "+
		"namespaces joined by a bridge (veth links, no added delay), each with its own host name, IPC and `/dev/shm`, "+
		"and launches every library from h1 through the cluster's ssh stand-in, within a host over shared memory and "+
		"between hosts over tcp. In each of %d rounds the libraries took turns at each measure (%s); each figure is the "+
		"median of its rounds. The goal for each measure, launch included, is gompi at most as slow as the better of the "+
		"others (for a bandwidth, at least as fast); the ratio is gompi's median over the better one's, and \"by turn\" is "+
		"gompi's figure over the better other's of the same round, round by round: their range, and how many fall short. "+
		"Every run's figure is in [%s](%s#%s).\n\n", res.Hosts, res.Rounds, strings.Join(names, ", "), path.Base(tables), tables, anchor(acrossRunsHeading))
	b.WriteString("| library | how it runs |\n|---|---|\n")
	for _, l := range res.Libraries {
		fmt.Fprintf(b, "| %s | %s |\n", l.Name, l.About)
	}
	b.WriteString("\n| measure | where | " + strings.Join(names, " | ") + " | gompi / better | goal | by turn | verdict |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(names)) + "---|---|---|---|\n")
	cs := res.Compare()
	for _, c := range cs {
		fmt.Fprintf(b, "| %s (%s) | %s |", c.Measure.Name, c.Measure.Unit, c.Measure.Setup)
		for _, n := range names {
			fmt.Fprintf(b, " %s |", acrossMedian(c, n))
		}
		fmt.Fprintf(b, " %s | %s | %s | %s |\n", acrossRatio(c), goal(c.Measure), acrossTurns(c), acrossStatus(c))
	}
	if fs := failures(res, cs); len(fs) > 0 {
		b.WriteString("\nRuns that failed, each leaving its library out of that measure's later rounds:\n\n")
		for _, f := range fs {
			fmt.Fprintf(b, "- %s\n", f)
		}
	}
}

// writeAcrossText prints the comparison across hosts for a terminal.
func (a *AcrossHosts) writeAcrossText(w io.Writer) error {
	fmt.Fprintf(w, "\n%s\n%s\n", acrossHeading, a.Command)
	if a.Results == nil {
		_, err := fmt.Fprintf(w, "Not measured: %s\n", a.Absent)
		return err
	}
	res := a.Results
	fmt.Fprintf(w, "median of %d rounds each\n", res.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "measure\t")
	for _, l := range res.Libraries {
		fmt.Fprintf(tw, "%s\t", l.Name)
	}
	fmt.Fprintln(tw, "gompi / better\tgoal\tby turn\tverdict")
	cs := res.Compare()
	for _, c := range cs {
		fmt.Fprintf(tw, "%s (%s)\t", c.Measure.Name, c.Measure.Unit)
		for _, l := range res.Libraries {
			fmt.Fprintf(tw, "%s\t", acrossMedian(c, l.Name))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", acrossRatio(c), goal(c.Measure), acrossTurns(c), acrossStatus(c))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range failures(res, cs) {
		fmt.Fprintf(w, "failed: %s\n", f)
	}
	return nil
}

// writeAcrossRuns writes, for the tables' page, every run's figure:
// a row per measure and library, a column per round.
func (a *AcrossHosts) writeAcrossRuns(b *strings.Builder, summary string) {
	fmt.Fprintf(b, "\n## %s\n\nEvery run of the comparison [across simulated hosts](%s#%s), round by round (- where a run "+
		"failed or was left out after a failure).", acrossRunsHeading, summary, anchor(acrossHeading))
	if a.Results == nil {
		fmt.Fprintf(b, " Not measured: %s.\n", a.Absent)
		return
	}
	res := a.Results
	b.WriteString("\n\n| measure | library |")
	for r := 1; r <= res.Rounds; r++ {
		fmt.Fprintf(b, " %d |", r)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", res.Rounds) + "\n")
	for _, m := range res.Measures {
		for _, l := range res.Libraries {
			cells := slices.Repeat([]string{"-"}, res.Rounds)
			for _, run := range res.Runs {
				if run.Measure == m.Name && run.Library == l.Name && run.Error == "" {
					cells[run.Round-1] = formatFigure(run.Value)
				}
			}
			fmt.Fprintf(b, "| %s (%s) | %s | %s |\n", m.Name, m.Unit, l.Name, strings.Join(cells, " | "))
		}
	}
}
