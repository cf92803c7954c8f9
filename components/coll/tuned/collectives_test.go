package tuned

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// byteCounts are the message sizes every algorithm runs with: empty, one
// and three 8-byte elements, a few KiB that no segment or rank count
// divides.
var byteCounts = []int{0, 8, 24, 3000}

// large is the one large message, run on a few sizes only.
const large = 128 << 10

var largeSizes = []int{3, 8}

// cases yields (n, bytes) for every size and count, plus the large ones.
func cases() [][2]int {
	var cs [][2]int
	for _, n := range sizes {
		for _, b := range byteCounts {
			cs = append(cs, [2]int{n, b})
		}
	}
	for _, n := range largeSizes {
		cs = append(cs, [2]int{n, large})
	}
	return cs
}

func TestBarrier(t *testing.T) {
	for _, alg := range algNums(barrierAlgs) {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s/n%d", barrierAlgs.algName(alg), n), func(t *testing.T) {
				cfg := testConfig()
				cfg.barrier = alg
				// Twice: the second barrier must not take the first's messages.
				run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
					if err := m.Barrier(c); err != nil {
						return err
					}
					return m.Barrier(c)
				})
			})
		}
	}
}

// TestBarrierSynchronizes checks that no rank leaves a barrier before
// every rank entered it. A correct barrier passes whatever the schedule.
func TestBarrierSynchronizes(t *testing.T) {
	for _, alg := range barrierAlgs.algorithms {
		for _, n := range []int{2, 5, 8} {
			t.Run(fmt.Sprintf("%s/n%d", alg.name, n), func(t *testing.T) {
				cfg := testConfig()
				cfg.barrier = alg.num
				var entered atomic.Int32
				run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
					entered.Add(1)
					if err := m.Barrier(c); err != nil {
						return err
					}
					// run runs f twice, one run after the other.
					if got := entered.Load(); got%int32(n) != 0 {
						return fmt.Errorf("left the barrier when %d of %d ranks had entered", got%int32(n), n)
					}
					return nil
				})
			})
		}
	}
}

func TestBcast(t *testing.T) {
	for _, alg := range algNums(bcastAlgs) {
		for _, nb := range cases() {
			n, nbytes := nb[0], nb[1]
			for _, root := range colltest.Roots(n) {
				name := fmt.Sprintf("%s/n%d/b%d/root%d", bcastAlgs.algName(alg), n, nbytes, root)
				t.Run(name, func(t *testing.T) {
					cfg := testConfig()
					cfg.bcast = alg
					want := colltest.Data(1, root, nbytes)
					run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
						buf := make([]byte, nbytes)
						if c.Rank() == root {
							copy(buf, want)
						}
						if err := m.Bcast(c, buf, root); err != nil {
							return err
						}
						return colltest.ExpectEqual(buf, want, "bcast", c.Rank())
					})
				})
			}
		}
	}
}

func TestReduce(t *testing.T) {
	for _, alg := range algNums(reduceAlgs) {
		for _, top := range testOps {
			for _, nb := range cases() {
				n, elems := nb[0], nb[1]/8
				if top.Op.ElemSize() == 16 && nb[1] == large {
					continue // one large run per algorithm is enough
				}
				for _, root := range colltest.Roots(n) {
					name := fmt.Sprintf("%s/%s/n%d/e%d/root%d", reduceAlgs.algName(alg), top.Name, n, elems, root)
					t.Run(name, func(t *testing.T) {
						cfg := testConfig()
						cfg.reduce = alg
						inputs := colltest.Inputs(n, func(r int) []byte { return top.Input(2, r, elems) })
						want := colltest.Fold(top.Op, inputs)
						run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
							r := c.Rank()
							send := bytes.Clone(inputs[r])
							var recv []byte // nil off the root
							if r == root {
								recv = make([]byte, len(send))
							}
							if err := m.Reduce(c, send, recv, top.Op, root); err != nil {
								return err
							}
							if err := colltest.ExpectEqual(send, inputs[r], "send buffer", r); err != nil {
								return err
							}
							if r == root {
								return colltest.ExpectEqual(recv, want, "reduce", r)
							}
							return nil
						})
					})
				}
			}
		}
	}
}

func TestAllreduce(t *testing.T) {
	segsizes := map[string]int{"seg40": 40, "seg0": 0}
	for _, alg := range algNums(allreduceAlgs) {
		for _, top := range testOps {
			for _, nb := range cases() {
				n, elems := nb[0], nb[1]/8
				if top.Op.ElemSize() == 16 && nb[1] == large {
					continue
				}
				for segName, seg := range segsizes {
					if seg == 0 && (alg != allreduceRing || nb[1] != 3000) {
						continue // segmentation only matters to the ring
					}
					if nb[1] == large && seg != 0 {
						seg, segName = 4096, "seg4096" // not hundreds of tiny segments
					}
					name := fmt.Sprintf("%s/%s/n%d/e%d/%s", allreduceAlgs.algName(alg), top.Name, n, elems, segName)
					t.Run(name, func(t *testing.T) {
						cfg := testConfig()
						cfg.allreduce, cfg.allreduceSegsize = alg, seg
						inputs := colltest.Inputs(n, func(r int) []byte { return top.Input(3, r, elems) })
						want := colltest.Fold(top.Op, inputs)
						run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
							r := c.Rank()
							send := bytes.Clone(inputs[r])
							recv := make([]byte, len(send))
							if err := m.Allreduce(c, send, recv, top.Op); err != nil {
								return err
							}
							if err := colltest.ExpectEqual(send, inputs[r], "send buffer", r); err != nil {
								return err
							}
							return colltest.ExpectEqual(recv, want, "allreduce", r)
						})
					})
				}
			}
		}
	}
}

// gathered is the blocks of every rank in rank order.
func gathered(blocks [][]byte) []byte { return bytes.Join(blocks, nil) }

func TestAllgather(t *testing.T) {
	for _, alg := range algNums(allgatherAlgs) {
		for _, nb := range cases() {
			n, bs := nb[0], nb[1]
			if bs == large {
				bs = large / n
			}
			t.Run(fmt.Sprintf("%s/n%d/b%d", allgatherAlgs.algName(alg), n, bs), func(t *testing.T) {
				cfg := testConfig()
				cfg.allgather = alg
				inputs := colltest.Inputs(n, func(r int) []byte { return colltest.Data(4, r, bs) })
				want := gathered(inputs)
				run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
					r := c.Rank()
					recv := make([]byte, n*bs)
					if err := m.Allgather(c, inputs[r], recv); err != nil {
						return err
					}
					return colltest.ExpectEqual(recv, want, "allgather", r)
				})
			})
		}
	}
}

func TestAlltoall(t *testing.T) {
	for _, alg := range algNums(alltoallAlgs) {
		for _, nb := range cases() {
			n, bs := nb[0], nb[1]
			if bs == large {
				bs = large / n / n
			}
			t.Run(fmt.Sprintf("%s/n%d/b%d", alltoallAlgs.algName(alg), n, bs), func(t *testing.T) {
				cfg := testConfig()
				cfg.alltoall = alg
				inputs := colltest.Inputs(n, func(r int) []byte { return colltest.Data(5, r, n*bs) })
				run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
					r := c.Rank()
					recv := make([]byte, n*bs)
					if err := m.Alltoall(c, inputs[r], recv); err != nil {
						return err
					}
					want := make([]byte, 0, n*bs)
					for src := 0; src < n; src++ {
						want = append(want, inputs[src][r*bs:(r+1)*bs]...)
					}
					return colltest.ExpectEqual(recv, want, "alltoall", r)
				})
			})
		}
	}
}

func TestGather(t *testing.T) {
	for _, alg := range algNums(gatherAlgs) {
		for _, nb := range cases() {
			n, bs := nb[0], nb[1]
			if bs == large {
				bs = large / n
			}
			for _, root := range colltest.Roots(n) {
				t.Run(fmt.Sprintf("%s/n%d/b%d/root%d", gatherAlgs.algName(alg), n, bs, root), func(t *testing.T) {
					cfg := testConfig()
					cfg.gather = alg
					inputs := colltest.Inputs(n, func(r int) []byte { return colltest.Data(6, r, bs) })
					want := gathered(inputs)
					run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
						r := c.Rank()
						var recv []byte
						if r == root {
							recv = make([]byte, n*bs)
						}
						if err := m.Gather(c, inputs[r], recv, root); err != nil {
							return err
						}
						if r == root {
							return colltest.ExpectEqual(recv, want, "gather", r)
						}
						return nil
					})
				})
			}
		}
	}
}

func TestScatter(t *testing.T) {
	for _, alg := range algNums(scatterAlgs) {
		for _, nb := range cases() {
			n, bs := nb[0], nb[1]
			if bs == large {
				bs = large / n
			}
			for _, root := range colltest.Roots(n) {
				t.Run(fmt.Sprintf("%s/n%d/b%d/root%d", scatterAlgs.algName(alg), n, bs, root), func(t *testing.T) {
					cfg := testConfig()
					cfg.scatter = alg
					all := colltest.Data(7, root, n*bs)
					run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
						r := c.Rank()
						var send []byte
						if r == root {
							send = bytes.Clone(all)
						}
						recv := make([]byte, bs)
						if err := m.Scatter(c, send, recv, root); err != nil {
							return err
						}
						if r == root {
							if err := colltest.ExpectEqual(send, all, "send buffer", r); err != nil {
								return err
							}
						}
						return colltest.ExpectEqual(recv, all[r*bs:(r+1)*bs], "scatter", r)
					})
				})
			}
		}
	}
}
