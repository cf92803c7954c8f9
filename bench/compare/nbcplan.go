package compare

import (
	"fmt"
	"math"
)

// NBCRanks are the job sizes the non-blocking collectives run at: 2, and
// 4 with two ranks per CPU here. Not 8: a job there took minutes, and with
// four ranks to a CPU the computation a rank overlaps holds the CPU its
// peers need, so the overlap would measure the scheduler.
var NBCRanks = []int{2, 4}

// nonBlocking are gompi-bench's overlap measurements, OSU's
// osu_iallreduce, osu_ibcast and osu_ialltoall, each with what its call
// is for the reports.
var nonBlocking = []struct{ name, what, min string }{
	{"iallreduce", "Iallreduce, float32 sum", "4"},
	{"ibcast", "Ibcast from rank 0", "1"},
	{"ialltoall", "Ialltoall, the size from every rank to every rank", "1"},
}

// OverlapColumn is where the overlap measurements print the overlap: the
// third column after their value (Overall, Compute, Overlap).
const OverlapColumn = 3

// OverlapGoal is the overlap, in percent, gompi's non-blocking
// collectives are to reach at every size.
const OverlapGoal = 90

// nbcPlans are the non-blocking collectives at every rank count of
// NBCRanks, on the shared-memory sides only, in the "nbc" group: for each,
// a plan of its pure latency (the call and its Wait alone) and one of its
// overlap, both read from the same run. A full run takes OSU's sizes (to
// 1 MiB) and iterations, a quick one the quick collectives' five sizes
// with fewer.
func nbcPlans(quick bool) []Plan {
	sizes := func(min string) []string { return []string{"-m", min + ":1M"} }
	if quick {
		sizes = func(min string) []string { return []string{"-s", min + ",64,1K,16K,256K", "-i", "50", "-x", "10"} }
	}
	var plans []Plan
	for _, c := range nonBlocking {
		for _, np := range NBCRanks {
			id := fmt.Sprintf("%s-%d", c.name, np)
			pure := Plan{Name: c.name, ID: id, Prog: c.name, NP: np, Args: sizes(c.min), SMOnly: true, Group: "nbc",
				Title: fmt.Sprintf("%s on %d ranks, pure latency: the call and its Wait alone, the average over the ranks of "+
					"each one's mean (us)", c.what, np)}
			overlap := pure
			overlap.ID, overlap.Column, overlap.Higher = id+"-overlap", OverlapColumn, true
			overlap.Title = fmt.Sprintf("%s on %d ranks, overlap: the share of the pure latency hidden behind computation "+
				"as long as it, without MPI calls, 100*(1-(overall-compute)/pure) from the averages over the ranks (%%)", c.what, np)
			plans = append(plans, pure, overlap)
		}
	}
	return plans
}

// nbcGoals hold gompi sm's pure latency to Open MPI sm's and its overlap
// to OverlapGoal, at every size.
func nbcGoals() []Goal {
	var goals []Goal
	for _, p := range nbcPlans(false) {
		g := Goal{Plan: p.Key(), Side: "gompi sm", From: 0, To: math.MaxInt}
		if p.Column == OverlapColumn {
			g.AtLeast = OverlapGoal
		}
		goals = append(goals, g)
	}
	return goals
}
