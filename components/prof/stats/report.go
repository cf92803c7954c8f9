package stats

import (
	"cmp"
	"math"
	"slices"
)

// Report is the whole job's report, as it is written in JSON.
type Report struct {
	Job   string `json:"job"`
	Ranks int    `json:"ranks"` // the world's size
	// Missing are the ranks without a part, which did not finish Finalize
	// (or whose part did not decode): their figures are not in the report.
	Missing []int         `json:"missing_ranks"`
	Phases  []PhaseReport `json:"phases"` // in order; Pcontrol(2) ends one
	Total   PhaseReport   `json:"total"`  // the phases together
}

// PhaseReport is one phase across every rank.
type PhaseReport struct {
	Phase      int         `json:"phase"` // from 1; 0 for the total
	EndedBy    string      `json:"ended_by,omitempty"`
	Tasks      []TaskTime  `json:"tasks"`
	Aggregate  TaskTime    `json:"aggregate"` // Rank -1: the sums over ranks
	Functions  []FuncStat  `json:"functions"` // by time, most first
	Sites      []SiteStat  `json:"sites"`     // by id
	TopByTime  []int       `json:"top_by_time"`
	TopByBytes []int       `json:"top_by_bytes"`
	P2P        Matrix      `json:"p2p"`
	Coll       Matrix      `json:"coll"`
	Comms      []CommStat  `json:"comms"` // by time, most first
	Spread     TaskSpreads `json:"spread"`
}

// CommStat is the calls on the communicators of one name, over every
// rank: those of a Split share the name of their parent's split, unless
// SetName tells them apart.
type CommStat struct {
	Name    string  `json:"name"`
	Ranks   int     `json:"ranks"` // ranks that called on one of them
	Calls   int64   `json:"calls"`
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
	// Freed counts the ranks' communicators of the name freed before the
	// end of the phase: their counts are in.
	Freed int `json:"freed"`
}

// TaskTime is a rank's application and MPI time.
type TaskTime struct {
	Rank       int     `json:"rank"`
	Host       string  `json:"host,omitempty"`
	AppSeconds float64 `json:"app_seconds"`
	MPISeconds float64 `json:"mpi_seconds"`
	MPIPercent float64 `json:"mpi_percent"`
}

// TaskSpreads is the spread of the ranks' MPI time and MPI %.
type TaskSpreads struct {
	MPISeconds Spread `json:"mpi_seconds"`
	MPIPercent Spread `json:"mpi_percent"`
}

// FuncStat is one MPI function over every rank.
type FuncStat struct {
	Name    string  `json:"name"`
	Calls   int64   `json:"calls"`
	Seconds float64 `json:"seconds"`
	Mean    float64 `json:"mean_seconds"`
	Min     float64 `json:"min_seconds"`
	Max     float64 `json:"max_seconds"`
	Bytes   int64   `json:"bytes"`
	// Percent of the ranks' summed application and MPI time.
	AppPercent float64 `json:"app_percent"`
	MPIPercent float64 `json:"mpi_percent"`
}

// SiteStat is one call site over every rank that calls from it; its
// Name is the MPI function's.
type SiteStat struct {
	ID     int    `json:"id"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Caller string `json:"caller"`
	FuncStat
	Ranks       int    `json:"ranks"`        // ranks that call from here
	TimeSpread  Spread `json:"time_spread"`  // of the ranks' seconds here
	BytesSpread Spread `json:"bytes_spread"` // of the ranks' bytes here
}

// Spread summarises values across ranks: the coefficient of variation
// is the population standard deviation over the mean (0 when the mean is).
type Spread struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	COV  float64 `json:"cov"`
}

// Matrix is sender (row) by receiver (column), by world rank.
type Matrix struct {
	Messages [][]int64 `json:"messages"`
	Bytes    [][]int64 `json:"bytes"`
}

func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, x := range xs {
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
		sum += x
	}
	s.Mean = sum / float64(len(xs))
	if s.Mean != 0 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.COV = math.Sqrt(ss/float64(len(xs))) / math.Abs(s.Mean)
	}
	return s
}

// aggregate merges the parts of the ranks present, in rank order, of a
// world of size ranks: phase i of the report merges phase i of every rank
// that has it. The ranks without a part are Missing: their tasks are left
// out of the times and their rows of the matrices are zero.
func aggregate(job string, size int, missing []int, parts []rankPart) *Report {
	n := size
	r := &Report{Job: job, Ranks: n, Missing: missing}
	nph := 0
	for _, p := range parts {
		nph = max(nph, len(p.Phases))
	}
	ids := siteIDs(parts)
	totals := make([]*phasePart, len(parts))
	for i, p := range parts {
		t := phasePart{EndedBy: "finalize", P2P: zeroRow(n), Coll: zeroRow(n)}
		for _, ph := range p.Phases {
			t = mergePhase(t, ph)
		}
		totals[i] = &t
	}
	for k := range nph {
		phs := make([]*phasePart, len(parts))
		for i, p := range parts {
			if k < len(p.Phases) {
				phs[i] = &p.Phases[k]
			}
		}
		pr := phaseReport(n, parts, phs, ids)
		pr.Phase = k + 1
		r.Phases = append(r.Phases, pr)
	}
	r.Total = phaseReport(n, parts, totals, ids)
	r.Total.EndedBy = ""
	return r
}

// key names a call site across ranks and phases.
type key struct {
	fn, file string
	line     int
}

// siteIDs numbers every call site of the run from 1, in the order of
// file, line and function: the same program gives the same numbers.
func siteIDs(parts []rankPart) map[key]int {
	set := map[key]bool{}
	for _, p := range parts {
		for _, ph := range p.Phases {
			for _, s := range ph.Sites {
				set[key{s.Name, s.File, s.Line}] = true
			}
		}
	}
	keys := make([]key, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.fn, b.fn))
	})
	ids := make(map[key]int, len(keys))
	for i, k := range keys {
		ids[k] = i + 1
	}
	return ids
}

func zeroRow(n int) row { return row{Msgs: make([]int64, n), Bytes: make([]int64, n)} }

// mergePhase adds phase b of a rank to a.
func mergePhase(a, b phasePart) phasePart {
	a.AppNs += b.AppNs
	a.MPINs += b.MPINs
	a.Funcs = mergeCalls(a.Funcs, b.Funcs, func(c callPart) key { return key{fn: c.Name} })
	sites := map[key]int{}
	for i, s := range a.Sites {
		sites[key{s.Name, s.File, s.Line}] = i
	}
	for _, s := range b.Sites {
		k := key{s.Name, s.File, s.Line}
		if i, ok := sites[k]; ok {
			a.Sites[i].callPart = addCall(a.Sites[i].callPart, s.callPart)
		} else {
			sites[k] = len(a.Sites)
			a.Sites = append(a.Sites, s)
		}
	}
	addRow(&a.P2P, b.P2P)
	addRow(&a.Coll, b.Coll)
	a.Comms = append(slices.Clone(a.Comms), b.Comms...)
	return a
}

func mergeCalls(a, b []callPart, k func(callPart) key) []callPart {
	out := slices.Clone(a)
	for _, c := range b {
		i := slices.IndexFunc(out, func(o callPart) bool { return k(o) == k(c) })
		if i < 0 {
			out = append(out, c)
		} else {
			out[i] = addCall(out[i], c)
		}
	}
	return out
}

// addCall adds two tallies of the same calls; an empty one has no extremes.
func addCall(a, b callPart) callPart {
	switch {
	case a.Calls == 0:
		return b
	case b.Calls == 0:
		return a
	}
	return callPart{Name: a.Name, Calls: a.Calls + b.Calls, Ns: a.Ns + b.Ns,
		MinNs: min(a.MinNs, b.MinNs), MaxNs: max(a.MaxNs, b.MaxNs), Bytes: a.Bytes + b.Bytes}
}

func addRow(a *row, b row) {
	for i := range min(len(a.Msgs), len(b.Msgs)) {
		a.Msgs[i] += b.Msgs[i]
		a.Bytes[i] += b.Bytes[i]
	}
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

func percent(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * a / b
}

// phaseReport aggregates one phase of the ranks present, of a world of n;
// phs[i] is nil for a rank without it.
func phaseReport(n int, parts []rankPart, phs []*phasePart, ids map[key]int) PhaseReport {
	pr := PhaseReport{Aggregate: TaskTime{Rank: -1},
		P2P: Matrix{Messages: square(n), Bytes: square(n)}, Coll: Matrix{Messages: square(n), Bytes: square(n)}}
	var mpiSecs, mpiPcts []float64
	funcs := map[string]callPart{}
	type siteAcc struct {
		sitePart
		times, bytes []float64
	}
	sites := map[int]*siteAcc{}
	comms := map[string]*CommStat{}
	for i, ph := range phs {
		tt := TaskTime{Rank: parts[i].Rank, Host: parts[i].Host}
		if ph != nil {
			tt.AppSeconds, tt.MPISeconds = seconds(ph.AppNs), seconds(ph.MPINs)
			tt.MPIPercent = percent(tt.MPISeconds, tt.AppSeconds)
			if ph.EndedBy != "" {
				pr.EndedBy = ph.EndedBy
			}
			for _, c := range ph.Funcs {
				funcs[c.Name] = addCall(funcs[c.Name], c)
			}
			for _, s := range ph.Sites {
				id := ids[key{s.Name, s.File, s.Line}]
				a := sites[id]
				if a == nil {
					a = &siteAcc{sitePart: s}
					a.callPart = callPart{}
					sites[id] = a
				}
				a.callPart = addCall(a.callPart, s.callPart)
				a.times = append(a.times, seconds(s.Ns))
				a.bytes = append(a.bytes, float64(s.Bytes))
			}
			addComms(comms, ph.Comms)
			copyRow(pr.P2P, parts[i].Rank, ph.P2P)
			copyRow(pr.Coll, parts[i].Rank, ph.Coll)
		}
		pr.Tasks = append(pr.Tasks, tt)
		pr.Aggregate.AppSeconds += tt.AppSeconds
		pr.Aggregate.MPISeconds += tt.MPISeconds
		mpiSecs = append(mpiSecs, tt.MPISeconds)
		mpiPcts = append(mpiPcts, tt.MPIPercent)
	}
	pr.Aggregate.MPIPercent = percent(pr.Aggregate.MPISeconds, pr.Aggregate.AppSeconds)
	pr.Spread = TaskSpreads{MPISeconds: spread(mpiSecs), MPIPercent: spread(mpiPcts)}
	app, mpi := pr.Aggregate.AppSeconds, pr.Aggregate.MPISeconds
	for _, c := range funcs {
		pr.Functions = append(pr.Functions, funcStat(c, app, mpi))
	}
	slices.SortFunc(pr.Functions, func(a, b FuncStat) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Name, b.Name))
	})
	for id, a := range sites {
		pr.Sites = append(pr.Sites, SiteStat{ID: id, File: a.File, Line: a.Line, Caller: a.Caller,
			FuncStat: funcStat(a.callPart, app, mpi), Ranks: len(a.times),
			TimeSpread: spread(a.times), BytesSpread: spread(a.bytes)})
	}
	slices.SortFunc(pr.Sites, func(a, b SiteStat) int { return cmp.Compare(a.ID, b.ID) })
	for _, c := range comms {
		pr.Comms = append(pr.Comms, *c)
	}
	slices.SortFunc(pr.Comms, func(a, b CommStat) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Name, b.Name))
	})
	pr.TopByTime = topBy(pr.Sites, func(s SiteStat) float64 { return s.Seconds })
	pr.TopByBytes = topBy(pr.Sites, func(s SiteStat) float64 { return float64(s.Bytes) })
	return pr
}

// addComms adds one rank's communicator counts to acc, by name.
func addComms(acc map[string]*CommStat, cs []commPart) {
	seen := map[string]bool{}
	for _, c := range cs {
		s := acc[c.Name]
		if s == nil {
			s = &CommStat{Name: c.Name}
			acc[c.Name] = s
		}
		if !seen[c.Name] {
			seen[c.Name] = true
			s.Ranks++
		}
		s.Calls += c.Calls
		s.Seconds += seconds(c.Ns)
		s.Bytes += c.Bytes
		if c.Freed {
			s.Freed++
		}
	}
}

func funcStat(c callPart, app, mpi float64) FuncStat {
	f := FuncStat{Name: c.Name, Calls: c.Calls, Seconds: seconds(c.Ns), Min: seconds(c.MinNs), Max: seconds(c.MaxNs), Bytes: c.Bytes}
	if c.Calls > 0 {
		f.Mean = f.Seconds / float64(c.Calls)
	}
	f.AppPercent, f.MPIPercent = percent(f.Seconds, app), percent(f.Seconds, mpi)
	return f
}

// topBy lists the ids of the sites by v, largest first, ties by id,
// leaving out those with none.
func topBy(sites []SiteStat, v func(SiteStat) float64) []int {
	s := slices.Clone(sites)
	slices.SortStableFunc(s, func(a, b SiteStat) int { return cmp.Compare(v(b), v(a)) })
	ids := []int{}
	for _, x := range s {
		if v(x) > 0 {
			ids = append(ids, x.ID)
		}
	}
	return ids
}

func square(n int) [][]int64 {
	m := make([][]int64, n)
	for i := range m {
		m[i] = make([]int64, n)
	}
	return m
}

func copyRow(m Matrix, sender int, r row) {
	if sender < 0 || sender >= len(m.Messages) {
		return
	}
	copy(m.Messages[sender], r.Msgs)
	copy(m.Bytes[sender], r.Bytes)
}
