package basic

import "github.com/gompi/gompi/frameworks/coll"

func allgather(c coll.Comm, send, recv []byte) error {
	n := c.Size()
	if err := coll.CheckLen("recv", len(recv), n*len(send), "one send-sized block per rank"); err != nil {
		return err
	}
	counts, displs := even(n, len(send))
	return allgathervLinear(c, send, recv, counts, displs, coll.TagAllgather)
}

func allgatherv(c coll.Comm, send, recv []byte, counts, displs []int) error {
	if err := coll.CheckBlocks(c, "recv", counts, displs, len(recv)); err != nil {
		return err
	}
	if err := coll.CheckLen("send", len(send), counts[c.Rank()], "this rank's count"); err != nil {
		return err
	}
	return allgathervLinear(c, send, recv, counts, displs, coll.TagAllgatherv)
}

// allgathervLinear sends every rank's block straight to every other rank.
// Only the blocks are written: gaps between them in recv stay as they were.
func allgathervLinear(c coll.Comm, send, recv []byte, counts, displs []int, tag int) error {
	n, me := c.Size(), c.Rank()
	reqs := make([]coll.Request, 0, 2*(n-1))
	for i := 1; i < n; i++ {
		r := (me - i + n) % n
		reqs = append(reqs, c.Irecv(block(recv, counts, displs, r), r, tag))
	}
	for i := 1; i < n; i++ {
		reqs = append(reqs, c.Isend(send, (me+i)%n, tag))
	}
	copy(block(recv, counts, displs, me), send)
	return c.Wait(reqs...)
}
