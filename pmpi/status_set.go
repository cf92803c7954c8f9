package pmpi

import "math/bits"

// StatusSetElements sets st to describe count elements of dt
// (MPI_Status_set_elements), for a generalised request or a tool that
// builds statuses: it sets Count to count and the byte length, which
// CountOf and the element queries read, to count times dt's size.
func (*realAPI) StatusSetElements(st *Status, dt Datatype, count int) error {
	const op = "status set elements"
	switch {
	case st == nil:
		return errorf(ClassArg, nil, "%s: the status is nil", op)
	case dt.Size() <= 0:
		return errorf(ClassType, nil, "%s: invalid datatype", op)
	case count < 0:
		return errorf(ClassCount, nil, "%s: count %d is negative", op, count)
	}
	hi, n := bits.Mul64(uint64(count), uint64(dt.Size()))
	if hi != 0 || n > uint64(maxInt) {
		return errorf(ClassCount, nil, "%s: %d elements of %s overflow a byte count", op, count, dt.Name())
	}
	st.Count, st.bytes = count, int(n)
	return nil
}

const maxInt = int(^uint(0) >> 1)

// StatusSetCancelled sets whether st says its operation was cancelled
// (MPI_Status_set_cancelled).
func (*realAPI) StatusSetCancelled(st *Status, cancelled bool) error {
	if st == nil {
		return errorf(ClassArg, nil, "status set cancelled: the status is nil")
	}
	st.Cancelled = cancelled
	return nil
}

// TestCancelled reports whether st's operation was cancelled
// (MPI_Test_cancelled).
func (*realAPI) TestCancelled(st *Status) (bool, error) {
	if st == nil {
		return false, errorf(ClassArg, nil, "test cancelled: the status is nil")
	}
	return st.Cancelled, nil
}
