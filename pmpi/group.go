package pmpi

import (
	"fmt"
	"slices"
)

// Group is an ordered set of processes, named by their world ranks. Groups
// are values: operations make new ones.
type Group struct {
	ranks []int        // group rank -> world rank
	me    int          // this process's world rank
	scope *BufferScope // see Comm.scope; a group's derivatives keep it
}

// Comparison is the result of comparing two groups or communicators.
type Comparison int

// Results of CommCompare and GroupCompare, as MPI names them.
const (
	Ident     Comparison = iota // the same object (communicators) or the same members in the same order (groups)
	Congruent                   // communicators with the same members in the same order, different contexts
	Similar                     // the same members in another order
	Unequal                     // different members
)

func (c Comparison) String() string {
	switch c {
	case Ident:
		return "MPI_IDENT"
	case Congruent:
		return "MPI_CONGRUENT"
	case Similar:
		return "MPI_SIMILAR"
	case Unequal:
		return "MPI_UNEQUAL"
	}
	return fmt.Sprintf("Comparison(%d)", int(c))
}

// Size is the number of processes in the group.
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return len(g.ranks)
}

// Rank is this process's rank in the group, or Undefined if it is not a
// member.
func (g *Group) Rank() int {
	if g == nil {
		return Undefined
	}
	if i := slices.Index(g.ranks, g.me); i >= 0 {
		return i
	}
	return Undefined
}

func (g *Group) String() string {
	if g == nil {
		return "group (invalid)"
	}
	return fmt.Sprintf("group of %d", len(g.ranks))
}

func checkGroup(op string, groups ...*Group) error {
	for _, g := range groups {
		if g == nil {
			return errorf(ClassGroup, nil, "%s: the group is nil (take one from a communicator with CommGroup)", op)
		}
	}
	return nil
}

// CommGroup returns the group of comm: the local group of an
// intercommunicator.
func (*realAPI) CommGroup(comm *Comm) (*Group, error) {
	l, err := running("comm group")
	if err != nil {
		return nil, err
	}
	if err := checkComm("comm group", comm); err != nil {
		return nil, err
	}
	return &Group{ranks: slices.Clone(comm.localGroup()), me: l.job.Rank, scope: comm.scope}, nil
}

// GroupSize returns the number of processes in g.
func (*realAPI) GroupSize(g *Group) (int, error) {
	if err := checkGroup("group size", g); err != nil {
		return 0, err
	}
	return g.Size(), nil
}

// GroupRank returns this process's rank in g, or Undefined.
func (*realAPI) GroupRank(g *Group) (int, error) {
	if err := checkGroup("group rank", g); err != nil {
		return Undefined, err
	}
	return g.Rank(), nil
}

// checkRanks validates a list of distinct ranks of g.
func (g *Group) checkRanks(op string, ranks []int) error {
	seen := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		if r < 0 || r >= len(g.ranks) {
			return errorf(ClassRank, nil, "%s: rank %d is not in the %v (%s)", op, r, g, rankSpan(len(g.ranks)))
		}
		if seen[r] {
			return errorf(ClassRank, nil, "%s: rank %d is listed twice", op, r)
		}
		seen[r] = true
	}
	return nil
}

// GroupIncl returns the group of g's ranks listed, in that order.
func (*realAPI) GroupIncl(g *Group, ranks []int) (*Group, error) {
	if err := checkGroup("group incl", g); err != nil {
		return nil, err
	}
	if err := g.checkRanks("group incl", ranks); err != nil {
		return nil, err
	}
	out := &Group{ranks: make([]int, len(ranks)), me: g.me, scope: g.scope}
	for i, r := range ranks {
		out.ranks[i] = g.ranks[r]
	}
	return out, nil
}

// GroupExcl returns g without the ranks listed, in g's order.
func (*realAPI) GroupExcl(g *Group, ranks []int) (*Group, error) {
	if err := checkGroup("group excl", g); err != nil {
		return nil, err
	}
	if err := g.checkRanks("group excl", ranks); err != nil {
		return nil, err
	}
	out := &Group{me: g.me, scope: g.scope}
	for i, w := range g.ranks {
		if !slices.Contains(ranks, i) {
			out.ranks = append(out.ranks, w)
		}
	}
	return out, nil
}

// GroupUnion returns a's processes, then those of b not in a.
func (*realAPI) GroupUnion(a, b *Group) (*Group, error) {
	if err := checkGroup("group union", a, b); err != nil {
		return nil, err
	}
	out := &Group{ranks: slices.Clone(a.ranks), me: a.me, scope: a.scope}
	for _, w := range b.ranks {
		if !slices.Contains(a.ranks, w) {
			out.ranks = append(out.ranks, w)
		}
	}
	return out, nil
}

// GroupIntersection returns a's processes that are also in b, in a's order.
func (*realAPI) GroupIntersection(a, b *Group) (*Group, error) {
	if err := checkGroup("group intersection", a, b); err != nil {
		return nil, err
	}
	out := &Group{me: a.me, scope: a.scope}
	for _, w := range a.ranks {
		if slices.Contains(b.ranks, w) {
			out.ranks = append(out.ranks, w)
		}
	}
	return out, nil
}

// GroupDifference returns a's processes that are not in b, in a's order.
func (*realAPI) GroupDifference(a, b *Group) (*Group, error) {
	if err := checkGroup("group difference", a, b); err != nil {
		return nil, err
	}
	out := &Group{me: a.me, scope: a.scope}
	for _, w := range a.ranks {
		if !slices.Contains(b.ranks, w) {
			out.ranks = append(out.ranks, w)
		}
	}
	return out, nil
}

// GroupTranslateRanks returns the rank in b of each of a's ranks listed:
// Undefined for a process not in b, ProcNull for ProcNull.
func (*realAPI) GroupTranslateRanks(a *Group, ranks []int, b *Group) ([]int, error) {
	if err := checkGroup("group translate ranks", a, b); err != nil {
		return nil, err
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		switch {
		case r == ProcNull:
			out[i] = ProcNull
		case r < 0 || r >= len(a.ranks):
			return nil, errorf(ClassRank, nil, "group translate ranks: rank %d is not in the %v (%s)", r, a, rankSpan(len(a.ranks)))
		default:
			out[i] = Undefined
			if j := slices.Index(b.ranks, a.ranks[r]); j >= 0 {
				out[i] = j
			}
		}
	}
	return out, nil
}

// GroupCompare returns Ident for the same processes in the same order,
// Similar for the same processes in another order, else Unequal.
func (*realAPI) GroupCompare(a, b *Group) (Comparison, error) {
	if err := checkGroup("group compare", a, b); err != nil {
		return Unequal, err
	}
	return compareRanks(a.ranks, b.ranks), nil
}

func compareRanks(a, b []int) Comparison {
	if slices.Equal(a, b) {
		return Ident
	}
	if len(a) != len(b) {
		return Unequal
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	if slices.Equal(sa, sb) {
		return Similar
	}
	return Unequal
}

// rankSpan names the ranks of a group of n, for errors.
func rankSpan(n int) string {
	if n == 0 {
		return "it has no rank"
	}
	return fmt.Sprintf("0 to %d", n-1)
}
