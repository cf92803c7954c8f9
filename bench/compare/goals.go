package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Goal is a target for one gompi side in one plan: its ratio to the
// reference it is held against (the side's own, or Against), over a range
// of sizes, at most 1 for a time and at least 1 for a bandwidth. With Copy
// set, the side's own figure at To must instead reach half the machine's
// copy bandwidth; with AtLeast set, its own figure must reach AtLeast (an
// overlap in percent).
type Goal struct {
	Plan     string // plan key
	Side     string // a gompi side's label
	Against  string // another reference's label, if not the side's own
	From, To int    // sizes, inclusive
	Copy     bool
	AtLeast  float64
	// Within, if set, is a ratio goal's bar other than 1: a time at most
	// Within times the reference's, a bandwidth at least 1/Within of it.
	Within float64
	// Group, if set, names the goals of one kind that the summary sums up
	// in one line (the tables' page lists them one by one).
	Group string
}

// absolute: the side's own figure is held to a bar, not to a reference's.
func (g Goal) absolute() bool { return g.Copy || g.AtLeast > 0 }

// Goals are the point-to-point targets; for every collective plan, warm,
// neighbourhood and cold, gompi sm at most as slow as Open MPI sm, with
// its tuned algorithms, at every size; and the non-blocking collectives'
// (nbcGoals).
func Goals() []Goal {
	const all = math.MaxInt
	goals := []Goal{
		{Plan: "latency", Side: "gompi sm", From: 0, To: 1 << 10},
		// No eager cliff: Open MPI's sm latency jumps at 4 KiB, MPICH's does not.
		{Plan: "latency", Side: "gompi sm", Against: "MPICH", From: 4 << 10, To: 8 << 10},
		{Plan: "latency", Side: "gompi tcp", From: 128 << 10, To: 4 << 20},
		{Plan: "ddt", Side: "gompi sm", From: 0, To: all},
		{Plan: "ddt", Side: "gompi tcp", From: 0, To: all},
		{Plan: "bw", Side: "gompi tcp", From: 128 << 10, To: 4 << 20},
		{Plan: "bw", Side: "gompi sm", From: 64 << 10, To: 4 << 20},
		{Plan: "bibw", Side: "gompi sm", From: 64 << 10, To: 4 << 20},
		{Plan: "bw", Side: "gompi sm", From: CopySize, To: CopySize, Copy: true},
		{Plan: "bibw", Side: "gompi sm", From: CopySize, To: CopySize, Copy: true},
		{Plan: "multi-lat", Side: "gompi sm", From: 0, To: all},
		{Plan: "incast", Side: "gompi tcp", From: 0, To: all},
		{Plan: "incast", Side: "gompi sm", From: 0, To: all},
		{Plan: "ring-8", Side: "gompi tcp", From: 0, To: all},
		{Plan: "ring-8", Side: "gompi sm", From: 0, To: all},
		{Plan: "ring-16", Side: "gompi tcp", From: 0, To: all},
		{Plan: "ring-16", Side: "gompi sm", From: 0, To: all},
	}
	for _, p := range slices.Concat(collectivePlans(false), neighbourPlans(false)) {
		goals = append(goals, Goal{Plan: p.Key(), Side: "gompi sm", From: 0, To: all})
	}
	for _, p := range coldPlans(false) {
		goals = append(goals, Goal{Plan: p.Key(), Side: "gompi sm", From: 0, To: all, Group: "the cold collectives: gompi sm / Open MPI sm <= 1.0"})
	}
	goals = append(goals, nbcGoals()...)
	return append(goals, cGoals(goals)...)
}

// CWithin is how close gompi's C library is to be to its Go API: a C
// program's time at most this many times the Go program's.
const CWithin = 1.05

// cGoals hold the gompi C side, in every plan at every size, within
// CWithin of gompi sm's Go programs; and, wherever gompi sm is held to
// Open MPI sm, to Open MPI sm as well.
func cGoals(goSM []Goal) []Goal {
	var goals []Goal
	toGo := fmt.Sprintf("%s / gompi sm: <= %.2f for a time, >= %.2f for a bandwidth", GompiCLabel, CWithin, 1/CWithin)
	for _, p := range Plans(false) {
		if p.Column == 0 { // not the overlaps, percentages held to their own bar
			goals = append(goals, Goal{Plan: p.Key(), Side: GompiCLabel, Against: "gompi sm", From: 0, To: math.MaxInt,
				Within: CWithin, Group: toGo})
		}
	}
	toOMPI := GompiCLabel + " / Open MPI sm wherever gompi sm is held to it: <= 1.0 for a time, >= 1.0 for a bandwidth"
	for _, g := range goSM {
		if g.Side == "gompi sm" && !g.absolute() && (g.Against == "" || g.Against == "Open MPI sm") {
			g.Side, g.Against, g.Group = GompiCLabel, "Open MPI sm", toOMPI
			goals = append(goals, g)
		}
	}
	return goals
}

// Verdict is a goal as measured.
type Verdict struct {
	Goal   string // what was wanted, for a reader
	Worst  string // the figure furthest from it, and where
	Met    bool
	Absent string // why it was not measured; then Worst and Met mean nothing
	// Runs is the worst figure's repetitions, each against the reference's
	// run of the same turn: their range, and how many fall short. The
	// machine's state moves single figures by a fifth or more between
	// minutes, and the runs of one turn share it, so a goal missed in
	// every turn is missed, and one missed in some is within that noise.
	Runs string
	// Side and Against are the goal's: the side held to it and what it is
	// held against ("" for an absolute goal).
	Side, Against string
	// Group is how the summary sums up the verdicts of goals of one kind
	// (the gompi C side's), "" for one that has its own line.
	Group string
}

// Check measures every goal whose plan ran; copyMBs is the machine's
// copy bandwidth (0 if unknown).
func (r *Result) Check(goals []Goal, copyMBs float64) []Verdict {
	var out []Verdict
	for _, g := range goals {
		i := slices.IndexFunc(r.Plans, func(p Plan) bool { return p.Key() == g.Plan })
		if i < 0 {
			continue // not in this run
		}
		if g.Group != "" && !slices.ContainsFunc(r.Sides, func(s *Side) bool { return s.Label == g.Side }) {
			continue // a side left out (a note says why) has no goals one by one
		}
		out = append(out, r.check(g, r.Plans[i], copyMBs))
	}
	return out
}

func (r *Result) check(g Goal, p Plan, copyMBs float64) Verdict {
	j := slices.IndexFunc(r.Sides, func(s *Side) bool { return s.Label == g.Side })
	var s, against *Side
	if j >= 0 {
		s = r.Sides[j]
		against = s.Against
	}
	if g.Against != "" {
		against = nil
		if k := slices.IndexFunc(r.Sides, func(s *Side) bool { return s.Label == g.Against }); k >= 0 {
			against = r.Sides[k]
		}
	}
	v := Verdict{Goal: g.describe(p, s, against, copyMBs), Side: g.Side, Group: g.Group}
	if !g.absolute() {
		v.Against = g.Against
		if v.Against == "" && against != nil {
			v.Against = against.Label
		}
	}
	switch {
	case s == nil:
		v.Absent = g.Side + " did not run"
		return v
	case !g.absolute() && against == nil && g.Against != "":
		v.Absent = g.Against + " did not run"
		return v
	case !g.absolute() && against == nil:
		v.Absent = g.Side + " has no reference"
		return v
	case g.Copy && copyMBs <= 0:
		v.Absent = "the copy bandwidth was not measured"
		return v
	}
	keys, med := r.Medians(p, s)
	var ref map[int]float64
	if !g.absolute() {
		rk, rm := r.Medians(p, against)
		ref = map[int]float64{}
		for i, k := range rk {
			ref[k] = rm[i]
		}
	}
	higher := g.higher(p)
	worst, at, seen := math.NaN(), 0, false
	for i, k := range keys {
		if k < g.From || k > g.To {
			continue
		}
		x := g.measure(med[i], ref[k], copyMBs)
		if math.IsNaN(x) {
			continue
		}
		if !seen || (higher && x < worst) || (!higher && x > worst) {
			worst, at = x, k
		}
		seen = true
	}
	if !seen {
		v.Absent = "no size in range was measured"
		return v
	}
	bar := g.bar(p)
	v.Met = (higher && worst >= bar) || (!higher && worst <= bar)
	v.Runs = r.turns(g, p, s, against, at, copyMBs)
	switch {
	case g.AtLeast > 0:
		v.Worst = fmt.Sprintf("%.1f at %s", worst, p.FormatKey(at))
	case g.Copy:
		v.Worst = fmt.Sprintf("%.2f of half the copy bandwidth at %s", worst, p.FormatKey(at))
	default:
		v.Worst = fmt.Sprintf("%.2f ratio at %s", worst, p.FormatKey(at))
	}
	return v
}

// measure is a figure as the goal judges it: the figure itself (AtLeast),
// its share of half the copy bandwidth (Copy), or its ratio to the
// reference's figure ref; NaN where the reference has none.
func (g Goal) measure(x, ref, copyMBs float64) float64 {
	switch {
	case g.AtLeast > 0:
		return x
	case g.Copy:
		return x / (copyMBs / 2)
	case ref > 0:
		return x / ref
	}
	return math.NaN()
}

// higher: the goal wants a figure at or above its bar (a bandwidth, an
// AtLeast), not at or below it (a time).
func (g Goal) higher(p Plan) bool { return p.Higher || g.AtLeast > 0 }

// bar is what a measured figure is held to in plan p: AtLeast, or for a
// ratio 1, or Within (1/Within for a bandwidth).
func (g Goal) bar(p Plan) float64 {
	switch {
	case g.AtLeast > 0:
		return g.AtLeast
	case g.Within > 0 && g.higher(p):
		return 1 / g.Within
	case g.Within > 0:
		return g.Within
	}
	return 1
}

// turns describes side s's figure at key k run by run as the goal
// measures it: each repetition divided by the reference's of the same turn
// (for a Copy goal by half the copy bandwidth, for an AtLeast goal as it
// is), their range and how many miss the goal's bar.
func (r *Result) turns(g Goal, p Plan, s, against *Side, k int, copyMBs float64) string {
	mine := r.runs(p, s, k)
	var ref []float64
	if !g.absolute() {
		ref = r.runs(p, against, k)
	}
	var ratios []float64
	for i, x := range mine {
		var reference float64
		if i < len(ref) {
			reference = ref[i]
		}
		if m := g.measure(x, reference, copyMBs); !math.IsNaN(m) {
			ratios = append(ratios, m)
		}
	}
	if len(ratios) == 0 {
		return ""
	}
	bar, higher, short, side := g.bar(p), g.higher(p), 0, "above"
	if higher {
		side = "below"
	}
	for _, x := range ratios {
		if (higher && x < bar) || (!higher && x > bar) {
			short++
		}
	}
	return fmt.Sprintf("%.2f-%.2f, %d of %d %s %.3g", slices.Min(ratios), slices.Max(ratios), short, len(ratios), side, bar)
}

func (g Goal) describe(p Plan, s, against *Side, copyMBs float64) string {
	sizes := "every size"
	switch {
	case g.To == math.MaxInt && g.From > 0:
		sizes = "from " + p.FormatKey(g.From)
	case g.To != math.MaxInt && g.From == g.To:
		sizes = "at " + p.FormatKey(g.From)
	case g.To != math.MaxInt:
		sizes = p.FormatKey(g.From) + " to " + p.FormatKey(g.To)
	}
	if g.Copy {
		return fmt.Sprintf("%s %s / half the copy bandwidth (%.0f MB/s) %s: >= 1.0", p.Key(), g.Side, copyMBs/2, sizes)
	}
	if g.AtLeast > 0 {
		return fmt.Sprintf("%s %s %s: >= %g", p.Key(), g.Side, sizes, g.AtLeast)
	}
	ref := "its reference"
	switch {
	case g.Against != "":
		ref = g.Against
	case against != nil:
		ref = against.Label
	}
	return fmt.Sprintf("%s %s / %s %s: %s", p.Key(), g.Side, ref, sizes, g.compare(p))
}

// compare is a ratio goal's bar as a reader reads it: "<= 1.0".
func (g Goal) compare(p Plan) string {
	cmp := "<= "
	if p.Higher {
		cmp = ">= "
	}
	if bar := g.bar(p); bar != 1 {
		return cmp + strconv.FormatFloat(bar, 'f', 2, 64)
	}
	return cmp + "1.0"
}
