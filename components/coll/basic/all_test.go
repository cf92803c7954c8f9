package basic

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// TestBarrier checks that no rank leaves before every rank has entered.
func TestBarrier(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			for range 3 { // one communicator, barrier after barrier
				var entered atomic.Int32
				seen := make([]int32, n)
				w := colltest.NewWorld(n)
				w.Run(t, func(c coll.Comm) error {
					entered.Add(1)
					err := m.Barrier(c)
					seen[c.Rank()] = entered.Load()
					return err
				})
				for r, s := range seen {
					if s != int32(n) {
						t.Errorf("rank %d left the barrier after %d of %d ranks entered", r, s, n)
					}
				}
			}
		})
	}
}

func TestAllreduce(t *testing.T) {
	m := newModule()
	for _, op := range ops {
		for n := 1; n <= maxSize; n++ {
			for _, elems := range elemCounts {
				t.Run(fmt.Sprintf("%s/n%d/e%d", opName(op), n, elems), func(t *testing.T) {
					xs := operands(op, 9, n, elems)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						got[c.Rank()] = filled(len(xs[0]))
						return m.Allreduce(c, xs[c.Rank()], got[c.Rank()], op)
					})
					want := colltest.Fold(op, xs)
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], want)
					}
				})
			}
		}
	}
}

func TestAllgather(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, k := range byteCounts {
			t.Run(fmt.Sprintf("n%d/b%d", n, k), func(t *testing.T) {
				var want []byte
				for r := range n {
					want = append(want, fill(10, r, k)...)
				}
				got := make([][]byte, n)
				run(t, n, func(c coll.Comm) error {
					got[c.Rank()] = filled(n * k)
					return m.Allgather(c, fill(10, c.Rank(), k), got[c.Rank()])
				})
				for r := range n {
					check(t, fmt.Sprintf("rank %d", r), got[r], want)
				}
			})
		}
	}
}

func TestAllgatherv(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, unit := range byteCounts[1:] {
			t.Run(fmt.Sprintf("n%d/unit%d", n, unit), func(t *testing.T) {
				counts := uneven(n, unit, 2)
				displs, size := vlayout(counts, 8)
				want := filled(size)
				for r := range n {
					copy(want[displs[r]:], fill(11, r, counts[r]))
				}
				got := make([][]byte, n)
				run(t, n, func(c coll.Comm) error {
					me := c.Rank()
					got[me] = filled(size)
					return m.Allgatherv(c, fill(11, me, counts[me]), got[me], counts, displs)
				})
				for r := range n {
					check(t, fmt.Sprintf("rank %d", r), got[r], want)
				}
			})
		}
	}
}

func TestAlltoall(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, k := range byteCounts {
			t.Run(fmt.Sprintf("n%d/b%d", n, k), func(t *testing.T) {
				sends := make([][]byte, n)
				for r := range n {
					sends[r] = fill(12, r, n*k)
				}
				got := make([][]byte, n)
				run(t, n, func(c coll.Comm) error {
					got[c.Rank()] = filled(n * k)
					return m.Alltoall(c, sends[c.Rank()], got[c.Rank()])
				})
				for r := range n {
					var want []byte
					for s := range n {
						want = append(want, sends[s][r*k:(r+1)*k]...)
					}
					check(t, fmt.Sprintf("rank %d", r), got[r], want)
				}
			})
		}
	}
}

func TestAlltoallv(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, unit := range byteCounts[1:] {
			t.Run(fmt.Sprintf("n%d/unit%d", n, unit), func(t *testing.T) {
				// amount[s][d] is what s sends d: zero for some pairs,
				// including some ranks to themselves.
				amount := func(s, d int) int { return ((s + 2*d) % 3) * unit }
				type layout struct {
					counts, displs []int
					size           int
				}
				sl, rl := make([]layout, n), make([]layout, n)
				for r := range n {
					sc, rc := make([]int, n), make([]int, n)
					for p := range n {
						sc[p], rc[p] = amount(r, p), amount(p, r)
					}
					sd, ss := vlayout(sc, 8)
					rd, rs := vlayout(rc, 16)
					sl[r], rl[r] = layout{sc, sd, ss}, layout{rc, rd, rs}
				}
				sends := make([][]byte, n)
				for r := range n {
					sends[r] = fill(13, r, sl[r].size)
				}
				got := make([][]byte, n)
				run(t, n, func(c coll.Comm) error {
					me := c.Rank()
					got[me] = filled(rl[me].size)
					return m.Alltoallv(c, sends[me], sl[me].counts, sl[me].displs, got[me], rl[me].counts, rl[me].displs)
				})
				for r := range n {
					want := filled(rl[r].size)
					for s := range n {
						d := sl[s].displs[r]
						copy(want[rl[r].displs[s]:], sends[s][d:d+amount(s, r)])
					}
					check(t, fmt.Sprintf("rank %d", r), got[r], want)
				}
			})
		}
	}
}

func TestReduceScatter(t *testing.T) {
	m := newModule()
	for _, op := range ops {
		for n := 1; n <= maxSize; n++ {
			for _, unit := range []int{1, 3, 50} {
				t.Run(fmt.Sprintf("%s/n%d/unit%d", opName(op), n, unit), func(t *testing.T) {
					counts := uneven(n, unit*op.ElemSize(), 1)
					total := 0
					for _, k := range counts {
						total += k
					}
					xs := operands(op, 14, n, total/op.ElemSize())
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						me := c.Rank()
						got[me] = filled(counts[me])
						return m.ReduceScatter(c, xs[me], got[me], counts, op)
					})
					want := colltest.Fold(op, xs)
					off := 0
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], want[off:off+counts[r]])
						off += counts[r]
					}
				})
			}
		}
	}
}

func TestReduceScatterBlock(t *testing.T) {
	m := newModule()
	for _, op := range ops {
		for n := 1; n <= maxSize; n++ {
			for _, elems := range elemCounts {
				t.Run(fmt.Sprintf("%s/n%d/e%d", opName(op), n, elems), func(t *testing.T) {
					k := elems * op.ElemSize()
					xs := operands(op, 15, n, n*elems)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						got[c.Rank()] = filled(k)
						return m.ReduceScatterBlock(c, xs[c.Rank()], got[c.Rank()], op)
					})
					want := colltest.Fold(op, xs)
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], want[r*k:(r+1)*k])
					}
				})
			}
		}
	}
}

func TestScan(t *testing.T) {
	m := newModule()
	for _, op := range ops {
		for n := 1; n <= maxSize; n++ {
			for _, elems := range elemCounts {
				t.Run(fmt.Sprintf("%s/n%d/e%d", opName(op), n, elems), func(t *testing.T) {
					xs := operands(op, 16, n, elems)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						got[c.Rank()] = filled(len(xs[0]))
						return m.Scan(c, xs[c.Rank()], got[c.Rank()], op)
					})
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], colltest.Fold(op, xs[:r+1]))
					}
				})
			}
		}
	}
}

func TestExscan(t *testing.T) {
	m := newModule()
	for _, op := range ops {
		for n := 1; n <= maxSize; n++ {
			for _, elems := range elemCounts {
				t.Run(fmt.Sprintf("%s/n%d/e%d", opName(op), n, elems), func(t *testing.T) {
					xs := operands(op, 17, n, elems)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						got[c.Rank()] = filled(len(xs[0]))
						return m.Exscan(c, xs[c.Rank()], got[c.Rank()], op)
					})
					check(t, "rank 0 (untouched)", got[0], filled(len(xs[0])))
					for r := 1; r < n; r++ {
						check(t, fmt.Sprintf("rank %d", r), got[r], colltest.Fold(op, xs[:r]))
					}
				})
			}
		}
	}
}

// TestRankOrder checks the reductions' order without Op.Reduce: each Affine
// element of the result must be the map that applies rank 0's map first,
// then rank 1's, and so on, and for these operands that differs from the
// reverse order.
func TestRankOrder(t *testing.T) {
	m := newModule()
	var op coll.Op = colltest.Affine{}
	for _, n := range []int{2, 5, 9} {
		const elems = 4
		xs := operands(op, 18, n, elems)
		compose := func(order []int) []byte {
			out := make([]byte, 0, 16*elems)
			for e := range elems {
				a, b := int64(1), int64(0) // the identity map
				for _, r := range order {
					ar, br := affineAt(xs[r], e)
					a, b = ar*a, ar*b+br
				}
				out = binary.LittleEndian.AppendUint64(out, uint64(a))
				out = binary.LittleEndian.AppendUint64(out, uint64(b))
			}
			return out
		}
		fwd, rev := make([]int, n), make([]int, n)
		for i := range n {
			fwd[i], rev[i] = i, n-1-i
		}
		want := compose(fwd)
		if bytes.Equal(want, compose(rev)) {
			t.Fatalf("n=%d: the operands do not tell the orders apart", n)
		}
		for _, root := range roots(n) {
			var got []byte
			run(t, n, func(c coll.Comm) error {
				var recv []byte
				if c.Rank() == root {
					recv = make([]byte, len(want))
					got = recv
				}
				return m.Reduce(c, xs[c.Rank()], recv, op, root)
			})
			check(t, fmt.Sprintf("n=%d root %d", n, root), got, want)
		}
		all := make([][]byte, n)
		run(t, n, func(c coll.Comm) error {
			all[c.Rank()] = make([]byte, len(want))
			return m.Allreduce(c, xs[c.Rank()], all[c.Rank()], op)
		})
		for r := range n {
			check(t, fmt.Sprintf("n=%d allreduce rank %d", n, r), all[r], want)
		}
	}
}

// affineAt is element e of an Affine vector.
func affineAt(x []byte, e int) (a, b int64) {
	return int64(binary.LittleEndian.Uint64(x[16*e:])), int64(binary.LittleEndian.Uint64(x[16*e+8:]))
}
