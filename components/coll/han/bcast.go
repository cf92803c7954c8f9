package han

import "github.com/gompi/gompi/frameworks/coll"

// bcast: a binomial tree among the root and the other nodes' leaders,
// then one in each node from the rank that got the message: every node
// but the root's receives it once.
func (m *module) bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return m.bcastFrom(c, buf, root, coll.TagBcast)
}

func (m *module) bcastFrom(c coll.Comm, buf []byte, root, tag int) error {
	if err := amongNodes(bcastTree(c, m.topo.reps(root), buf, tag)); err != nil {
		return err
	}
	return m.inNode(bcastTree(c, m.topo.localFrom(root), buf, tag))
}
