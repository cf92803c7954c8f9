package han

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// TestMessagesBetweenNodes counts the messages that cross between nodes
// in each collective: what the hierarchy promises, whatever the layout
// and the root. L is the number of nodes.
func TestMessagesBetweenNodes(t *testing.T) {
	for _, n := range sizes {
		for _, lay := range layouts(n) {
			t.Run(fmt.Sprintf("n%d/%s", n, lay.name), func(t *testing.T) {
				w := newWorld(t, lay, autoConfig(), false)
				topo, _ := newTopology(lay.nodes, 0)
				L := int64(len(topo.leaders))
				expect := func(what string, want int64, f func(tab *coll.Table, c coll.Comm) error) {
					t.Helper()
					before := w.cross.Load()
					w.run(t, f)
					if got := w.cross.Load() - before; got != want {
						t.Errorf("%s: %d messages between nodes, want %d", what, got, want)
					}
				}
				barrier := L * (L - 1) // one round, each leader to every other
				if L > exchangeMaxNodes {
					barrier = L * int64(bits.Len(uint(L-1))) // dissemination
				}
				expect("barrier", barrier, func(tab *coll.Table, c coll.Comm) error { return tab.Barrier(c) })
				for _, root := range colltest.Roots(n) {
					expect(fmt.Sprintf("bcast from %d", root), L-1, func(tab *coll.Table, c coll.Comm) error {
						return tab.Bcast(c, make([]byte, 1000), root)
					})
					expect(fmt.Sprintf("reduce sum to %d", root), L-1, func(tab *coll.Table, c coll.Comm) error {
						return tab.Reduce(c, make([]byte, 800), make([]byte, 800), colltest.SumInt64{}, root)
					})
					if topo.contiguous {
						// Rank order: to the first node's leader, then to the root.
						want := L - 1
						if lay.nodes[root] != 0 {
							want++
						}
						expect(fmt.Sprintf("reduce matmul to %d", root), want, func(tab *coll.Table, c coll.Comm) error {
							return tab.Reduce(c, make([]byte, 160), make([]byte, 160), colltest.MatMul{}, root)
						})
					}
					expect(fmt.Sprintf("gather to %d", root), L-1, func(tab *coll.Table, c coll.Comm) error {
						return tab.Gather(c, make([]byte, 10), make([]byte, 10*n), root)
					})
					expect(fmt.Sprintf("scatter from %d", root), L-1, func(tab *coll.Table, c coll.Comm) error {
						return tab.Scatter(c, make([]byte, 10*n), make([]byte, 10), root)
					})
				}
				expect("small allreduce", L*(L-1), func(tab *coll.Table, c coll.Comm) error {
					return tab.Allreduce(c, make([]byte, exchangeMaxBytes), make([]byte, exchangeMaxBytes), colltest.SumInt64{})
				})
				big := exchangeMaxBytes + 8
				expect("large allreduce", 2*(L-1), func(tab *coll.Table, c coll.Comm) error {
					return tab.Allreduce(c, make([]byte, big), make([]byte, big), colltest.SumInt64{})
				})
				expect("allgather", L*(L-1), func(tab *coll.Table, c coll.Comm) error {
					return tab.Allgather(c, make([]byte, 10), make([]byte, 10*n))
				})
			})
		}
	}
}

// TestManyNodes: on more than exchangeMaxNodes nodes the leaders' steps
// go by trees (dissemination, reduce and bcast) rather than exchanges:
// every collective still gives the serial result, with the messages
// between nodes those trees send, and no rank leaves a barrier before
// every rank entered it.
func TestManyNodes(t *testing.T) {
	nodes := []int{0, 0}
	for k := 1; k <= exchangeMaxNodes+2; k++ {
		nodes = append(nodes, k)
	}
	lay := layout{"many", nodes}
	n, L := len(nodes), int64(exchangeMaxNodes+3)
	for _, rv := range []bool{false, true} {
		w := newWorld(t, lay, autoConfig(), rv)
		checkAll(t, w, false)
	}
	w := newWorld(t, lay, autoConfig(), false)
	var entered atomic.Int64
	before := w.cross.Load()
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		entered.Add(1)
		if err := tab.Barrier(c); err != nil {
			return err
		}
		if got := entered.Load(); got != int64(n) {
			return fmt.Errorf("rank %d left the barrier when %d of %d ranks had entered", c.Rank(), got, n)
		}
		return nil
	})
	if got, want := w.cross.Load()-before, L*int64(bits.Len(uint(L-1))); got != want {
		t.Errorf("barrier: %d messages between nodes, want %d", got, want)
	}
	before = w.cross.Load()
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		return tab.Allreduce(c, make([]byte, 8), make([]byte, 8), colltest.SumInt64{})
	})
	if got, want := w.cross.Load()-before, 2*(L-1); got != want {
		t.Errorf("allreduce: %d messages between nodes, want %d", got, want)
	}
}
