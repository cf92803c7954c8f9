package basic

import "github.com/gompi/gompi/frameworks/coll"

func scatter(c coll.Comm, send, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	n := c.Size()
	var counts, displs []int
	if c.Rank() == root {
		if err := coll.CheckLen("the root's send", len(send), n*len(recv), "one recv-sized block per rank"); err != nil {
			return err
		}
		counts, displs = even(n, len(recv))
	}
	return scattervLinear(c, send, counts, displs, recv, root, coll.TagScatter, nil)
}

func scatterv(c coll.Comm, send []byte, counts, displs []int, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := coll.CheckBlocks(c, "send", counts, displs, len(send)); err != nil {
			return err
		}
		if err := coll.CheckLen("the root's recv", len(recv), counts[root], "the root's own count"); err != nil {
			return err
		}
	}
	return scattervLinear(c, send, counts, displs, recv, root, coll.TagScatterv, nil)
}

// scattervLinear sends every rank its block from the root, one message
// each; counts and displs matter at the root only. err is the rank's
// error before the call, if any: the root then sends failure marks.
func scattervLinear(c coll.Comm, send []byte, counts, displs []int, recv []byte, root, tag int, err error) error {
	n, me := c.Size(), c.Rank()
	if me != root {
		return coll.FirstError(err, c.Recv(recv, root, tag))
	}
	reqs := make([]coll.Request, 0, n-1)
	for i := 1; i < n; i++ {
		r := (root + i) % n
		reqs = append(reqs, c.Isend(coll.Payload(block(send, counts, displs, r), err), r, tag))
	}
	copy(recv, block(send, counts, displs, root))
	return coll.FirstError(err, c.Wait(reqs...))
}
