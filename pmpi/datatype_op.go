package pmpi

import "github.com/gompi/gompi/frameworks/coll"

// builtinID is the predefined type whose builtin operations apply to dt's
// data: dt itself, or the one type a derived type is made of (0 if
// mixed).
func builtinID(dt Datatype) uint8 {
	if dt.t == nil {
		return 0
	}
	return dt.t.redux
}

// userOnPacked binds a user function to a type that moves packed: the
// algorithms combine packed data, and f is handed it unpacked into whole
// elements of dt, laid out as the user's buffers are.
func userOnPacked(f UserFunc, dt Datatype, o Op) (coll.Op, string) {
	t := dt.t
	if t.trueLB < 0 || t.lb < 0 || t.extent <= 0 {
		return nil, "a user operation needs a datatype whose data lies at or after its origin, with a positive extent; " + t.describe() + " does not"
	}
	return &bound{dt, o.Record(), o.def.commute, false, func(in, inout []byte) {
		n := min(len(in), len(inout)) / t.size
		if n == 0 {
			return
		}
		// Whole elements, trailing padding included: f may view the
		// buffers as a slice of a Go type and assign whole values.
		span := max(n*t.extent, (n-1)*t.extent+t.trueUB)
		a, b := getPacked(span), getPacked(span)
		clear(*a)
		clear(*b)
		t.unpack(*a, in, n)
		t.unpack(*b, inout, n)
		f(*a, *b, n, dt)
		t.pack(inout, *b, n)
		putPacked(a)
		putPacked(b)
	}}, ""
}
