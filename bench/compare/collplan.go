package compare

import "fmt"

// CollectiveRanks are the job sizes the collectives run at; the largest
// is the one plotted.
var CollectiveRanks = []int{2, 4, 8}

// collectives are gompi-bench's collective subcommands, each with what
// its value is for the reports; the reductions start at one float32.
var collectives = []struct{ name, what string }{
	{"barrier", "Barrier"},
	{"bcast", "Bcast from rank 0"},
	{"reduce", "Reduce to rank 0, float32 sum"},
	{"allreduce", "Allreduce, float32 sum"},
	{"allgather", "Allgather, the size from every rank"},
	{"alltoall", "Alltoall, the size from every rank to every rank"},
}

// collectivePlans are the collectives at every rank count of
// CollectiveRanks, on the shared-memory sides only: a full run with OSU's
// sizes (to 1 MiB) and iterations (1000 after 200 warm-up ones, 100 after
// 10 above 8 KiB: with a fifth of them, a call of half a microsecond was
// timed over 100 us, and single cells moved by 1.5 times between runs), a
// quick one at five sizes with fewer.
func collectivePlans(quick bool) []Plan {
	sizes := func(min string) []string { return []string{"-m", min + ":1M"} }
	barrier := []string{"-i", "1000", "-x", "100"}
	if quick {
		sizes = func(min string) []string { return []string{"-s", min + ",64,1K,16K,256K", "-i", "50", "-x", "10"} }
		barrier = []string{"-i", "200", "-x", "20"}
	}
	var plans []Plan
	for _, c := range collectives {
		for _, np := range CollectiveRanks {
			p := Plan{Name: c.name, ID: fmt.Sprintf("%s-%d", c.name, np), Prog: c.name, NP: np, SMOnly: true,
				Title: fmt.Sprintf("%s on %d ranks: time per call, the average over the ranks of each one's mean (us)", c.what, np)}
			switch {
			case c.name == "barrier":
				p.Args = barrier
			case c.name == "reduce" || c.name == "allreduce":
				p.Args = sizes("4")
			default:
				p.Args = sizes("1")
			}
			if np == CollectiveRanks[len(CollectiveRanks)-1] && c.name != "barrier" {
				p.Plot = c.name
			}
			plans = append(plans, p)
		}
	}
	return plans
}

// neighbourhood are gompi-bench's neighbourhood collectives, OSU's
// osu_neighbor_allgather and osu_neighbor_alltoall on a periodic 2-D
// torus of the job's ranks, with their C programs and what their value is
// for the reports.
var neighbourhood = []struct{ name, prog, what string }{
	{"neighbor-allgather", "neighbor_allgather", "NeighborAllgather on a 2-D torus, the size to each of 4 neighbours"},
	{"neighbor-alltoall", "neighbor_alltoall", "NeighborAlltoall on a 2-D torus, the size to and from each of 4 neighbours"},
}

// neighbourPlans, the "neighbor" group, are the neighbourhood collectives
// at every rank count of CollectiveRanks, on the shared-memory sides only,
// with the collectives' sizes and iterations.
func neighbourPlans(quick bool) []Plan {
	args := []string{"-m", "1:1M"}
	if quick {
		args = []string{"-s", "1,64,1K,16K,256K", "-i", "50", "-x", "10"}
	}
	var plans []Plan
	for _, c := range neighbourhood {
		for _, np := range CollectiveRanks {
			plans = append(plans, Plan{Name: c.name, ID: fmt.Sprintf("%s-%d", c.name, np), Prog: c.prog, NP: np, Args: args,
				SMOnly: true, Group: "neighbor",
				Title: fmt.Sprintf("%s, on %d ranks: time per call, the average over the ranks of each one's mean (us)", c.what, np)})
		}
	}
	return plans
}

// ColdCalls are the counts of first calls the cold plans time.
var ColdCalls = []int{20, 100}

// coldPlans, the "cold" group, are the collectives' first calls on a
// fresh communicator (gompi-bench -c, a Dup of the world for each size),
// the first 20 and the first 100 at every rank count of CollectiveRanks,
// on the shared-memory sides only: what a program that calls a collective
// a few dozen times sees, where the warm plans' figures come after
// hundreds of calls. A full run takes OSU's sizes, a quick one the quick
// collectives'.
func coldPlans(quick bool) []Plan {
	sizes := func(min string) []string { return []string{"-m", min + ":1M"} }
	if quick {
		sizes = func(min string) []string { return []string{"-s", min + ",64,1K,16K,256K"} }
	}
	var plans []Plan
	for _, c := range collectives {
		for _, np := range CollectiveRanks {
			for _, calls := range ColdCalls {
				p := Plan{Name: c.name, ID: fmt.Sprintf("%s-%d-cold%d", c.name, np, calls), Prog: c.name, NP: np, SMOnly: true,
					Cold: calls, Group: "cold",
					Title: fmt.Sprintf("%s on %d ranks, cold: the first %d calls on a fresh communicator, time per call, "+
						"the average over the ranks of each one's mean (us)", c.what, np, calls)}
				switch c.name {
				case "barrier":
				case "reduce", "allreduce":
					p.Args = sizes("4")
				default:
					p.Args = sizes("1")
				}
				p.Args = append(p.Args, "-i", fmt.Sprint(calls), "-c")
				plans = append(plans, p)
			}
		}
	}
	return plans
}
