package han

import "github.com/gompi/gompi/frameworks/coll"

// barrier: every rank of a node reports to its leader, the leaders run a
// barrier among themselves (each tells every other at once where the
// nodes are few, a dissemination barrier where they are many), and each
// leader releases its node. No leader
// leaves the barrier among the nodes before every leader entered it, and
// a leader enters it only once its whole node has. A leader that fails
// goes on with its part, sending poison (tree.go).
func (m *module) barrier(c coll.Comm) error {
	t := m.topo
	tag := coll.TagBarrier
	if !t.isLeader() {
		err := c.Send(nil, t.leader(), tag)
		return m.inNode(coll.FirstError(err, c.Recv(nil, t.leader(), tag)))
	}
	local := t.local()[1:]
	reqs := make([]coll.Request, len(local))
	for i, r := range local {
		reqs[i] = c.Irecv(nil, r, tag)
	}
	err := m.inNode(c.Wait(reqs...))
	among := dissemination
	if len(t.leaders) <= exchangeMaxNodes {
		among = allToAll
	}
	if e := among(c, t.leaders, t.node, tag, err); err == nil {
		err = amongNodes(e)
	}
	out := coll.Payload(nil, err)
	for i, r := range local {
		reqs[i] = c.Isend(out, r, tag)
	}
	return coll.FirstError(err, m.inNode(c.Wait(reqs...)))
}

// dissemination is the barrier of ranks, where this rank is ranks[v]: in
// round k each sends to the one 2^k after it and hears from the one 2^k
// before, so after ceil(log2 n) rounds each has heard, through some chain,
// from all. The rounds' distances differ modulo n, so no two messages of
// one call go between the same two ranks.
func dissemination(c coll.Comm, ranks []int, v, tag int, err error) error {
	n := len(ranks)
	for d := 1; d < n; d <<= 1 {
		s := c.Isend(coll.Payload(nil, err), ranks[(v+d)%n], tag)
		err = coll.FirstError(err, c.Recv(nil, ranks[(v-d+n)%n], tag))
		err = coll.FirstError(err, s.Wait())
	}
	return err
}

// allToAll is the barrier of ranks in one round: each sends to every
// other and hears from every other, n(n-1) messages for one message's
// latency, where dissemination takes ceil(log2 n) in a row.
func allToAll(c coll.Comm, ranks []int, v, tag int, err error) error {
	reqs := make([]coll.Request, 0, 2*(len(ranks)-1))
	for i, r := range ranks {
		if i != v {
			reqs = append(reqs, c.Irecv(nil, r, tag))
		}
	}
	out := coll.Payload(nil, err)
	for i, r := range ranks {
		if i != v {
			reqs = append(reqs, c.Isend(out, r, tag))
		}
	}
	return coll.FirstError(err, c.Wait(reqs...))
}
