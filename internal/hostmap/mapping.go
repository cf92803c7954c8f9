package hostmap

import (
	"fmt"
	"slices"
	"strings"
)

// Options are the mapping options of one job.
type Options struct {
	// NP holds the number of ranks (-np) of each app context, in order:
	// gompirun -np 1 ./a : -np 3 ./b is {1, 3}. Open MPI maps the contexts
	// one after the other onto the slots the earlier ones left, and numbers
	// their ranks in that order. A 0 fills the slots still free, as mpirun
	// does without -np, or puts PerNode ranks on every host under ppr and
	// -N; an empty NP is one context that does so.
	NP     []int
	MapBy  MapBy
	RankBy RankBy
	// PerNode is -N / --npernode: that many ranks on each host, the same
	// as --map-by ppr:N:node. 0 means not given.
	PerNode int
	// Oversubscribe lets hosts take more ranks than slots, never more than
	// their MaxSlots.
	Oversubscribe bool
	// Local is the host used when no hosts are given: mpirun without
	// --host or --hostfile runs on its own host, with as many slots as the
	// caller says (its usable CPUs).
	Local Host
}

// Map is a job's placement.
type Map struct {
	Hosts  []Host // the hosts mapped onto, in the order given
	Procs  []Proc // indexed by rank
	MapBy  MapBy  // the mapping used, with -N resolved to ppr:N:node
	RankBy RankBy // the ranking used, never RankDefault
}

// Proc is where one rank runs.
type Proc struct {
	App       int // index of its app context in Options.NP
	Node      int // index of its host in Map.Hosts
	LocalRank int // its place among its host's ranks, in rank order
	LocalSize int // how many ranks of the job its host runs
}

// Place maps the ranks of o.NP onto hosts (o.Local when hosts is empty) and
// numbers them. It fails, saying what would allow the job, when the ranks do
// not fit the hosts' slots without --oversubscribe, or their max_slots with
// it.
func Place(hosts []Host, o Options) (*Map, error) {
	if len(hosts) == 0 {
		hosts = []Host{o.Local}
	}
	hosts = slices.Clone(hosts) // the Map owns its hosts
	if err := checkHosts(hosts); err != nil {
		return nil, err
	}
	m, err := resolve(o)
	if err != nil {
		return nil, err
	}
	r := o.RankBy
	if r == RankDefault {
		r = RankSlot
		if m.Mapping == MapNode {
			r = RankNode
		}
	}
	nps := o.NP
	if len(nps) == 0 {
		nps = []int{0}
	}
	var (
		used  = make([]int, len(hosts)) // ranks per host so far
		nodes []int                     // each rank's host
		apps  []int                     // each rank's app context
	)
	for app, np := range nps {
		counts, err := mapApp(hosts, used, np, len(nodes), m, o.Oversubscribe || m.Oversubscribe)
		if err != nil {
			if len(nps) > 1 {
				return nil, fmt.Errorf("app context %d: %w", app+1, err)
			}
			return nil, err
		}
		for i, c := range counts {
			used[i] += c
		}
		appNodes := rank(counts, r)
		nodes = append(nodes, appNodes...)
		for range appNodes {
			apps = append(apps, app)
		}
	}
	procs := make([]Proc, len(nodes))
	local := make([]int, len(hosts))
	for rank, node := range nodes {
		procs[rank] = Proc{App: apps[rank], Node: node, LocalRank: local[node], LocalSize: used[node]}
		local[node]++
	}
	return &Map{Hosts: hosts, Procs: procs, MapBy: m, RankBy: r}, nil
}

// resolve checks o's values and folds -N into the mapping.
func resolve(o Options) (MapBy, error) {
	m := o.MapBy
	for i, np := range o.NP {
		if np < 0 {
			if len(o.NP) > 1 {
				return m, fmt.Errorf("app context %d: -np %d: want 0 (one rank per free slot) or more", i+1, np)
			}
			return m, fmt.Errorf("-np %d: want 0 (one rank per slot) or more", np)
		}
	}
	switch {
	case o.PerNode < 0:
		return m, fmt.Errorf("-N %d: want a positive number of ranks per node", o.PerNode)
	case m.Mapping == MapPPR && m.PerNode < 1:
		return m, fmt.Errorf("--map-by ppr:%d:node: want a positive number of ranks per node", m.PerNode)
	case o.RankBy < RankDefault || o.RankBy > RankNode:
		return m, fmt.Errorf("rank-by policy %d: want slot or node", o.RankBy)
	case m.Mapping < MapDefault || m.Mapping > MapPPR:
		return m, fmt.Errorf("map-by policy %d: %s", m.Mapping, mapByHelp)
	}
	if o.PerNode > 0 {
		if m.Mapping != MapDefault {
			return m, fmt.Errorf("-N %d and --map-by %s conflict: -N %d is --map-by ppr:%d:node; give one of them", o.PerNode, m, o.PerNode, o.PerNode)
		}
		m.Mapping, m.PerNode = MapPPR, o.PerNode
	}
	if m.Mapping == MapDefault {
		m.Mapping = MapSlot
	}
	return m, nil
}

// checkHosts refuses host lists that no parser here produces, so that a
// caller's mistake is not mapped.
func checkHosts(hosts []Host) error {
	seen := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		if err := checkName(h.Name); err != nil {
			return err
		}
		if seen[h.Name] {
			return fmt.Errorf("host %s listed twice: merge its slots into one entry", h.Name)
		}
		seen[h.Name] = true
		if h.Slots < 1 {
			return fmt.Errorf("host %s has %d slots: want 1 or more", h.Name, h.Slots)
		}
		if h.MaxSlots != 0 && h.MaxSlots < h.Slots {
			return fmt.Errorf("host %s: max_slots=%d is less than its %d slots: want max_slots 0 (no limit) or at least the slots", h.Name, h.MaxSlots, h.Slots)
		}
	}
	return nil
}

// maxRanks bounds a job's size, so that a mistyped -np is an error rather
// than an attempt to allocate a billion ranks.
const maxRanks = 1 << 20

// mapApp decides how many ranks of one app context each host gets, on top
// of the used ranks of the contexts before it; before is their number.
func mapApp(hosts []Host, used []int, np, before int, m MapBy, oversubscribe bool) ([]int, error) {
	if before+np > maxRanks {
		return nil, fmt.Errorf("-np %d: want at most %d ranks in the job", np, maxRanks-before)
	}
	if m.Mapping == MapPPR {
		return pprCounts(hosts, used, np, before, m, oversubscribe)
	}
	free := make([]int, len(hosts))
	slots := make([]int, len(hosts))
	freeTotal := 0
	for i, h := range hosts {
		slots[i] = h.Slots
		free[i] = max(h.Slots-used[i], 0)
		freeTotal += free[i]
	}
	if np == 0 {
		if unknown := unknownSlots(hosts); unknown != "" {
			return nil, fmt.Errorf("no rank count given, and the hostfile gives no slots= for %s (Open MPI would count their cores, which gompi cannot see from here): give -np, or slots=N", unknown)
		}
		if freeTotal == 0 {
			return nil, fmt.Errorf("no rank count given, and every slot is taken (%s): give -np", describeHosts(hosts, func(h Host) string { return plural(h.Slots, "slot") }))
		}
		if before+freeTotal > maxRanks {
			return nil, fmt.Errorf("the hosts' %d free slots make more than %d ranks: give -np", freeTotal, maxRanks-before)
		}
		return free, nil
	}
	var counts []int
	if m.Mapping == MapNode {
		filled, _ := rounds(used, slots, np)
		counts = make([]int, len(hosts))
		for i := range counts {
			counts[i] = filled[i] - used[i]
		}
	} else {
		counts = make([]int, len(hosts))
		left := np
		for i := range hosts {
			counts[i] = min(free[i], left)
			left -= counts[i]
		}
	}
	if np <= freeTotal {
		return counts, nil
	}
	if !oversubscribe {
		return nil, notEnoughSlots(hosts, before+np)
	}
	// Every slot is taken: the ranks left over go one per host per round,
	// in host order, as Open MPI's documentation describes, skipping hosts
	// at their max_slots.
	limits := make([]int, len(hosts))
	now := make([]int, len(hosts))
	for i, h := range hosts {
		limits[i] = h.MaxSlots
		now[i] = used[i] + counts[i]
	}
	filled, unplaced := rounds(now, limits, np-freeTotal)
	if unplaced > 0 {
		return nil, overMaxSlots(hosts, before+np)
	}
	for i := range counts {
		counts[i] = filled[i] - used[i]
	}
	return counts, nil
}

// rounds deals n ranks one per host per round, in host order, on top of
// base, never taking a host past its limit (0: none). It returns the counts
// and how many ranks found no room. Rather than deal one at a time it finds
// the number of full rounds by bisection, so a million ranks cost about
// twenty passes over the hosts.
func rounds(base, limit []int, n int) ([]int, int) {
	after := func(k int) (counts []int, placed int) {
		counts = make([]int, len(base))
		for i, b := range base {
			counts[i] = b + k
			if limit[i] > 0 {
				counts[i] = max(b, min(counts[i], limit[i]))
			}
			placed += counts[i] - b
		}
		return counts, placed
	}
	// The largest k whose k full rounds place at most n ranks.
	lo, hi := 0, n
	for lo < hi {
		mid := hi - (hi-lo)/2
		if _, placed := after(mid); placed <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	counts, placed := after(lo)
	left := n - placed
	for i := range counts {
		if left > 0 && (limit[i] == 0 || counts[i] < limit[i]) {
			counts[i]++
			left--
		}
	}
	return counts, left
}

// pprCounts puts m.PerNode ranks of one app context on each host in order
// until np are placed, on top of the ranks already used.
func pprCounts(hosts []Host, used []int, np, before int, m MapBy, oversubscribe bool) ([]int, error) {
	most := m.PerNode * len(hosts)
	if np == 0 {
		if before+most > maxRanks {
			return nil, fmt.Errorf("%s on %d hosts makes more than %d ranks: give -np", m, len(hosts), maxRanks-before)
		}
		np = most
	}
	if np > most {
		return nil, fmt.Errorf("-np %d does not fit %s: it places at most %d ranks on %d hosts: lower -np, raise N or add hosts", np, m, most, len(hosts))
	}
	counts := make([]int, len(hosts))
	left := np
	for i, h := range hosts {
		counts[i] = min(m.PerNode, left)
		left -= counts[i]
		total := used[i] + counts[i]
		switch {
		case h.MaxSlots > 0 && total > h.MaxSlots:
			return nil, fmt.Errorf("%s puts %s on host %s, more than its max_slots=%d, which even --oversubscribe respects: lower N", m, plural(total, "rank"), h.Name, h.MaxSlots)
		case total > h.Slots && !oversubscribe:
			return nil, fmt.Errorf("%s puts %s on host %s, which has %s%s: lower N, give the host more slots, or allow it with --oversubscribe", m, plural(total, "rank"), h.Name, plural(h.Slots, "slot"), unknownNote(h))
		}
	}
	return counts, nil
}

// notEnoughSlots is Open MPI's "not enough slots" error in substance: how
// many ranks, how many slots on which hosts, and what would allow it.
func notEnoughSlots(hosts []Host, np int) error {
	total := 0
	for _, h := range hosts {
		total += h.Slots
	}
	return fmt.Errorf("%d ranks do not fit the %s of %s: use fewer ranks, give more slots (host:N in --host, slots=N in a hostfile), or allow more ranks than slots with --oversubscribe",
		np, plural(total, "slot"), describeHosts(hosts, func(h Host) string { return fmt.Sprintf("%d%s", h.Slots, unknownNote(h)) }))
}

// overMaxSlots is the error when even --oversubscribe cannot place the job.
func overMaxSlots(hosts []Host, np int) error {
	total := 0
	for _, h := range hosts {
		total += h.MaxSlots
	}
	return fmt.Errorf("%d ranks do not fit even with --oversubscribe: max_slots allows %d on %s: use fewer ranks, raise max_slots= in the hostfile, or add hosts",
		np, total, describeHosts(hosts, func(h Host) string { return fmt.Sprintf("max_slots=%d", h.MaxSlots) }))
}

// describeHosts lists hosts with a detail each, "2 hosts: a (2), b (4)",
// shortening long lists.
func describeHosts(hosts []Host, detail func(Host) string) string {
	const most = 8
	shown := hosts[:min(len(hosts), most)]
	parts := make([]string, 0, len(shown)+1)
	for _, h := range shown {
		parts = append(parts, fmt.Sprintf("%s (%s)", h.Name, detail(h)))
	}
	if len(hosts) > most {
		parts = append(parts, fmt.Sprintf("and %d more", len(hosts)-most))
	}
	return plural(len(hosts), "host") + ": " + strings.Join(parts, ", ")
}

// plural counts things: "1 slot", "2 slots".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// unknownNote marks a slot count that stands in for an unknown one.
func unknownNote(h Host) string {
	if h.SlotsUnknown {
		return ", no slots= in the hostfile"
	}
	return ""
}

// unknownSlots names the hosts whose slot count is a stand-in, "" if none.
func unknownSlots(hosts []Host) string {
	var names []string
	for _, h := range hosts {
		if h.SlotsUnknown {
			names = append(names, h.Name)
		}
	}
	return strings.Join(names, ", ")
}

// rank numbers one app context's ranks given each host's count: it returns
// each rank's host, in rank order.
func rank(counts []int, r RankBy) []int {
	total := 0
	for _, c := range counts {
		total += c
	}
	nodes := make([]int, 0, total)
	if r == RankSlot {
		for node, c := range counts {
			for range c {
				nodes = append(nodes, node)
			}
		}
		return nodes
	}
	// One rank per host per round; hosts drop out of active when they
	// have no more, so the work is the number of ranks, whatever the
	// spread of the counts.
	active := make([]int, 0, len(counts))
	for node, c := range counts {
		if c > 0 {
			active = append(active, node)
		}
	}
	for round := 0; len(active) > 0; round++ {
		next := active[:0]
		for _, node := range active {
			nodes = append(nodes, node)
			if round+1 < counts[node] {
				next = append(next, node)
			}
		}
		active = next
	}
	return nodes
}
