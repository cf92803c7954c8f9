package basic

import "github.com/gompi/gompi/frameworks/coll"

func gather(c coll.Comm, send, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	n := c.Size()
	var counts, displs []int
	if c.Rank() == root {
		if err := coll.CheckLen("the root's recv", len(recv), n*len(send), "one send-sized block per rank"); err != nil {
			return err
		}
		counts, displs = even(n, len(send))
	}
	return gathervLinear(c, send, recv, counts, displs, root, coll.TagGather)
}

func gatherv(c coll.Comm, send, recv []byte, counts, displs []int, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := coll.CheckBlocks(c, "recv", counts, displs, len(recv)); err != nil {
			return err
		}
		if err := coll.CheckLen("the root's send", len(send), counts[root], "the root's own count"); err != nil {
			return err
		}
	}
	return gathervLinear(c, send, recv, counts, displs, root, coll.TagGatherv)
}

// gathervLinear receives every rank's block at the root, one message each;
// counts and displs matter at the root only.
func gathervLinear(c coll.Comm, send, recv []byte, counts, displs []int, root, tag int) error {
	n, me := c.Size(), c.Rank()
	if me != root {
		return c.Send(send, root, tag)
	}
	reqs := make([]coll.Request, 0, n-1)
	for i := 1; i < n; i++ {
		r := (root + i) % n
		reqs = append(reqs, c.Irecv(block(recv, counts, displs, r), r, tag))
	}
	copy(block(recv, counts, displs, root), send)
	return c.Wait(reqs...)
}
