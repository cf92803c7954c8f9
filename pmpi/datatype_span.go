package pmpi

import "unsafe"

// Packing part of a message: the engine packs a non-contiguous message
// fragment by fragment as it leaves, and unpacks each as it arrives
// (pml.Layout), so it asks for the packed bytes [lo, hi) of the whole.

// copySpan copies the packed bytes [off, off+len(frag)) of count elements
// of t, whose origin is typed[0], between frag and typed: into frag if
// pack is set. span must have checked that the elements lie inside typed.
func (t *typeDesc) copySpan(frag, typed []byte, count, off int, pack bool) {
	n := len(frag)
	if n == 0 {
		return
	}
	if !t.packs {
		if pack {
			copy(frag, typed[off:off+n])
		} else {
			copy(typed[off:off+n], frag)
		}
		return
	}
	_ = frag[n-1]
	f, u := unsafe.Pointer(unsafe.SliceData(frag)), unsafe.Pointer(unsafe.SliceData(typed))
	if off == 0 && n == count*t.size {
		t.copyAll(f, u, count, pack)
		return
	}
	spanRuns(t.blocks, f, u, 0, 0, count, t.extent, t.size, off, off+n, pack)
}

// spanRuns copies the part of the packed bytes [lo, hi) that falls in
// count repetitions of the runs rs, extent bytes apart from byte base of
// typed, whose packed data starts at pos and takes size bytes each. frag
// holds the packed bytes from lo. It returns the position after the
// repetitions.
func spanRuns(rs []run, frag, typed unsafe.Pointer, pos, base, count, extent, size, lo, hi int, pack bool) int {
	e, end, ok := spanStart(pos, count, size, lo, hi)
	if !ok {
		return end
	}
	for p := pos + e*size; e < count && p < hi; e++ {
		at := base + e*extent
		if p >= lo && p+size <= hi {
			copyRuns(rs, frag, typed, p-lo, at, 1, 0, pack)
			p += size
			continue
		}
		for i := range rs {
			r := &rs[i]
			switch whole := r.len * r.n; {
			case p+whole <= lo:
				p += whole
			case p >= hi:
				return end
			case r.body != nil:
				p = spanRuns(r.body, frag, typed, p, at+r.off, r.n, r.stride, r.len, lo, hi, pack)
			default:
				p = spanBlocks(r, frag, typed, p, at+r.off, lo, hi, pack)
			}
		}
	}
	return end
}

// spanStart is where a walk of count repetitions of size bytes, the first
// at pos in the packed data, starts for the packed bytes [lo, hi): at the
// first repetition that reaches lo, whole ones before it skipped. end is
// the position after the repetitions; ok is false when none of them holds
// a byte of [lo, hi).
func spanStart(pos, count, size, lo, hi int) (e, end int, ok bool) {
	end = pos + count*size
	if end <= lo || pos >= hi || size == 0 {
		return 0, end, false
	}
	if pos < lo {
		e = (lo - pos) / size
	}
	return e, end, true
}

// spanBlocks is spanRuns for one run of blocks, the first at byte at of
// typed and at pos in the packed data.
func spanBlocks(r *run, frag, typed unsafe.Pointer, pos, at, lo, hi int, pack bool) int {
	k := 0
	if pos < lo {
		k = (lo - pos) / r.len
	}
	for k < r.n {
		p := pos + k*r.len
		if p >= hi {
			break
		}
		if p >= lo && p+r.len <= hi { // whole blocks, as many as fit
			m := min(r.n-k, (hi-p)/r.len)
			copyRun(frag, typed, p-lo, at+k*r.stride, r.len, m, r.stride, pack)
			k += m
			continue
		}
		a, b := max(p, lo), min(p+r.len, hi)
		fb := unsafe.Slice((*byte)(unsafe.Add(frag, a-lo)), b-a)
		ub := unsafe.Slice((*byte)(unsafe.Add(typed, at+k*r.stride+a-p)), b-a)
		if pack {
			copy(fb, ub)
		} else {
			copy(ub, fb)
		}
		k++
	}
	return pos + r.len*r.n
}

// countBlocks is how many blocks the runs rs expand to.
func countBlocks(rs []run) int {
	n := 0
	for i := range rs {
		if rs[i].body != nil {
			n += rs[i].n * countBlocks(rs[i].body)
		} else {
			n += rs[i].n
		}
	}
	return n
}

// Blocks and MeanBlock let the engine and its transports move a streamed
// conversion's blocks where they lie (pml.Layout). Blocks walks only the
// blocks that hold [off, off+n), as copySpan does: a transport asks for
// each fragment's, and walking every block for each fragment took 10.9
// us for a 1 MiB message of 2 KiB rows in 128 KiB fragments, against 1.5
// (BenchmarkFragmentBlocks).
func (c *conversion) Blocks(parts [][]byte, off, n int) [][]byte {
	hi := min(off+n, c.count*c.t.size)
	switch {
	case off >= hi:
		return parts
	case !c.t.packs:
		return append(parts, c.user[off:hi])
	}
	parts, _ = spanParts(parts, c.t.blocks, c.user, 0, 0, c.count, c.t.extent, c.t.size, off, hi)
	return parts
}

// spanParts appends to parts the slices of typed that hold the packed
// bytes [lo, hi) of count repetitions of the runs rs, walked as spanRuns
// walks them, merging a slice with the one before where the two are
// adjacent. It returns parts and the position after the repetitions.
func spanParts(parts [][]byte, rs []run, typed []byte, pos, base, count, extent, size, lo, hi int) ([][]byte, int) {
	e, end, ok := spanStart(pos, count, size, lo, hi)
	if !ok {
		return parts, end
	}
	for p := pos + e*size; e < count && p < hi; e++ {
		at := base + e*extent
		for i := 0; i < len(rs) && p < hi; i++ {
			if r := &rs[i]; r.body != nil {
				parts, p = spanParts(parts, r.body, typed, p, at+r.off, r.n, r.stride, r.len, lo, hi)
			} else {
				parts, p = blockParts(parts, r, typed, p, at+r.off, lo, hi)
			}
		}
	}
	return parts, end
}

// blockParts is spanParts for one run of blocks, the first at byte at of
// typed and at pos in the packed data.
func blockParts(parts [][]byte, r *run, typed []byte, pos, at, lo, hi int) ([][]byte, int) {
	k := 0
	if pos < lo {
		k = (lo - pos) / r.len
	}
	for ; k < r.n && pos+k*r.len < hi; k++ {
		q := pos + k*r.len
		a, b := max(q, lo), min(q+r.len, hi)
		parts = appendPart(parts, typed, at+k*r.stride+a-q, b-a)
	}
	return parts, pos + r.len*r.n
}

// appendPart appends typed[at:at+n] to parts, or extends the last part
// if it is the bytes of typed just before.
func appendPart(parts [][]byte, typed []byte, at, n int) [][]byte {
	if k := len(parts) - 1; k >= 0 {
		if l := len(parts[k]); l > 0 && l <= at && unsafe.SliceData(parts[k]) == &typed[at-l] {
			parts[k] = typed[at-l : at+n : at+n]
			return parts
		}
	}
	return append(parts, typed[at:at+n:at+n])
}

func (c *conversion) MeanBlock() int { return c.t.size / max(c.t.nblocks, 1) }
