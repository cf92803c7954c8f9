package basic

import "github.com/gompi/gompi/frameworks/coll"

func checkRoot(name string, c coll.Comm, root int) error {
	if root < 0 || root >= c.Size() {
		return errorf(name, c, "root %d is not a rank (the communicator has %d)", root, c.Size())
	}
	return nil
}

// checkLen checks that buffer what holds want bytes; why says where want
// comes from.
func checkLen(name string, c coll.Comm, what string, got, want int, why string) error {
	if got != want {
		return errorf(name, c, "%s holds %d bytes, want %d (%s)", what, got, want, why)
	}
	return nil
}

// checkOp checks that op exists and that n bytes are whole elements of it.
func checkOp(name string, c coll.Comm, op coll.Op, n int) error {
	if op == nil {
		return errorf(name, c, "no reduction operation")
	}
	if es := op.ElemSize(); es <= 0 || n%es != 0 {
		return errorf(name, c, "%d bytes are not a whole number of the operation's %d-byte elements", n, es)
	}
	return nil
}

// checkBlocks checks that counts and displs give every rank a block of
// buffer what, size bytes long: a count is not negative and a block lies
// inside the buffer.
func checkBlocks(name string, c coll.Comm, what string, counts, displs []int, size int) error {
	n := c.Size()
	if len(counts) != n || len(displs) != n {
		return errorf(name, c, "%d %s counts and %d displacements, want one of each per rank (%d)", len(counts), what, len(displs), n)
	}
	for i := range n {
		k, d := counts[i], displs[i]
		if k < 0 {
			return errorf(name, c, "%s count of rank %d is %d bytes: negative", what, i, k)
		}
		if d < 0 || d > size-k {
			return errorf(name, c, "%s block of rank %d (displacement %d, %d bytes) does not fit in the %d-byte %s buffer", what, i, d, k, size, what)
		}
	}
	return nil
}

// block is the block of rank i in buf.
func block(buf []byte, counts, displs []int, i int) []byte {
	return buf[displs[i] : displs[i]+counts[i]]
}

// even returns the counts and displacements of size blocks of n bytes laid
// end to end.
func even(size, n int) (counts, displs []int) {
	counts, displs = make([]int, size), make([]int, size)
	for i := range size {
		counts[i], displs[i] = n, i*n
	}
	return counts, displs
}
