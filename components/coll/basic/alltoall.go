package basic

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

func alltoall(c coll.Comm, send, recv []byte) error {
	n := c.Size()
	if len(send)%n != 0 {
		return fmt.Errorf("send holds %d bytes, not a whole block for each of %d ranks", len(send), n)
	}
	if err := coll.CheckLen("recv", len(recv), len(send), "as long as send"); err != nil {
		return err
	}
	counts, displs := even(n, len(send)/n)
	return alltoallvLinear(c, send, counts, displs, recv, counts, displs, coll.TagAlltoall, nil)
}

func alltoallv(c coll.Comm, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if err := coll.CheckBlocks(c, "send", scounts, sdispls, len(send)); err != nil {
		return err
	}
	if err := coll.CheckBlocks(c, "recv", rcounts, rdispls, len(recv)); err != nil {
		return err
	}
	// A rank whose own block disagrees still exchanges with the others,
	// who would wait for ever on it, but sends them failure marks.
	me := c.Rank()
	err := coll.CheckOwnBlock(me, scounts[me], rcounts[me])
	return coll.FirstError(err, alltoallvLinear(c, send, scounts, sdispls, recv, rcounts, rdispls, coll.TagAlltoallv, err))
}

// alltoallvLinear posts every receive, then every send, then waits for all:
// no rank waits on another before its own receives are posted, so
// rendezvous sends cannot deadlock. Each rank starts with its next
// neighbour, spreading the first messages over the ranks. The block to
// itself is a copy. err is the rank's error before the exchange, if any:
// it then sends failure marks and copies nothing.
func alltoallvLinear(c coll.Comm, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, tag int, err error) error {
	n, me := c.Size(), c.Rank()
	reqs := make([]coll.Request, 0, 2*(n-1))
	for i := 1; i < n; i++ {
		r := (me - i + n) % n
		reqs = append(reqs, c.Irecv(block(recv, rcounts, rdispls, r), r, tag))
	}
	for i := 1; i < n; i++ {
		r := (me + i) % n
		reqs = append(reqs, c.Isend(coll.Payload(block(send, scounts, sdispls, r), err), r, tag))
	}
	if err == nil {
		copy(block(recv, rcounts, rdispls, me), block(send, scounts, sdispls, me))
	}
	return c.Wait(reqs...)
}
