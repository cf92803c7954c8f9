package basic

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

func reduceScatter(c coll.Comm, send, recv []byte, counts []int, op coll.Op) error {
	n, me := c.Size(), c.Rank()
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if len(counts) != n {
		return fmt.Errorf("%d counts, want one per rank (%d)", len(counts), n)
	}
	displs := make([]int, n)
	total := 0
	for i, k := range counts {
		if k < 0 || k%op.ElemSize() != 0 {
			return fmt.Errorf("the count of rank %d is %d bytes, want a whole number of %d-byte elements", i, k, op.ElemSize())
		}
		displs[i] = total
		total += k
	}
	if err := coll.CheckLen("send", len(send), total, "the sum of the counts"); err != nil {
		return err
	}
	if err := coll.CheckLen("recv", len(recv), counts[me], "this rank's count"); err != nil {
		return err
	}
	return reduceThenScatter(c, send, recv, counts, displs, op, coll.TagReduceScatter)
}

func reduceScatterBlock(c coll.Comm, send, recv []byte, op coll.Op) error {
	n := c.Size()
	if err := coll.CheckOp(op, len(recv)); err != nil {
		return err
	}
	if err := coll.CheckLen("send", len(send), n*len(recv), "one recv-sized block per rank"); err != nil {
		return err
	}
	counts, displs := even(n, len(recv))
	return reduceThenScatter(c, send, recv, counts, displs, op, coll.TagReduceScatterBlock)
}

// reduceThenScatter reduces the whole vector to rank 0, which then hands
// every rank its block.
func reduceThenScatter(c coll.Comm, send, recv []byte, counts, displs []int, op coll.Op, tag int) error {
	var sum []byte
	if c.Rank() == 0 {
		sum = make([]byte, len(send))
	}
	err := reduceLinear(c, send, sum, op, 0, tag)
	return coll.FirstError(err, scattervLinear(c, sum, counts, displs, recv, 0, tag, err))
}
