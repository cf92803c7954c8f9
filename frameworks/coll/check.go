package coll

import "fmt"

// Argument checks components share. pmpi has checked what a user can get
// wrong before a module runs; these guard a module against a caller that
// did not (another component's algorithm, a test). Each error says what
// is wrong without a prefix: the component adds its own.

// CheckRoot fails unless root is a rank of c.
func CheckRoot(c Comm, root int) error {
	if root < 0 || root >= c.Size() {
		return fmt.Errorf("root %d is not a rank (the communicator has %d)", root, c.Size())
	}
	return nil
}

// CheckLen fails unless buffer what holds want bytes; why says where want
// comes from.
func CheckLen(what string, got, want int, why string) error {
	if got != want {
		return fmt.Errorf("%s holds %d bytes, want %d (%s)", what, got, want, why)
	}
	return nil
}

// CheckOp fails unless op is set and n bytes are whole elements of it.
func CheckOp(op Op, n int) error {
	if op == nil {
		return fmt.Errorf("no reduction operation")
	}
	if es := op.ElemSize(); es <= 0 || n%es != 0 {
		return fmt.Errorf("%d bytes are not a whole number of the operation's %d-byte elements", n, es)
	}
	return nil
}

// CheckBlocks fails unless counts and displs give each of c's ranks a
// block of buffer what, size bytes long: one count and one displacement
// per rank, no count negative, every block inside the buffer.
func CheckBlocks(c Comm, what string, counts, displs []int, size int) error {
	return checkBlocks(what, "rank", counts, displs, c.Size(), size)
}

// CheckNeighborBlocks is CheckBlocks for a neighbourhood collective: a
// block for each of the n neighbours in the list of what.
func CheckNeighborBlocks(what string, counts, displs []int, n, size int) error {
	return checkBlocks(what, "neighbour", counts, displs, n, size)
}

func checkBlocks(what, per string, counts, displs []int, n, size int) error {
	if len(counts) != n || len(displs) != n {
		return fmt.Errorf("%d %s counts and %d displacements, want one of each per %s (%d)", len(counts), what, len(displs), per, n)
	}
	for i := range n {
		k, d := counts[i], displs[i]
		if k < 0 {
			return fmt.Errorf("%s count of %s %d is %d bytes: negative", what, per, i, k)
		}
		if d < 0 || d > size-k {
			return fmt.Errorf("%s block of %s %d (displacement %d, %d bytes) does not fit in the %d-byte %s buffer", what, per, i, d, k, size, what)
		}
	}
	return nil
}

// CheckOwnBlock fails unless the block rank sends itself, sent bytes, is
// as long as the one it receives from itself, want: otherwise its counts
// or datatypes disagree, an error of the class of a message of the wrong
// length (ErrTooLong, ErrTooShort).
func CheckOwnBlock(rank, sent, want int) error {
	if sent == want {
		return nil
	}
	return fmt.Errorf("rank %d sends itself %d bytes but expects %d: %w", rank, sent, want, WrongLength(sent, want))
}

// WrongLength is the class of data of sent bytes where want were expected:
// ErrTooLong or ErrTooShort.
func WrongLength(sent, want int) error {
	if sent > want {
		return ErrTooLong
	}
	return ErrTooShort
}
