package tuned

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// mismatchCall is one collective of TestMismatchedCounts: f makes the
// call with elems 8-byte elements (per block) at this rank, and mustFail
// says which ranks must return an error when rank odd's count differs.
type mismatchCall struct {
	name     string
	k        collective
	force    func(cfg *config, alg int)
	f        func(m *coll.Module, c coll.Comm, elems int) error
	mustFail func(r, odd int) bool
}

func mismatchCalls(n, root int) []mismatchCall {
	sum := colltest.SumInt64{}
	every := func(int, int) bool { return true }
	isRoot := func(r, _ int) bool { return r == root }
	// A rooted call that moves data from the root fails where the data
	// of the wrong length arrives: at the odd rank, or at every other
	// rank if it is the root.
	fromRoot := func(r, odd int) bool { return r != root && (r == odd || odd == root) }
	return []mismatchCall{
		{"allreduce", allreduceAlgs, func(cfg *config, a int) { cfg.allreduce = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Allreduce(c, make([]byte, 8*e), make([]byte, 8*e), sum)
			}, every},
		{"allgather", allgatherAlgs, func(cfg *config, a int) { cfg.allgather = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Allgather(c, make([]byte, 8*e), make([]byte, 8*e*n))
			}, every},
		{"alltoall", alltoallAlgs, func(cfg *config, a int) { cfg.alltoall = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Alltoall(c, make([]byte, 8*e*n), make([]byte, 8*e*n))
			}, every},
		{fmt.Sprintf("bcast/root%d", root), bcastAlgs, func(cfg *config, a int) { cfg.bcast = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Bcast(c, make([]byte, 8*e), root)
			}, fromRoot},
		{fmt.Sprintf("scatter/root%d", root), scatterAlgs, func(cfg *config, a int) { cfg.scatter = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Scatter(c, make([]byte, 8*e*n), make([]byte, 8*e), root)
			}, fromRoot},
		{fmt.Sprintf("reduce/root%d", root), reduceAlgs, func(cfg *config, a int) { cfg.reduce = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Reduce(c, make([]byte, 8*e), make([]byte, 8*e), sum, root)
			}, isRoot},
		{fmt.Sprintf("gather/root%d", root), gatherAlgs, func(cfg *config, a int) { cfg.gather = a },
			func(m *coll.Module, c coll.Comm, e int) error {
				return m.Gather(c, make([]byte, 8*e), make([]byte, 8*e*n), root)
			}, isRoot},
	}
}

// TestMismatchedCounts: rank odd passes one element more or less than
// the others' 3, with every algorithm. No rank may wait for ever: a rank
// that meets the error goes on with its part, sending failure marks in
// place of data. Every rank whose result depends on the odd rank's data
// fails, each error is of a wrong length's class or a peer's failure, and
// every message sent is received (World.Run checks; with rendezvous sends
// an unreceived one would hang the run).
func TestMismatchedCounts(t *testing.T) {
	const elems = 3
	for _, n := range []int{2, 3, 4, 5, 7, 8} {
		for _, odd := range slices.Compact([]int{1, n - 1}) {
			for _, delta := range []int{1, -1} {
				for _, root := range []int{0, odd} {
					for _, mc := range mismatchCalls(n, root) {
						if root == odd && (mc.name == "allreduce" || mc.name == "allgather" || mc.name == "alltoall") {
							continue // no root: run once
						}
						for _, alg := range algNums(mc.k) {
							name := fmt.Sprintf("%s/%s/n%d/odd%d%+d", mc.name, mc.k.algName(alg), n, odd, delta)
							t.Run(name, func(t *testing.T) {
								cfg := testConfig()
								mc.force(&cfg, alg)
								errs := make([]error, n)
								run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
									e := elems
									if c.Rank() == odd {
										e += delta
									}
									errs[c.Rank()] = mc.f(m, c, e)
									return nil
								})
								checkMismatch(t, errs, func(r int) bool { return mc.mustFail(r, odd) })
							})
						}
					}
				}
			}
		}
	}
}

// checkMismatch checks the ranks' errors of a call whose counts disagree.
func checkMismatch(t *testing.T, errs []error, mustFail func(r int) bool) {
	t.Helper()
	for r, err := range errs {
		if err == nil {
			if mustFail(r) {
				t.Errorf("rank %d returned no error", r)
			}
			continue
		}
		if !errors.Is(err, coll.ErrTooLong) && !errors.Is(err, coll.ErrTooShort) && !errors.Is(err, coll.ErrPeerFailed) {
			t.Errorf("rank %d: %v, want counts that disagree or a peer's failure", r, err)
		}
	}
}

// errInjected is the error failRecv gives.
var errInjected = errors.New("injected receive failure")

// failRecv is a rank's communicator whose first receive fails after it
// took its message, as a receive does whose message has the wrong length.
type failRecv struct {
	coll.Comm
	failed bool
}

func (c *failRecv) fail(err error) error {
	if err == nil && !c.failed {
		c.failed = true
		return errInjected
	}
	return err
}

func (c *failRecv) Recv(buf []byte, src, tag int) error {
	return c.fail(c.Comm.Recv(buf, src, tag))
}

func (c *failRecv) Irecv(buf []byte, src, tag int) coll.Request {
	return &failReq{Request: c.Comm.Irecv(buf, src, tag), c: c}
}

type failReq struct {
	coll.Request
	c *failRecv
}

func (q *failReq) Wait() error { return q.c.fail(q.Request.Wait()) }

func (c *failRecv) Wait(reqs ...coll.Request) error { return waitAll(reqs) }

// TestBarrierFailure: a rank whose receive fails in a barrier goes on
// with its part, and a rank that waits on it after the failure fails too
// instead of leaving the barrier: a barrier has no counts to disagree,
// but a peer may fail in it. No rank may wait for ever, and every message
// sent is received.
func TestBarrierFailure(t *testing.T) {
	for _, alg := range barrierAlgs.algorithms {
		for _, n := range []int{2, 3, 4, 5, 8} {
			for _, bad := range []int{0, 1, n - 1} {
				t.Run(fmt.Sprintf("%s/n%d/bad%d", alg.name, n, bad), func(t *testing.T) {
					cfg := testConfig()
					cfg.barrier = alg.num
					errs := make([]error, n)
					run(t, n, cfg, func(m *coll.Module, c coll.Comm) error {
						if c.Rank() == bad {
							c = &failRecv{Comm: c}
						}
						errs[c.Rank()] = m.Barrier(c)
						return nil
					})
					for r, err := range errs {
						switch {
						case r == bad && !errors.Is(err, errInjected):
							t.Errorf("rank %d: %v, want the injected failure", r, err)
						case r != bad && err != nil && !errors.Is(err, coll.ErrPeerFailed):
							t.Errorf("rank %d: %v, want a peer's failure", r, err)
						}
					}
				})
			}
		}
	}
}
