package han

import (
	"github.com/gompi/gompi/frameworks/coll"
)

// reduce: a binomial reduce in each node, then one among the nodes. A
// commutative operation reduces straight to the root, which stands for
// its node; a non-commutative one keeps rank order: ascending trees in
// each node to its leader, then among the leaders in node order to the
// first, which sends the result to the root. That order is the rank
// order only where every node's ranks are consecutive; elsewhere the call
// goes to the next component.
func (m *module) reduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := coll.CheckLen("recv", len(recv), len(send), "the root receives one send buffer's worth"); err != nil {
			return err
		}
	}
	if !m.ordered(op) {
		if m.next == nil || m.next.Reduce == nil {
			return errNoNext("a non-commutative operation on nodes whose ranks are not consecutive keeps rank order only flat")
		}
		m.traceNext(c, "reduce")
		return passed(m.next.Reduce(c, send, recv, op, root))
	}
	return m.reduceTo(c, send, recv, op, root, coll.TagReduce)
}

// ordered reports whether the two levels combine op's operands in an
// order it allows.
func (m *module) ordered(op coll.Op) bool { return op.Commutative() || m.topo.contiguous }

// reduceTo leaves the reduction of send in recv at root, which the caller
// checked; recv is used nowhere else. A rank that fails goes on with its
// part, sending poison (tree.go).
func (m *module) reduceTo(c coll.Comm, send, recv []byte, op coll.Op, root, tag int) error {
	t := m.topo
	local, reps, holder := t.localFrom(root), t.reps(root), root
	if !op.Commutative() {
		local, reps, holder = t.local(), t.leaders, t.leaders[0]
	}
	res, err := reduceTree(c, local, send, op, tag, nil)
	err = m.inNode(err)
	if c.Rank() == local[0] { // this rank heads its node: its node's share is here
		var e error
		if res, e = reduceTree(c, reps, res, op, tag, err); err == nil {
			err = amongNodes(e)
		}
	}
	switch me := c.Rank(); {
	case me == root && me == holder:
		if err == nil {
			copy(recv, res)
		}
	case me == root:
		err = coll.FirstError(err, amongNodes(c.Recv(recv, holder, tag)))
	case me == holder:
		err = coll.FirstError(err, amongNodes(c.Send(coll.Payload(res, err), root, tag)))
	}
	return err
}

// Small allreduces among few nodes: the leaders send their nodes' partial
// results to each other at once and each folds them, in node order, so
// that the step among the nodes costs one message's latency instead of a
// reduce's and a bcast's tree (2 ceil(log2 nodes) in a row). It sends
// nodes(nodes-1) messages between nodes instead of 2(nodes-1): worth it
// while they are small and few.
const (
	exchangeMaxBytes = 8 << 10
	exchangeMaxNodes = 8
)

// allreduce: a reduce in each node to its leader, the step among the
// leaders (an exchange of the partial results when they are small and the
// nodes few, else han's reduce to the first leader and han's bcast from
// it), then a bcast in each node. All on allreduce's tag.
func (m *module) allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if err := coll.CheckLen("recv", len(recv), len(send), "every rank receives one send buffer's worth"); err != nil {
		return err
	}
	if !m.ordered(op) {
		if m.next == nil || m.next.Allreduce == nil {
			return errNoNext("a non-commutative operation on nodes whose ranks are not consecutive keeps rank order only flat")
		}
		m.traceNext(c, "allreduce")
		return passed(m.next.Allreduce(c, send, recv, op))
	}
	if len(send) <= exchangeMaxBytes && len(m.topo.leaders) <= exchangeMaxNodes {
		return m.allreduceExchange(c, send, recv, op)
	}
	leader := m.topo.leaders[0]
	err := m.reduceTo(c, send, recv, op, leader, coll.TagAllreduce)
	return m.bcastFrom(c, recv, leader, coll.TagAllreduce, err)
}

// allreduceExchange is allreduce with the leaders exchanging their
// nodes' partial results. The trees in the nodes run over ascending
// ranks, and every leader folds the partials in node order, so a
// non-commutative operation on consecutive nodes gets the rank-order
// fold, and every leader the same result.
func (m *module) allreduceExchange(c coll.Comm, send, recv []byte, op coll.Op) error {
	t, tag := m.topo, coll.TagAllreduce
	local := t.local()
	part, err := reduceTree(c, local, send, op, tag, nil)
	err = m.inNode(err)
	if c.Rank() == local[0] {
		parts := make([][]byte, len(t.leaders))
		reqs := make([]coll.Request, 0, 2*(len(t.leaders)-1))
		for k, l := range t.leaders {
			if k != t.node {
				parts[k] = make([]byte, len(send))
				reqs = append(reqs, c.Irecv(parts[k], l, tag))
			}
		}
		out := coll.Payload(part, err)
		for k, l := range t.leaders {
			if k != t.node {
				reqs = append(reqs, c.Isend(out, l, tag))
			}
		}
		if e := c.Wait(reqs...); err == nil {
			err = amongNodes(e)
		}
		if err == nil {
			// part may be send, which is read only: the fold writes
			// into the others and into recv.
			parts[t.node] = append([]byte(nil), part...)
			copy(recv, parts[0])
			for _, p := range parts[1:] {
				op.Reduce(recv, p)
				copy(recv, p)
			}
		}
	}
	return coll.FirstError(err, m.inNode(bcastTree(c, local, recv, tag, err)))
}
