package basic

import "github.com/gompi/gompi/frameworks/coll"

func bcast(c coll.Comm, buf []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return bcastLinear(c, buf, root, coll.TagBcast, nil)
}

// bcastLinear sends buf from root to every other rank, one message each.
// err is the rank's error before the call, if any: the root then sends
// failure marks.
func bcastLinear(c coll.Comm, buf []byte, root, tag int, err error) error {
	n := c.Size()
	if c.Rank() != root {
		return coll.FirstError(err, c.Recv(buf, root, tag))
	}
	reqs := make([]coll.Request, 0, n-1)
	out := coll.Payload(buf, err)
	for i := 1; i < n; i++ {
		reqs = append(reqs, c.Isend(out, (root+i)%n, tag))
	}
	return coll.FirstError(err, c.Wait(reqs...))
}
