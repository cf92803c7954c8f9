package han

import (
	"errors"

	"github.com/gompi/gompi/frameworks/coll"
)

// The blocks of one node travel between nodes packed in one message, in
// the order of the node's ranks in the topology (ascending): a node's
// ranks need not be consecutive, so its blocks are not one range of the
// result.

// pack copies the blocks of ranks from all (block r at r*bs) into buf.
func pack(buf, all []byte, ranks []int, bs int) {
	for i, r := range ranks {
		copy(buf[i*bs:(i+1)*bs], all[r*bs:(r+1)*bs])
	}
}

// unpack is pack's inverse.
func unpack(all, buf []byte, ranks []int, bs int) {
	for i, r := range ranks {
		copy(all[r*bs:(r+1)*bs], buf[i*bs:(i+1)*bs])
	}
}

// gather: each node's head (the root on its node, the leader elsewhere)
// gathers its node's blocks; the leaders send theirs to the root in one
// message each, poison if a block failed to arrive.
func (m *module) gather(c coll.Comm, send, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	t, me, bs, n := m.topo, c.Rank(), len(send), c.Size()
	if me == root {
		if err := coll.CheckLen("recv", len(recv), n*bs, "the root receives one block per rank"); err != nil {
			return err
		}
	}
	local := t.localFrom(root)
	head := local[0]
	if me != head {
		return m.inNode(c.Send(send, head, coll.TagGather))
	}
	if me != root {
		// A leader of another node: its node's blocks, packed, to the root.
		buf := make([]byte, len(local)*bs)
		copy(buf, send)
		reqs := make([]coll.Request, 0, len(local)-1)
		for i, r := range local[1:] {
			reqs = append(reqs, c.Irecv(buf[(i+1)*bs:(i+2)*bs], r, coll.TagGather))
		}
		err := m.inNode(c.Wait(reqs...))
		return coll.FirstError(err, amongNodes(c.Send(coll.Payload(buf, err), root, coll.TagGather)))
	}
	// The root: its node's blocks straight into recv, the other nodes'
	// packed; every receive posted at once.
	near := make([]coll.Request, 0, len(local)-1)
	for _, r := range local[1:] {
		near = append(near, c.Irecv(recv[r*bs:(r+1)*bs], r, coll.TagGather))
	}
	bufs := make([][]byte, len(t.leaders))
	far := make([]coll.Request, 0, len(t.leaders)-1)
	for k, l := range t.leaders {
		if k != t.node {
			bufs[k] = make([]byte, len(t.ranks[k])*bs)
			far = append(far, c.Irecv(bufs[k], l, coll.TagGather))
		}
	}
	copy(recv[me*bs:(me+1)*bs], send)
	if err := errors.Join(m.inNode(c.Wait(near...)), amongNodes(c.Wait(far...))); err != nil {
		return err
	}
	for k, buf := range bufs {
		if k != t.node {
			unpack(recv, buf, t.ranks[k], bs)
		}
	}
	return nil
}

// scatter: the root sends its own node's blocks straight to their ranks
// and each other node's, packed, to its leader, which hands them out, or
// poison if they failed to arrive.
func (m *module) scatter(c coll.Comm, send, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	t, me, bs, n := m.topo, c.Rank(), len(recv), c.Size()
	local := t.localFrom(root)
	head := local[0]
	if me != head {
		return m.inNode(c.Recv(recv, head, coll.TagScatter))
	}
	if me != root {
		buf := make([]byte, len(local)*bs)
		err := amongNodes(c.Recv(buf, root, coll.TagScatter))
		copy(recv, buf[:bs])
		reqs := make([]coll.Request, 0, len(local)-1)
		for i, r := range local[1:] {
			reqs = append(reqs, c.Isend(coll.Payload(buf[(i+1)*bs:(i+2)*bs], err), r, coll.TagScatter))
		}
		return coll.FirstError(err, m.inNode(c.Wait(reqs...)))
	}
	if err := coll.CheckLen("send", len(send), n*bs, "the root sends one block per rank"); err != nil {
		return err
	}
	// Other nodes first: theirs is the longer way.
	far := make([]coll.Request, 0, len(t.leaders)-1)
	for k, l := range t.leaders {
		if k != t.node {
			buf := make([]byte, len(t.ranks[k])*bs)
			pack(buf, send, t.ranks[k], bs)
			far = append(far, c.Isend(buf, l, coll.TagScatter))
		}
	}
	near := make([]coll.Request, 0, len(local)-1)
	for _, r := range local[1:] {
		near = append(near, c.Isend(send[r*bs:(r+1)*bs], r, coll.TagScatter))
	}
	copy(recv, send[me*bs:(me+1)*bs])
	return errors.Join(amongNodes(c.Wait(far...)), m.inNode(c.Wait(near...)))
}

// allgather: each leader gathers its node's blocks into recv, the leaders
// exchange their nodes' blocks packed, one message from each leader to
// each other, and each leader bcasts the whole result in its node. A rank
// that fails goes on with its part, sending poison (tree.go).
func (m *module) allgather(c coll.Comm, send, recv []byte) error {
	t, me, bs, n := m.topo, c.Rank(), len(send), c.Size()
	if err := coll.CheckLen("recv", len(recv), n*bs, "every rank receives one block per rank"); err != nil {
		return err
	}
	local := t.local()
	if me != local[0] {
		err := m.inNode(c.Send(send, local[0], coll.TagAllgather))
		return coll.FirstError(err, m.inNode(bcastTree(c, local, recv, coll.TagAllgather, err)))
	}
	reqs := make([]coll.Request, 0, len(local)-1+2*(len(t.leaders)-1))
	for _, r := range local[1:] {
		reqs = append(reqs, c.Irecv(recv[r*bs:(r+1)*bs], r, coll.TagAllgather))
	}
	copy(recv[me*bs:(me+1)*bs], send)
	err := m.inNode(c.Wait(reqs...))
	mine := make([]byte, len(local)*bs)
	pack(mine, recv, local, bs)
	mine = coll.Payload(mine, err)
	bufs := make([][]byte, len(t.leaders))
	reqs = reqs[:0]
	for k, l := range t.leaders {
		if k != t.node {
			bufs[k] = make([]byte, len(t.ranks[k])*bs)
			reqs = append(reqs, c.Irecv(bufs[k], l, coll.TagAllgather))
		}
	}
	for k, l := range t.leaders {
		if k != t.node {
			reqs = append(reqs, c.Isend(mine, l, coll.TagAllgather))
		}
	}
	if e := c.Wait(reqs...); err == nil {
		err = amongNodes(e)
	}
	for k, buf := range bufs {
		if k != t.node {
			unpack(recv, buf, t.ranks[k], bs)
		}
	}
	return coll.FirstError(err, m.inNode(bcastTree(c, local, recv, coll.TagAllgather, err)))
}
