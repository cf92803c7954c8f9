package basic

import "github.com/gompi/gompi/frameworks/coll"

// scan passes the prefix down a chain: rank i receives x0 ⊕ ... ⊕ x(i-1)
// from i-1, combines its own operand on the right, and passes the result
// on to i+1.
func scan(c coll.Comm, send, recv []byte, op coll.Op) error {
	n, me := c.Size(), c.Rank()
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if err := coll.CheckLen("recv", len(recv), len(send), "as long as send"); err != nil {
		return err
	}
	var err error
	copy(recv, send)
	if me > 0 {
		prefix := make([]byte, len(send))
		if err = c.Recv(prefix, me-1, coll.TagScan); err == nil {
			op.Reduce(prefix, recv)
		}
	}
	if me < n-1 {
		err = coll.FirstError(err, c.Send(coll.Payload(recv, err), me+1, coll.TagScan))
	}
	return err
}

// exscan is scan shifted by one: rank i receives x0 ⊕ ... ⊕ x(i-1) into
// recv and passes that ⊕ x(i) on. Rank 0's recv is neither read nor
// written, and may be of any length.
func exscan(c coll.Comm, send, recv []byte, op coll.Op) error {
	n, me := c.Size(), c.Rank()
	if err := coll.CheckOp(op, len(send)); err != nil {
		return err
	}
	if me > 0 {
		if err := coll.CheckLen("recv", len(recv), len(send), "as long as send"); err != nil {
			return err
		}
	}
	var err error
	next := send
	if me > 0 {
		err = c.Recv(recv, me-1, coll.TagExscan)
		if me < n-1 && err == nil {
			next = append([]byte(nil), send...)
			op.Reduce(recv, next)
		}
	}
	if me < n-1 {
		err = coll.FirstError(err, c.Send(coll.Payload(next, err), me+1, coll.TagExscan))
	}
	return err
}
