package basic

import "github.com/gompi/gompi/frameworks/coll"

func checkRoot(name string, c coll.Comm, root int) error {
	return prefixed(name, c, coll.CheckRoot(c, root))
}

func checkLen(name string, c coll.Comm, what string, got, want int, why string) error {
	return prefixed(name, c, coll.CheckLen(what, got, want, why))
}

func checkOp(name string, c coll.Comm, op coll.Op, n int) error {
	return prefixed(name, c, coll.CheckOp(op, n))
}

func checkBlocks(name string, c coll.Comm, what string, counts, displs []int, size int) error {
	return prefixed(name, c, coll.CheckBlocks(c, what, counts, displs, size))
}

// prefixed gives an argument error the component, collective and
// communicator; nil stays nil.
func prefixed(name string, c coll.Comm, err error) error {
	if err == nil {
		return nil
	}
	return errorf(name, c, "%v", err)
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
