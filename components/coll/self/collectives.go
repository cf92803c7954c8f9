package self

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// With one rank, the root is that rank and its buffers hold the whole
// result: each collective checks its arguments as the larger algorithms
// would, then copies send to recv or does nothing.

func bcast(c coll.Comm, _ []byte, root int) error {
	return coll.CheckRoot(c, root)
}

func reduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return copyReduced(send, recv, op)
}

func allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	return copyReduced(send, recv, op)
}

func scan(c coll.Comm, send, recv []byte, op coll.Op) error {
	return copyReduced(send, recv, op)
}

func reduceScatterBlock(c coll.Comm, send, recv []byte, op coll.Op) error {
	return copyReduced(send, recv, op)
}

func reduceScatter(c coll.Comm, send, recv []byte, counts []int, op coll.Op) error {
	if len(counts) != 1 {
		return fmt.Errorf("%d counts, want one per rank (1)", len(counts))
	}
	if err := coll.CheckLen("send", len(send), counts[0], "the sum of the counts"); err != nil {
		return err
	}
	return copyReduced(send, recv, op)
}

// copyReduced is a reduction over one operand: the operand itself.
func copyReduced(send, recv []byte, op coll.Op) error {
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if err := coll.CheckLen("recv", len(recv), len(send), "as long as send"); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

// exscan leaves rank 0's recv as it was: with one rank there is nothing
// else.
func exscan(c coll.Comm, send, _ []byte, op coll.Op) error {
	return coll.CheckOp(op, len(send))
}

func gather(c coll.Comm, send, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return copySame(send, recv)
}

func scatter(c coll.Comm, send, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return copySame(send, recv)
}

func allgather(c coll.Comm, send, recv []byte) error {
	return copySame(send, recv)
}

func alltoall(c coll.Comm, send, recv []byte) error {
	return copySame(send, recv)
}

// copySame copies send to recv, which must be as long: one rank's block is
// the whole buffer.
func copySame(send, recv []byte) error {
	if err := coll.CheckLen("recv", len(recv), len(send), "one send-sized block for the one rank"); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

func gatherv(c coll.Comm, send, recv []byte, counts, displs []int, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	return copyToBlock(c, send, recv, counts, displs)
}

func allgatherv(c coll.Comm, send, recv []byte, counts, displs []int) error {
	return copyToBlock(c, send, recv, counts, displs)
}

// copyToBlock copies send into the one block of recv; the rest of recv is
// left alone.
func copyToBlock(c coll.Comm, send, recv []byte, counts, displs []int) error {
	dst, err := block(c, "recv", recv, counts, displs)
	if err != nil {
		return err
	}
	if err := coll.CheckLen("send", len(send), len(dst), "the one count"); err != nil {
		return err
	}
	copy(dst, send)
	return nil
}

func scatterv(c coll.Comm, send []byte, counts, displs []int, recv []byte, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	src, err := block(c, "send", send, counts, displs)
	if err != nil {
		return err
	}
	if err := coll.CheckLen("recv", len(recv), len(src), "the one count"); err != nil {
		return err
	}
	copy(recv, src)
	return nil
}

func alltoallv(c coll.Comm, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	src, err := block(c, "send", send, scounts, sdispls)
	if err != nil {
		return err
	}
	dst, err := block(c, "recv", recv, rcounts, rdispls)
	if err != nil {
		return err
	}
	if err := coll.CheckOwnBlock(0, len(src), len(dst)); err != nil {
		return err
	}
	copy(dst, src)
	return nil
}
