package han

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// errDead is what the point-to-point layer reports of a peer that died.
var errDead = errors.New("peer failed")

// deadPeer is a rank's communicator in a world where rank dead died
// before the call: every message to or from it fails at once, as the p2p
// layer reports a failed peer.
type deadPeer struct {
	coll.Comm
	dead int
}

type failed struct{ err error }

func (f failed) Done() bool  { return true }
func (f failed) Wait() error { return f.err }

func (c *deadPeer) Send(buf []byte, dest, tag int) error {
	if dest == c.dead {
		return errDead
	}
	return c.Comm.Send(buf, dest, tag)
}

func (c *deadPeer) Isend(buf []byte, dest, tag int) coll.Request {
	if dest == c.dead {
		return failed{errDead}
	}
	return c.Comm.Isend(buf, dest, tag)
}

func (c *deadPeer) Recv(buf []byte, src, tag int) error {
	if src == c.dead {
		return errDead
	}
	return c.Comm.Recv(buf, src, tag)
}

func (c *deadPeer) Irecv(buf []byte, src, tag int) coll.Request {
	if src == c.dead {
		return failed{errDead}
	}
	return c.Comm.Irecv(buf, src, tag)
}

// TestDeadRank: a rank dead before a call leaves no other rank waiting
// for ever: those that wait on it hear of it from the p2p layer, and pass
// the failure on (poison) to those that wait on them. Every rank whose
// result needs the dead one's part returns an error, and every message
// sent is received (colltest checks), so the survivors' next calls are
// not confused by what is left over.
func TestDeadRank(t *testing.T) {
	for _, lay := range []layout{blocks(6, 2), roundRobin(7, 3), uneven(7), loneLast(5)} {
		n := len(lay.nodes)
		for dead := range n {
			t.Run(fmt.Sprintf("%s/dead%d", lay.name, dead), func(t *testing.T) {
				w := newWorld(t, lay, autoConfig(), false)
				for _, tc := range deadCalls(n, dead) {
					errs := make([]error, n)
					w.cw.Run(t, func(c coll.Comm) error {
						r := c.Rank()
						if r != dead {
							errs[r] = tc.call(w.tables[r], &deadPeer{Comm: w.comms[r], dead: dead})
						}
						return nil
					})
					for r, err := range errs {
						if r != dead && tc.mustFail(r) && err == nil {
							t.Errorf("%s: rank %d returned no error", tc.name, r)
						}
						// Each failure says a peer failed, never that counts disagree.
						if err != nil && !errors.Is(err, errDead) && !errors.Is(err, coll.ErrPeerFailed) {
							t.Errorf("%s: rank %d: %v, want the dead peer or a peer's failure mark", tc.name, r, err)
						}
					}
				}
			})
		}
	}
}

// deadCall is a call made with a dead rank, and which ranks must fail.
type deadCall struct {
	name     string
	call     func(tab *coll.Table, c coll.Comm) error
	mustFail func(rank int) bool
}

func deadCalls(n, dead int) []deadCall {
	all := func(int) bool { return true }
	var calls []deadCall
	calls = append(calls,
		deadCall{"barrier", func(tab *coll.Table, c coll.Comm) error { return tab.Barrier(c) }, all},
		deadCall{"allreduce", func(tab *coll.Table, c coll.Comm) error {
			return tab.Allreduce(c, make([]byte, 80), make([]byte, 80), colltest.SumInt64{})
		}, all},
		deadCall{"large allreduce", func(tab *coll.Table, c coll.Comm) error {
			big := exchangeMaxBytes + 8
			return tab.Allreduce(c, make([]byte, big), make([]byte, big), colltest.SumInt64{})
		}, all},
		deadCall{"allgather", func(tab *coll.Table, c coll.Comm) error {
			return tab.Allgather(c, make([]byte, 10), make([]byte, 10*n))
		}, all},
	)
	for _, root := range []int{0, n - 1} {
		isRoot := func(r int) bool { return r == root }
		rootDead := func(int) bool { return root == dead }
		calls = append(calls,
			deadCall{fmt.Sprintf("bcast from %d", root), func(tab *coll.Table, c coll.Comm) error {
				return tab.Bcast(c, make([]byte, 100), root)
			}, rootDead},
			deadCall{fmt.Sprintf("reduce to %d", root), func(tab *coll.Table, c coll.Comm) error {
				return tab.Reduce(c, make([]byte, 80), make([]byte, 80), colltest.SumInt64{}, root)
			}, isRoot},
			deadCall{fmt.Sprintf("gather to %d", root), func(tab *coll.Table, c coll.Comm) error {
				return tab.Gather(c, make([]byte, 10), make([]byte, 10*n), root)
			}, isRoot},
			deadCall{fmt.Sprintf("scatter from %d", root), func(tab *coll.Table, c coll.Comm) error {
				return tab.Scatter(c, make([]byte, 10*n), make([]byte, 10), root)
			}, rootDead},
		)
	}
	return calls
}
