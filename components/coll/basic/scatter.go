package basic

import "github.com/gompi/gompi/frameworks/coll"

func scatter(c coll.Comm, send, recv []byte, root int) error {
	const name = "scatter"
	if err := checkRoot(name, c, root); err != nil {
		return err
	}
	n := c.Size()
	var counts, displs []int
	if c.Rank() == root {
		if err := checkLen(name, c, "the root's send", len(send), n*len(recv), "one recv-sized block per rank"); err != nil {
			return err
		}
		counts, displs = even(n, len(recv))
	}
	return wrap(name, c, scattervLinear(c, send, counts, displs, recv, root, coll.TagScatter))
}

func scatterv(c coll.Comm, send []byte, counts, displs []int, recv []byte, root int) error {
	const name = "scatterv"
	if err := checkRoot(name, c, root); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := checkBlocks(name, c, "send", counts, displs, len(send)); err != nil {
			return err
		}
		if err := checkLen(name, c, "the root's recv", len(recv), counts[root], "the root's own count"); err != nil {
			return err
		}
	}
	return wrap(name, c, scattervLinear(c, send, counts, displs, recv, root, coll.TagScatterv))
}

// scattervLinear sends every rank its block from the root, one message
// each; counts and displs matter at the root only.
func scattervLinear(c coll.Comm, send []byte, counts, displs []int, recv []byte, root, tag int) error {
	n, me := c.Size(), c.Rank()
	if me != root {
		return c.Recv(recv, root, tag)
	}
	reqs := make([]coll.Request, 0, n-1)
	for i := 1; i < n; i++ {
		r := (root + i) % n
		reqs = append(reqs, c.Isend(block(send, counts, displs, r), r, tag))
	}
	copy(recv, block(send, counts, displs, root))
	return c.Wait(reqs...)
}
