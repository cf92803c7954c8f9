package coll

import (
	"slices"
	"testing"
)

// Self pairs what a rank sends itself with what it receives from itself
// in the order messages would match: in a grid the upper block first.
func TestNeighborsSelf(t *testing.T) {
	for _, tc := range []struct {
		name         string
		nb           Neighbors
		me           int
		want         [][2]int // (dest, source) pairs
		sends, recvs int
	}{
		// A periodic dimension of one rank: what goes down arrives from above.
		{"grid of one", Neighbors{Sources: []int{0, 0}, Dests: []int{0, 0}, Cart: true}, 0, [][2]int{{1, 0}, {0, 1}}, 2, 2},
		// A 2x1 periodic grid: rank 1 is its own neighbour in dimension 1 only.
		{"grid 2x1", Neighbors{Sources: []int{0, 0, 1, 1}, Dests: []int{0, 0, 1, 1}, Cart: true}, 1, [][2]int{{3, 2}, {2, 3}}, 2, 2},
		// A graph's edges to itself pair in their order.
		{"graph", Neighbors{Sources: []int{2, 3, 2, -1}, Dests: []int{2, 2, 5}}, 2, [][2]int{{0, 0}, {1, 2}}, 2, 2},
		// More sends to itself than receives: the extra send has no pair.
		{"disagreeing", Neighbors{Sources: []int{4}, Dests: []int{4, 4}}, 4, [][2]int{{0, 0}}, 2, 1},
	} {
		var got [][2]int
		sends, recvs := tc.nb.Self(tc.me, func(d, s int) { got = append(got, [2]int{d, s}) })
		if !slices.Equal(got, tc.want) || sends != tc.sends || recvs != tc.recvs {
			t.Errorf("%s: pairs %v, %d sends, %d receives; want %v, %d, %d", tc.name, got, sends, recvs, tc.want, tc.sends, tc.recvs)
		}
	}
}
