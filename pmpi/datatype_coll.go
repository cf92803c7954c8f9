package pmpi

// The collectives take derived datatypes by packing: a non-contiguous
// buffer is packed into a pooled one, the coll component works on packed
// bytes (blocks of count*Size bytes, as for a predefined type), and a
// buffer that receives is unpacked once the call succeeds.

// derivedData is data for a derived (or invalid) datatype: what names the
// buffer ("send", "receive", or "" for one that does both).
func (k *collCall) derivedData(what string, buf []byte, count int, dt Datatype) ([]byte, error) {
	name := what
	if name != "" {
		name += " "
	}
	t, err := usable("the "+name+"datatype", dt)
	if err != nil {
		return nil, k.comm.handle(errorf(ClassType, nil, "%s on %v: %s", k.op, k.comm, err.(*Error).Msg))
	}
	if count < 0 {
		return nil, k.fail(ClassCount, "the %s count %d is negative", what, count)
	}
	if err := t.span("the "+name+"buffer", len(buf), count); err != nil {
		return nil, k.comm.handle(errorf(ClassBuffer, nil, "%s on %v: %s", k.op, k.comm, err.(*Error).Msg))
	}
	if !t.packs {
		return buf[:count*t.size], nil
	}
	// A buffer that receives is packed too: in place, or at a root whose
	// own block stays, its data is read as well as written.
	c := packFor(t, buf, count)
	if what != "send" {
		c.user = buf
	}
	k.convs = append(k.convs, c)
	return *c.packed, nil
}

// unpackAll unpacks the receiving buffers if the call succeeded, and
// releases the packed copies.
func (k *collCall) unpackAll(ok bool) {
	for _, c := range k.convs {
		if ok && c.user != nil {
			c.unpack(len(*c.packed))
		}
		c.release()
	}
	k.convs = nil
}

// derivedVector checks a derived datatype of a collective with per-rank
// counts and displacements (Gatherv and its kin), whose displacements
// count elements of the type's extent in the user's buffer.
func (k *collCall) derivedVector(what string, dt Datatype) error {
	t, err := usable("the "+what+" datatype", dt)
	if err != nil {
		return k.comm.handle(errorf(ClassType, nil, "%s on %v: %s", k.op, k.comm, err.(*Error).Msg))
	}
	if t.packs {
		return k.fail(ClassType, "the %s datatype %s is not contiguous: the collectives with per-rank counts and displacements take contiguous datatypes (predefined types, Go structs without padding, contiguous layouts)", what, t.describe())
	}
	return nil
}
