package han

import "github.com/gompi/gompi/frameworks/coll"

// bcast: a binomial tree among the root and the other nodes' leaders,
// then one in each node from the rank that got the message: every node
// but the root's receives it once.
func (m *module) bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return m.bcastFrom(c, buf, root, coll.TagBcast, nil)
}

// bcastFrom is bcast on tag, for a rank that met err earlier in the call
// (nil if none): it takes its part all the same, passing poison on.
func (m *module) bcastFrom(c coll.Comm, buf []byte, root, tag int, err error) error {
	if e := bcastTree(c, m.topo.reps(root), buf, tag, err); err == nil {
		err = amongNodes(e)
	}
	if e := bcastTree(c, m.topo.localFrom(root), buf, tag, err); err == nil {
		err = m.inNode(e)
	}
	return err
}
