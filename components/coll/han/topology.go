package han

// topology is where a communicator's ranks run, as one rank sees it: the
// ranks of each node, its leader, and this rank's place.
type topology struct {
	nodeOf  []int   // by rank: its node
	ranks   [][]int // by node: its ranks, ascending; ranks[k][0] is its leader
	leaders []int   // by node: its leader; ascending, as nodes are numbered by their first rank
	me      int     // this rank
	node    int     // this rank's node
	// contiguous: every node's ranks are consecutive, so that the nodes'
	// partial results, combined in node order, are the rank-order fold.
	contiguous bool
}

// newTopology reads nodes (Host.Nodes) for rank me. It reports false
// unless the nodes are numbered 0, 1, ... in the order of their first
// rank, as the framework promises: a numbering that breaks it would give
// the members different trees.
func newTopology(nodes []int, me int) (*topology, bool) {
	if me < 0 || me >= len(nodes) {
		return nil, false
	}
	t := &topology{nodeOf: nodes, me: me, node: nodes[me], contiguous: true}
	for r, k := range nodes {
		switch {
		case k == len(t.ranks):
			t.ranks = append(t.ranks, []int{r})
			t.leaders = append(t.leaders, r)
		case k >= 0 && k < len(t.ranks):
			if nodes[r-1] != k {
				t.contiguous = false
			}
			t.ranks[k] = append(t.ranks[k], r)
		default:
			return nil, false
		}
	}
	return t, true
}

// leader is this rank's node's leader.
func (t *topology) leader() int { return t.leaders[t.node] }

// isLeader reports whether this rank leads its node.
func (t *topology) isLeader() bool { return t.leader() == t.me }

// local is this rank's node's ranks.
func (t *topology) local() []int { return t.ranks[t.node] }

// without returns ranks without r, in the same order: a new slice if r is
// in it.
func without(ranks []int, r int) []int {
	for i, x := range ranks {
		if x == r {
			out := make([]int, 0, len(ranks)-1)
			out = append(out, ranks[:i]...)
			return append(out, ranks[i+1:]...)
		}
	}
	return ranks
}

// index is r's position in ranks, -1 if absent.
func index(ranks []int, r int) int {
	for i, x := range ranks {
		if x == r {
			return i
		}
	}
	return -1
}
