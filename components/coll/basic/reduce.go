package basic

import "github.com/gompi/gompi/frameworks/coll"

func reduce(c coll.Comm, send, recv []byte, op coll.Op, root int) error {
	if err := coll.CheckRoot(c, root); err != nil {
		return err
	}
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := coll.CheckLen("the root's recv", len(recv), len(send), "as long as send"); err != nil {
			return err
		}
	}
	return reduceLinear(c, send, recv, op, root, coll.TagReduce)
}

func allreduce(c coll.Comm, send, recv []byte, op coll.Op) error {
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if err := coll.CheckLen("recv", len(recv), len(send), "as long as send"); err != nil {
		return err
	}
	err := reduceLinear(c, send, recv, op, 0, coll.TagAllreduce)
	return coll.FirstError(err, bcastLinear(c, recv, 0, coll.TagAllreduce, err))
}

// reduceLinear leaves x0 ⊕ x1 ⊕ ... ⊕ x(n-1) in the root's recv. The root
// takes the operands one at a time from the highest rank down, so that
// each is the lower-ranked "in" operand of Op.Reduce and one scratch
// buffer is enough.
func reduceLinear(c coll.Comm, send, recv []byte, op coll.Op, root, tag int) error {
	n, me := c.Size(), c.Rank()
	if me != root {
		return c.Send(send, root, tag)
	}
	var err error
	if n-1 == me {
		copy(recv, send)
	} else {
		err = c.Recv(recv, n-1, tag)
	}
	var tmp []byte
	for i := n - 2; i >= 0; i-- {
		in := send
		if i != me {
			if tmp == nil {
				tmp = make([]byte, len(send))
			}
			err = coll.FirstError(err, c.Recv(tmp, i, tag))
			in = tmp
		}
		if err == nil {
			op.Reduce(in, recv)
		}
	}
	return err
}
