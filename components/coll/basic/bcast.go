package basic

import "github.com/gompi/gompi/frameworks/coll"

func bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return bcastLinear(c, buf, root, coll.TagBcast)
}

// bcastLinear sends buf from root to every other rank, one message each.
func bcastLinear(c coll.Comm, buf []byte, root, tag int) error {
	n := c.Size()
	if c.Rank() != root {
		return c.Recv(buf, root, tag)
	}
	reqs := make([]coll.Request, 0, n-1)
	for i := 1; i < n; i++ {
		reqs = append(reqs, c.Isend(buf, (root+i)%n, tag))
	}
	return c.Wait(reqs...)
}
