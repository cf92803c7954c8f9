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
		switch {
		case !ok || c.user == nil:
		case c.bc != nil:
			c.unpackBlocks()
		default:
			c.unpack(len(*c.packed))
		}
		c.release()
	}
	k.convs = nil
}

// derivedVector checks a derived datatype of a collective with per-rank
// counts (Gatherv and its kin, ReduceScatter).
func (k *collCall) derivedVector(what string, dt Datatype) error {
	if _, err := usable("the "+what+" datatype", dt); err != nil {
		return k.comm.handle(errorf(ClassType, nil, "%s on %v: %s", k.op, k.comm, err.(*Error).Msg))
	}
	return nil
}

// vectorIn is vector for the buffer *buf, whose displacements count
// elements of dt. A non-contiguous dt has *buf replaced by a packed copy
// of its elements up to the end of the last block: element e of the
// user's buffer, at e times the extent, is at e times the size in the
// copy, so the blocks keep their places in packed units, and a buffer
// that receives is unpacked when the call succeeds.
func (k *collCall) vectorIn(what string, buf *[]byte, counts, displs []int, dt Datatype) ([]int, []int, error) {
	return k.blocksIn(what, k.comm.Size(), "rank", buf, counts, displs, dt)
}

// blocksIn is vectorIn for parts blocks, one per rank or neighbour (per).
func (k *collCall) blocksIn(what string, parts int, per string, buf *[]byte, counts, displs []int, dt Datatype) ([]int, []int, error) {
	if dt.t != nil && dt.t.packs && len(counts) == parts && (displs == nil || len(displs) == len(counts)) {
		end, off := 0, 0
		for i, c := range counts {
			d := off
			if displs != nil {
				d = displs[i]
			}
			if c > 0 {
				end, off = max(end, d+c), off+c
			}
		}
		packed, err := k.derivedData(what, *buf, end, dt)
		if err != nil {
			return nil, nil, err
		}
		*buf = packed
		bc, bd, err := k.blocks(what, parts, per, counts, displs, dt, len(*buf))
		if err == nil && what != "send" {
			// The conversion derivedData just made for a type that packs.
			c := k.convs[len(k.convs)-1]
			c.bc, c.bd = bc, bd
		}
		return bc, bd, err
	}
	return k.blocks(what, parts, per, counts, displs, dt, len(*buf))
}
