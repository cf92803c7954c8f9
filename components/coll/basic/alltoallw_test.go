package basic

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

// TestAlltoallw: every rank sends each rank a block of its own length,
// zero for some pairs and some ranks to themselves, each block a slice
// of its own.
func TestAlltoallw(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, unit := range byteCounts[1:] {
			t.Run(fmt.Sprintf("n%d/unit%d", n, unit), func(t *testing.T) {
				amount := func(s, d int) int { return ((2*s + d) % 3) * unit }
				block := func(s, d int) []byte { return fill(17+d, s, amount(s, d)) }
				got := make([][][]byte, n)
				run(t, n, func(c coll.Comm) error {
					me := c.Rank()
					send, recv := make([][]byte, n), make([][]byte, n)
					for p := range n {
						send[p], recv[p] = block(me, p), filled(amount(p, me))
					}
					got[me] = recv
					return m.Alltoallw(c, send, recv)
				})
				for r := range n {
					for s := range n {
						check(t, fmt.Sprintf("rank %d from %d", r, s), got[r][s], block(s, r))
					}
				}
			})
		}
	}
}

// TestNeighborAlltoallw runs NeighborAlltoallw on a periodic ring, of
// one and two ranks too, where one rank is the neighbour below and
// above: rank r receives from below what r-1 sent up, and from above
// what r+1 sent down.
func TestNeighborAlltoallw(t *testing.T) {
	m := newModule()
	for n := 1; n <= 5; n++ {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			ring := func(r int) coll.Neighbors {
				l := []int{(r + n - 1) % n, (r + 1) % n}
				return coll.Neighbors{Sources: l, Dests: l, Cart: true}
			}
			// Down blocks are 8*(r+1) bytes long, up blocks 3 bytes.
			down := func(r int) []byte { return fill(1, r, 8*(r+1)) }
			up := func(r int) []byte { return fill(2, r, 3) }
			got := make([][][]byte, n)
			run(t, n, func(c coll.Comm) error {
				me := c.Rank()
				above := (me + 1) % n
				recv := [][]byte{filled(3), filled(8 * (above + 1))}
				got[me] = recv
				return m.NeighborAlltoallw(c, ring(me), [][]byte{down(me), up(me)}, recv)
			})
			for r := range n {
				check(t, fmt.Sprintf("rank %d from below", r), got[r][0], up((r+n-1)%n))
				check(t, fmt.Sprintf("rank %d from above", r), got[r][1], down((r+1)%n))
			}
		})
	}
}
