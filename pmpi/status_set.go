package pmpi

import "math/bits"

// StatusSetElements sets st to describe count basic elements of dt
// (MPI_Status_set_elements), for a generalised request or a tool that
// builds statuses: GetElements(dt) then gives count, and Count and
// CountOf the whole elements of dt they make (Undefined if they end
// inside one).
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
	n, ok := dt.t.elementBytes(count)
	if !ok {
		return errorf(ClassCount, nil, "%s: %d basic elements of %s overflow a byte count", op, count, dt.Name())
	}
	st.Count, st.bytes = dt.countOf(n), n
	return nil
}

// elementBytes is how many bytes of packed data the first k basic
// elements of a count of t take (the inverse of elements), and false if
// that overflows.
func (t *typeDesc) elementBytes(k int) (int, bool) {
	per, size := t.nbasic, t.size // basic elements and bytes of one element
	if t.basic != 0 {
		per, size = 1, predefined[t.basic].size
	}
	if per == 0 {
		return 0, true // a type with no data: no element takes a byte
	}
	hi, n := bits.Mul64(uint64(k/per), uint64(size))
	if hi != 0 || n > uint64(maxInt) {
		return 0, false
	}
	return int(n) + prefixBytes(t.segs, k%per), true
}

// prefixBytes is the bytes of packed data of the first k basic elements
// of the type map segs, k fewer than it holds.
func prefixBytes(segs []run, k int) int {
	n := 0
	for _, s := range segs {
		if k == 0 {
			break
		}
		if s.body != nil {
			per := elementsIn(s.body)
			reps := min(s.n, k/per)
			n, k = n+reps*s.len, k-reps*per
			if reps < s.n && k > 0 {
				return n + prefixBytes(s.body, k)
			}
			continue
		}
		bs := predefined[s.basic].size
		take := min(k, s.n*s.len/bs)
		n, k = n+take*bs, k-take
	}
	return n
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
