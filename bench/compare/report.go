package compare

import (
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/gompi/gompi/bench/table"
)

// Report is what a comparison says besides its figures.
type Report struct {
	*Result
	Command   string // how it was started
	Started   time.Time
	Took      time.Duration
	Machine   Machine
	Versions  []string // "gompi 0.1.0 (go1.26.8)", "Open MPI: mpirun (Open MPI) 4.1.4", ...
	Notes     []string // e.g. why MPICH is missing
	PlotFiles []string // the SVG files, relative to the performance page
	Verdicts  []Verdict
	Across    *AcrossHosts // nil if the run left the hosts out
}

// status is a verdict in one word.
func (v Verdict) status() string {
	switch {
	case v.Absent != "":
		return "not measured"
	case v.Met:
		return "met"
	}
	return "missed"
}

func (v Verdict) detail() string {
	if v.Absent != "" {
		return v.Absent
	}
	return "worst " + v.Worst
}

// byTurn is the worst figure run by run, or "-".
func (v Verdict) byTurn() string {
	if v.Absent != "" || v.Runs == "" {
		return "-"
	}
	return v.Runs
}

// column is one column of a plan's table: a side's medians, or a ratio.
type column struct {
	head string
	val  map[int]float64
}

// columns returns a plan's keys and columns: each side in the plan, and
// after each reference a gompi side is held against, the ratio gompi /
// reference.
func (r *Result) columns(p Plan) ([]int, []column) {
	var keys []int
	var cols []column
	var sides []*Side
	for _, s := range r.Sides {
		if s.inPlan(p) {
			sides = append(sides, s)
		}
	}
	vals := map[*Side]map[int]float64{}
	for _, s := range sides {
		k, med := r.Medians(p, s)
		if keys == nil {
			keys = k
		}
		vals[s] = map[int]float64{}
		for i, key := range k {
			vals[s][key] = med[i]
		}
	}
	for i, s := range sides {
		cols = append(cols, column{head: s.Label, val: vals[s]})
		// A ratio follows the later of its two sides.
		for j, g := range sides {
			ref := g.Against
			if ref == nil || (g != s || !slices.Contains(sides[:i], ref)) && (ref != s || j > i) {
				continue
			}
			ratio := map[int]float64{}
			for k, v := range vals[g] {
				if r, ok := vals[ref][k]; ok && r > 0 {
					ratio[k] = v / r
				}
			}
			cols = append(cols, column{head: g.Label + " / " + ref.Label, val: ratio})
		}
	}
	return keys, cols
}

// WriteText prints the machine and every plan's table for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Machine: %s\n", r.Machine)
	for _, p := range r.Plans {
		keys, cols := r.columns(p)
		fmt.Fprintf(w, "\n%s\n%s, median of %d runs each\n", p.Title, p, r.Reps)
		if cs := r.crossings(p); cs != "" {
			fmt.Fprintf(w, "a cache line crossed between the CPUs in %s ns before its turns\n", cs)
		}
		for _, why := range r.Skipped[p.Key()] {
			fmt.Fprintln(w, why)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t", p.KeyName())
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", c.head)
		}
		fmt.Fprintln(tw)
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t", p.FormatKey(k))
			for _, c := range cols {
				fmt.Fprintf(tw, "%s\t", cell(c, k))
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Verdicts) > 0 {
		fmt.Fprintf(w, "\nGoals, on the medians above\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, v := range r.Verdicts {
			fmt.Fprintf(tw, "%s\t%s\t%s\t(run by run %s)\n", v.status(), v.Goal, v.detail(), v.byTurn())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if r.Across != nil {
		return r.Across.writeAcrossText(w)
	}
	return nil
}

func cell(c column, k int) string {
	v, ok := c.val[k]
	switch {
	case !ok || math.IsNaN(v):
		return "-"
	case strings.Contains(c.head, " / "):
		return fmt.Sprintf("%.2f", v)
	}
	return formatFigure(v)
}

// formatFigure keeps three or four significant digits.
func formatFigure(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// summaryHeading heads the section of the performance page; the tables'
// page links back to it.
const summaryHeading = "Side by side with Open MPI and MPICH (generated)"

// Summary is the section that goes between the markers of the performance
// page: how the run was made, the sides, the goals and the plots, then the
// comparison across hosts. tables is the path of the page Tables writes,
// relative to the performance page.
func (r *Report) Summary(tables string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", summaryHeading)
	fmt.Fprintf(&b, "This section is rewritten by every run of `make bench-compare` (bench/compare); do not edit it by hand.\n\n")
	if len(r.Plans) > 0 {
		fmt.Fprintf(&b, "- Command: `%s`, %d repetitions, %s in all\n", r.Command, r.Reps, r.Took.Round(time.Second))
	} else {
		fmt.Fprintf(&b, "- Command: `%s`, %s in all\n", r.Command, r.Took.Round(time.Second))
	}
	fmt.Fprintf(&b, "- Date: %s\n", r.date())
	fmt.Fprintf(&b, "- Machine: %s\n", r.Machine)
	if lo, med, hi, ok := r.crossingSpread(); ok {
		fmt.Fprintf(&b, "- State: a cache line crossed between the CPUs in %.0f-%.0f ns before a plan's turn, %.0f in the median "+
			"(each plan's table gives its turns'; `go test -run '^$' -bench LineCrossing ./bench/compare` times it alone)\n", lo, hi, med)
	}
	fmt.Fprintf(&b, "- Versions: %s\n", strings.Join(r.Versions, "; "))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- Note: %s\n", n)
	}
	if len(r.Plans) > 0 {
		r.writeSides(&b, tables)
	}
	if r.Across != nil {
		r.Across.writeAcross(&b, tables)
	}
	return b.String()
}

// writeSides writes the one-host part of the summary: the sides, the
// goals and the plots.
func (r *Report) writeSides(b *strings.Builder, tables string) {
	fmt.Fprintf(b, "\nEvery side ran each of its measurements %d times, the sides taking turns (", r.Reps)
	for i, s := range r.Sides {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.Label)
	}
	var goSides []string
	for _, s := range r.Sides {
		if s.Lib == nil {
			goSides = append(goSides, s.Label)
		}
	}
	fmt.Fprintf(b, ", then again); each figure is the median of its %d runs. %s %s `bin/gompi-bench`, the others "+
		"`bench/c`'s C programs, which share its flags, loops and output. A ratio above 1 for a time, or below 1 for a "+
		"bandwidth, means the first side named is slower.", r.Reps, strings.Join(goSides, " and "), map[bool]string{true: "runs", false: "run"}[len(goSides) == 1])
	if r.hasSMOnly() {
		var sm []string
		for _, s := range r.Sides {
			if s.SM {
				sm = append(sm, s.Label)
			}
		}
		fmt.Fprintf(b, " The collectives ran on the shared-memory sides only (%s), each library with its own "+
			"collective algorithms; their figure is OSU's, the average over the ranks of each rank's mean time per call, "+
			"an untimed barrier after every call.", strings.Join(sm, ", "))
	}
	fmt.Fprintf(b, " Every plan's medians, size by size, and the commands that measured them are in [%s](%s).\n\n", path.Base(tables), tables)
	b.WriteString("| side | what it is |\n|---|---|\n")
	for _, s := range r.Sides {
		fmt.Fprintf(b, "| %s | %s |\n", s.Label, s.About)
	}
	b.WriteString("\n")
	if len(r.Verdicts) > 0 {
		b.WriteString("A goal's worst figure is the median, over its sizes, furthest from it; \"by turn\" is that figure " +
			"run by run, each against the reference's run of the same turn: their range, and how many fall short.\n\n")
		b.WriteString("| goal | worst figure | by turn | verdict |\n|---|---|---|---|\n")
		for _, v := range r.Verdicts {
			if v.Group == "" {
				fmt.Fprintf(b, "| %s | %s | %s | %s |\n", v.Goal, v.detail(), v.byTurn(), v.status())
			}
		}
		b.WriteString("\n")
		r.writeGroups(b, tables)
	}
	for _, f := range r.PlotFiles {
		fmt.Fprintf(b, "![%s](%s)\n", strings.TrimSuffix(strings.TrimPrefix(f, "perf-"), ".svg"), f)
	}
}

// writeGroups sums up the goals of each group (the cold collectives', the
// gompi C side's): how many were measured and met, and the missed ones'
// worst figures; the tables' page lists them one by one.
func (r *Report) writeGroups(b *strings.Builder, tables string) {
	var groups []string
	byGroup := map[string][]Verdict{}
	for _, v := range r.Verdicts {
		if v.Group == "" {
			continue
		}
		if _, ok := byGroup[v.Group]; !ok {
			groups = append(groups, v.Group)
		}
		byGroup[v.Group] = append(byGroup[v.Group], v)
	}
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(b, "The goals below are summed up by kind; each is listed, plan by plan, in [%s](%s#%s).\n\n",
		path.Base(tables), tables, anchor(groupsHeading))
	b.WriteString("| goals | measured | met | missed: worst figure (by turn) |\n|---|---|---|---|\n")
	for _, g := range groups {
		measured, met := 0, 0
		var missed []string
		for _, v := range byGroup[g] {
			switch v.status() {
			case "met":
				measured++
				met++
			case "missed":
				measured++
				plan, _, _ := strings.Cut(v.Goal, " ")
				missed = append(missed, fmt.Sprintf("%s %s (%s)", plan, v.Worst, v.byTurn()))
			}
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s |\n", g, measured, met, strings.Join(missed, "; "))
	}
	b.WriteString("\n")
}

// groupsHeading heads the tables' page's list of the grouped goals.
const groupsHeading = "Goals summed up by kind"

// Tables is the whole of the tables' page: every plan's title, flags,
// medians size by size and commands, then every run across hosts. summary is the path of the
// performance page, relative to the tables' page.
func (r *Report) Tables(summary string) string {
	var b strings.Builder
	b.WriteString("# Performance tables (generated)\n\n")
	fmt.Fprintf(&b, "Written by `make bench-compare` (bench/compare) on %s with [its summary](%s#%s); do not edit this page by hand.\n",
		r.date(), summary, anchor(summaryHeading))
	for _, p := range r.Plans {
		r.markdownPlan(&b, p)
	}
	r.writeGroupedGoals(&b)
	if r.Across != nil {
		r.Across.writeAcrossRuns(&b, summary)
	}
	return b.String()
}

// writeGroupedGoals lists the grouped goals one by one, as the summary
// lists the others.
func (r *Report) writeGroupedGoals(b *strings.Builder) {
	head := false
	for _, v := range r.Verdicts {
		if v.Group == "" {
			continue
		}
		if !head {
			fmt.Fprintf(b, "\n## %s\n\n| goal | worst figure | by turn | verdict |\n|---|---|---|---|\n", groupsHeading)
			head = true
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", v.Goal, v.detail(), v.byTurn(), v.status())
	}
}

func (r *Report) date() string { return r.Started.UTC().Format(dateFormat) }

// dateFormat is how the pages give a run's start.
const dateFormat = "2006-01-02 15:04 MST"

// anchor is the fragment GitHub gives a heading: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(heading) {
		switch {
		case c == ' ':
			b.WriteByte('-')
		case c == '-' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c):
			b.WriteRune(c)
		}
	}
	return b.String()
}

func (r *Report) markdownPlan(b *strings.Builder, p Plan) {
	keys, cols := r.columns(p)
	fmt.Fprintf(b, "\n## %s\n\n%s. Flags `%s`", p.Key(), p.Title, strings.Join(p.Args, " "))
	if p.NP > 0 {
		fmt.Fprintf(b, ", %d ranks", p.NP)
	}
	b.WriteString(".\n")
	if cs := r.crossings(p); cs != "" {
		fmt.Fprintf(b, "A cache line crossed between the CPUs in %s ns before its turns.\n", cs)
	}
	for _, why := range r.Skipped[p.Key()] {
		fmt.Fprintf(b, "%s.\n", why)
	}
	fmt.Fprintf(b, "\n| %s |", p.KeyName())
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", c.head)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(cols)))
	b.WriteString("\n")
	for _, k := range keys {
		fmt.Fprintf(b, "| %s |", p.FormatKey(k))
		for _, c := range cols {
			fmt.Fprintf(b, " %s |", cell(c, k))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n<details><summary>Commands</summary>\n\n```sh\n")
	for _, s := range r.Sides {
		if c, ok := r.Commands[[2]string{p.Key(), s.Label}]; ok {
			b.WriteString(c + "\n")
		}
	}
	b.WriteString("```\n\n</details>\n")
}

// crossings lists the line crossings measured before p's turns, in ns,
// or "" if none was.
func (r *Result) crossings(p Plan) string {
	var ns []string
	for _, v := range r.Crossings[p.Key()] {
		ns = append(ns, fmt.Sprintf("%.0f", v))
	}
	return strings.Join(ns, ", ")
}

// crossingSpread is the least, median and greatest line crossing
// measured before any plan's turn.
func (r *Result) crossingSpread() (lo, med, hi float64, ok bool) {
	var all []float64
	for _, p := range r.Plans {
		all = append(all, r.Crossings[p.Key()]...)
	}
	if len(all) == 0 {
		return 0, 0, 0, false
	}
	return slices.Min(all), table.Median(all), slices.Max(all), true
}

func (r *Result) hasSMOnly() bool {
	for _, p := range r.Plans {
		if p.SMOnly {
			return true
		}
	}
	return false
}

// Markers delimit the generated section of docs/performance.md.
const (
	BeginMarker = "<!-- bench-compare:begin -->"
	EndMarker   = "<!-- bench-compare:end -->"
)

// UpdateDoc replaces the text between the markers in the file with
// section, adding the markers at the end if the file has none.
func UpdateDoc(path, section string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("updating the performance page: %w", err)
	}
	out, err := replaceSection(string(b), section)
	if err != nil {
		return fmt.Errorf("updating %s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// UpdateAcross rewrites only the comparison across hosts: its subsection,
// last in the generated section of the performance page doc, and its runs,
// last in the tables' page; a run of the hosts alone so keeps the one-host
// figures of the last whole run. docToTables and tablesToDoc are the links
// between the pages.
func (r *Report) UpdateAcross(doc, tables, docToTables, tablesToDoc string) error {
	if r.Across == nil {
		return fmt.Errorf("no comparison across hosts to write")
	}
	var sub, runs strings.Builder
	r.Across.writeAcross(&sub, docToTables)
	r.Across.writeAcrossRuns(&runs, tablesToDoc)
	page, err := os.ReadFile(doc)
	if err != nil {
		return fmt.Errorf("updating the performance page: %w", err)
	}
	begin, end, err := sectionBounds(string(page))
	if err == nil && begin < 0 {
		err = fmt.Errorf("no generated section (%s ... %s): run the whole comparison first", BeginMarker, EndMarker)
	}
	if err != nil {
		return fmt.Errorf("updating %s: %w", doc, err)
	}
	section, err := replaceTail(string(page[begin+len(BeginMarker):end]), "\n### "+acrossHeading+"\n", sub.String())
	if err != nil {
		return fmt.Errorf("updating %s: %w", doc, err)
	}
	out, err := replaceSection(string(page), section)
	if err != nil {
		return fmt.Errorf("updating %s: %w", doc, err)
	}
	tablesPage, err := os.ReadFile(tables)
	if err != nil {
		return fmt.Errorf("updating the tables: %w", err)
	}
	newTables, err := replaceTail(string(tablesPage), "\n## "+acrossRunsHeading+"\n", runs.String())
	if err != nil {
		return fmt.Errorf("updating %s: %w", tables, err)
	}
	if err := os.WriteFile(tables, []byte(newTables), 0o644); err != nil {
		return fmt.Errorf("updating %s: %w", tables, err)
	}
	return os.WriteFile(doc, []byte(out), 0o644)
}

// replaceTail replaces the text of page from the line heading on with
// tail.
func replaceTail(page, heading, tail string) (string, error) {
	i := strings.Index(page, heading)
	if i < 0 {
		return "", fmt.Errorf("no %q to replace: run the whole comparison first", strings.TrimSpace(heading))
	}
	return page[:i] + tail, nil
}

func replaceSection(doc, section string) (string, error) {
	block := BeginMarker + "\n" + strings.TrimSpace(section) + "\n" + EndMarker
	begin, end, err := sectionBounds(doc)
	if err != nil {
		return "", err
	}
	if begin < 0 {
		return strings.TrimRight(doc, "\n") + "\n\n" + block + "\n", nil
	}
	return doc[:begin] + block + doc[end+len(EndMarker):], nil
}

// sectionBounds finds the markers of the generated section: -1, -1 when
// the page has neither, an error unless it has one of each in order.
func sectionBounds(doc string) (begin, end int, err error) {
	begin, end = strings.Index(doc, BeginMarker), strings.Index(doc, EndMarker)
	switch {
	case begin < 0 && end < 0:
		return -1, -1, nil
	case begin < 0 || end < begin || strings.Count(doc, BeginMarker) > 1 || strings.Count(doc, EndMarker) > 1:
		return 0, 0, fmt.Errorf("want exactly one %s followed by one %s", BeginMarker, EndMarker)
	}
	return begin, end, nil
}
