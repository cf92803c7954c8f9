package mpi

import "github.com/gompi/gompi/pmpi"

// Group is an ordered set of ranks, taken from a communicator with
// Comm.Group and combined into others. The zero Group is invalid.
type Group struct{ g *pmpi.Group }

// Size is the number of ranks in g, 0 for an invalid group.
func (g Group) Size() int {
	n, err := api().GroupSize(g.g)
	if err != nil {
		return 0
	}
	return n
}

// Rank is this process's rank in g, or Undefined if it is not a member.
func (g Group) Rank() int {
	r, err := api().GroupRank(g.g)
	if err != nil {
		return Undefined
	}
	return r
}

// Incl returns the group of g's listed ranks, in the order listed.
func (g Group) Incl(ranks []int) (Group, error) {
	n, err := api().GroupIncl(g.g, ranks)
	return Group{n}, err
}

// Excl returns g without the listed ranks.
func (g Group) Excl(ranks []int) (Group, error) {
	n, err := api().GroupExcl(g.g, ranks)
	return Group{n}, err
}

// Union returns g's ranks, then those of o that are not in g.
func (g Group) Union(o Group) (Group, error) {
	n, err := api().GroupUnion(g.g, o.g)
	return Group{n}, err
}

// Intersection returns g's ranks that are also in o, in g's order.
func (g Group) Intersection(o Group) (Group, error) {
	n, err := api().GroupIntersection(g.g, o.g)
	return Group{n}, err
}

// Difference returns g's ranks that are not in o, in g's order.
func (g Group) Difference(o Group) (Group, error) {
	n, err := api().GroupDifference(g.g, o.g)
	return Group{n}, err
}

// TranslateRanks returns the rank in o of each listed rank of g, or
// Undefined where o does not hold it.
func (g Group) TranslateRanks(ranks []int, o Group) ([]int, error) {
	return api().GroupTranslateRanks(g.g, ranks, o.g)
}

// Compare returns Ident (same ranks, same order), Similar (same ranks) or
// Unequal.
func (g Group) Compare(o Group) (Comparison, error) { return api().GroupCompare(g.g, o.g) }

// String describes the group.
func (g Group) String() string { return g.g.String() }
