package self

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// errorf reports arguments that collective name cannot run with on c.
func errorf(name string, c coll.Comm, format string, args ...any) error {
	return fmt.Errorf("coll self: %s on %s: %s", name, c.Name(), fmt.Sprintf(format, args...))
}

func checkRoot(name string, c coll.Comm, root int) error {
	if root != 0 {
		return errorf(name, c, "root %d is not a rank (the communicator has 1)", root)
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

// block checks that counts and displs give the one rank a block of buffer
// what, inside it, and returns that block.
func block(name string, c coll.Comm, what string, buf []byte, counts, displs []int) ([]byte, error) {
	if len(counts) != 1 || len(displs) != 1 {
		return nil, errorf(name, c, "%d %s counts and %d displacements, want one of each per rank (1)", len(counts), what, len(displs))
	}
	k, d := counts[0], displs[0]
	if k < 0 {
		return nil, errorf(name, c, "%s count of rank 0 is %d bytes: negative", what, k)
	}
	if d < 0 || d > len(buf)-k {
		return nil, errorf(name, c, "%s block of rank 0 (displacement %d, %d bytes) does not fit in the %d-byte %s buffer", what, d, k, len(buf), what)
	}
	return buf[d : d+k], nil
}
