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
	return prefixed(name, c, coll.CheckRoot(c, root))
}

func checkLen(name string, c coll.Comm, what string, got, want int, why string) error {
	return prefixed(name, c, coll.CheckLen(what, got, want, why))
}

func checkOp(name string, c coll.Comm, op coll.Op, n int) error {
	return prefixed(name, c, coll.CheckOp(op, n))
}

// prefixed gives an argument error the component, collective and
// communicator; nil stays nil.
func prefixed(name string, c coll.Comm, err error) error {
	if err == nil {
		return nil
	}
	return errorf(name, c, "%v", err)
}

// block checks that counts and displs give the one rank a block of buffer
// what, inside it, and returns that block.
func block(name string, c coll.Comm, what string, buf []byte, counts, displs []int) ([]byte, error) {
	if err := coll.CheckBlocks(c, what, counts, displs, len(buf)); err != nil {
		return nil, errorf(name, c, "%v", err)
	}
	return buf[displs[0] : displs[0]+counts[0]], nil
}
