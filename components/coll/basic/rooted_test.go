package basic

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

func TestBcast(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, k := range byteCounts {
			for _, root := range roots(n) {
				t.Run(fmt.Sprintf("n%d/b%d/root%d", n, k, root), func(t *testing.T) {
					want := fill(1, root, k)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						buf := make([]byte, k)
						if c.Rank() == root {
							copy(buf, want)
						}
						got[c.Rank()] = buf
						return m.Bcast(c, buf, root)
					})
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], want)
					}
				})
			}
		}
	}
}

func TestReduce(t *testing.T) {
	m := newModule()
	for _, op := range ops {
		for n := 1; n <= maxSize; n++ {
			for _, elems := range elemCounts {
				for _, root := range roots(n) {
					t.Run(fmt.Sprintf("%s/n%d/e%d/root%d", opName(op), n, elems, root), func(t *testing.T) {
						xs := operands(op, 2, n, elems)
						var got []byte
						run(t, n, func(c coll.Comm) error {
							var recv []byte // nil away from the root
							if c.Rank() == root {
								recv = filled(len(xs[0]))
								got = recv
							}
							return m.Reduce(c, xs[c.Rank()], recv, op, root)
						})
						check(t, "root's recv", got, colltest.Fold(op, xs))
					})
				}
			}
		}
	}
}

func TestGather(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, k := range byteCounts {
			for _, root := range roots(n) {
				t.Run(fmt.Sprintf("n%d/b%d/root%d", n, k, root), func(t *testing.T) {
					var got, want []byte
					for r := range n {
						want = append(want, fill(3, r, k)...)
					}
					run(t, n, func(c coll.Comm) error {
						var recv []byte
						if c.Rank() == root {
							recv = filled(n * k)
							got = recv
						}
						return m.Gather(c, fill(3, c.Rank(), k), recv, root)
					})
					check(t, "root's recv", got, want)
				})
			}
		}
	}
}

func TestGatherv(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, unit := range byteCounts[1:] {
			for _, root := range roots(n) {
				t.Run(fmt.Sprintf("n%d/unit%d/root%d", n, unit, root), func(t *testing.T) {
					counts := uneven(n, unit, root)
					displs, size := vlayout(counts, 8)
					want := filled(size)
					for r := range n {
						copy(want[displs[r]:], fill(4, r, counts[r]))
					}
					var got []byte
					run(t, n, func(c coll.Comm) error {
						me := c.Rank()
						if me != root {
							return m.Gatherv(c, fill(4, me, counts[me]), nil, nil, nil, root)
						}
						got = filled(size)
						return m.Gatherv(c, fill(4, me, counts[me]), got, counts, displs, root)
					})
					check(t, "root's recv", got, want)
				})
			}
		}
	}
}

func TestScatter(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, k := range byteCounts {
			for _, root := range roots(n) {
				t.Run(fmt.Sprintf("n%d/b%d/root%d", n, k, root), func(t *testing.T) {
					send := fill(5, root, n*k)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						recv := filled(k)
						got[c.Rank()] = recv
						if c.Rank() != root {
							return m.Scatter(c, nil, recv, root)
						}
						return m.Scatter(c, send, recv, root)
					})
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], send[r*k:(r+1)*k])
					}
				})
			}
		}
	}
}

func TestScatterv(t *testing.T) {
	m := newModule()
	for n := 1; n <= maxSize; n++ {
		for _, unit := range byteCounts[1:] {
			for _, root := range roots(n) {
				t.Run(fmt.Sprintf("n%d/unit%d/root%d", n, unit, root), func(t *testing.T) {
					counts := uneven(n, unit, root+1)
					displs, size := vlayout(counts, 16)
					send := fill(6, root, size)
					got := make([][]byte, n)
					run(t, n, func(c coll.Comm) error {
						me := c.Rank()
						recv := filled(counts[me])
						got[me] = recv
						if me != root {
							return m.Scatterv(c, nil, nil, nil, recv, root)
						}
						return m.Scatterv(c, send, counts, displs, recv, root)
					})
					for r := range n {
						check(t, fmt.Sprintf("rank %d", r), got[r], send[displs[r]:displs[r]+counts[r]])
					}
				})
			}
		}
	}
}

// TestLarge runs a rooted and an all-ranks collective on 256 KiB.
func TestLarge(t *testing.T) {
	const k = 256 << 10
	m := newModule()
	for _, n := range []int{3, 8} {
		t.Run(fmt.Sprintf("bcast/n%d", n), func(t *testing.T) {
			root := n - 1
			want := fill(7, root, k)
			got := make([][]byte, n)
			run(t, n, func(c coll.Comm) error {
				buf := make([]byte, k)
				if c.Rank() == root {
					copy(buf, want)
				}
				got[c.Rank()] = buf
				return m.Bcast(c, buf, root)
			})
			for r := range n {
				check(t, fmt.Sprintf("rank %d", r), got[r], want)
			}
		})
		for _, op := range ops {
			t.Run(fmt.Sprintf("allreduce/%s/n%d", opName(op), n), func(t *testing.T) {
				xs := operands(op, 8, n, k/op.ElemSize())
				got := make([][]byte, n)
				run(t, n, func(c coll.Comm) error {
					got[c.Rank()] = make([]byte, k)
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
