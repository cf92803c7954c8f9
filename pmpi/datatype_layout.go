package pmpi

import (
	"fmt"
	"sync/atomic"
)

// layout is where a datatype's data lies in one element, relative to the
// buffer's origin (its first byte), and what that data is.
type layout struct {
	lb, extent     int // MPI's lower bound and extent: elements of a count lie extent apart
	trueLB, trueUB int // the first byte of data and the byte after the last
	// basic is the id of the one predefined type the type map holds, 0 if
	// it holds several (or none): GetElements and the signature check
	// read it.
	basic uint8
	// redux is the predefined type whose builtin reductions apply to the
	// elements: the type itself, or the one that every part of a derived
	// type is made of (a pair type counts, though its basic elements
	// are two); 0 if none.
	redux  uint8
	nbasic int   // basic elements in one element
	segs   []run // the type map in order: runs of basic elements (basic set) and loops of them
	// blocks are the contiguous byte runs of one element, in type map
	// order, adjacent ones merged (not across a loop's bounds), basic 0:
	// what packing walks, and what a vectored transport would hand to
	// writev or process_vm_readv.
	blocks []run
	// nblocks is how many blocks one element's data lies in (blocks
	// expanded): a vectored transport pays for each.
	nblocks int
	state   *typeState // nil for a predefined type: committed for ever
	bad     string     // why the type is invalid (TypeOf of a type that cannot be sent), or ""
	goType  bool       // made by GoType: shared by every user of the Go type, never freed
}

// run is n blocks of len bytes, the first at off and each next one
// stride bytes after the one before: a vector's column is one run
// whatever its length, so that a type's description does not grow with
// its count. In the type map (segs) a block holds elements of the
// predefined type basic; among blocks, basic is 0.
//
// A loop is a run whose block is not one: each of its n repetitions is
// the runs of body, their offsets from the repetition's (off + i*stride),
// and len is the bytes of data of one repetition. A vector of a struct,
// or of another vector, is one loop whatever its count.
type run struct {
	off, len  int
	n, stride int // n >= 1; stride is 0 when n is 1
	basic     uint8
	body      []run // a loop's runs, shared with the type it repeats; nil for a run of blocks
}

// lastOff is the offset of r's last block.
func (r *run) lastOff() int { return r.off + (r.n-1)*r.stride }

// appendRun appends r to rs, merged with the last run where the two
// continue each other: r's first block continues the last block, or r's
// blocks continue the last run's stride.
func appendRun(rs []run, r run) []run {
	if r.n <= 0 || r.len == 0 {
		return rs
	}
	if r.body != nil {
		return append(rs, r) // loops are not merged
	}
	if r.n == 1 {
		r.stride = 0
	}
	if r.stride == r.len {
		r.len, r.n, r.stride = r.len*r.n, 1, 0 // back to back: one block
	}
	k := len(rs)
	if k == 0 || rs[k-1].basic != r.basic || rs[k-1].body != nil {
		return append(rs, r)
	}
	last := &rs[k-1]
	if at := last.lastOff(); at+last.len == r.off {
		// r's first block continues the last block: join them, that
		// block split off its run first if it ends one.
		if last.n > 1 {
			last.n--
			if last.n == 1 {
				last.stride = 0
			}
			rs = append(rs, run{off: at, len: last.len, n: 1, basic: r.basic})
			k++
		}
		rs[k-1].len += r.len
		rs = mergeTail(rs)
		if r.n == 1 {
			return rs
		}
		r.off, r.n = r.off+r.stride, r.n-1
		return appendRun(rs, r)
	}
	if last.len == r.len {
		gap := r.off - last.lastOff()
		if (last.n == 1 || gap == last.stride) && (r.n == 1 || r.stride == gap) {
			last.n, last.stride = last.n+r.n, gap
			return rs
		}
	}
	return append(rs, r)
}

// mergeTail merges the last run, a single block, into the run before it
// when it continues that run's stride.
func mergeTail(rs []run) []run {
	k := len(rs)
	if k < 2 {
		return rs
	}
	prev, last := &rs[k-2], rs[k-1]
	if last.n != 1 || prev.body != nil || prev.basic != last.basic || prev.len != last.len {
		return rs
	}
	gap := last.off - prev.lastOff()
	if prev.n > 1 && gap != prev.stride {
		return rs
	}
	prev.n, prev.stride = prev.n+1, gap
	return rs[:k-1]
}

// repeat is n copies of the runs rs, stride bytes apart: one run where
// the copies continue it, a loop of rs otherwise.
func repeat(rs []run, n, stride int) []run {
	if n == 1 || len(rs) == 0 {
		return rs
	}
	if len(rs) == 1 && rs[0].body == nil {
		if r, ok := repeatRun(rs[0], n, stride); ok {
			return appendRun(nil, r)
		}
	}
	return []run{{len: dataLen(rs), n: n, stride: stride, body: rs}}
}

// repeatRun is n copies of the run r, stride bytes apart, as one run,
// if they make one.
func repeatRun(r run, n, stride int) (run, bool) {
	switch {
	case n == 1:
		return r, true
	case r.n == 1:
		r.n, r.stride = n, stride
		if r.stride == r.len { // back to back: one block
			r.len, r.n, r.stride = r.len*r.n, 1, 0
		}
		return r, true
	case r.n*r.stride == stride:
		r.n *= n
		return r, true
	}
	return r, false
}

// appendPlaced appends the runs of the entry e to rs: without the
// slices repeat makes where its elements make one run, the common case
// (a vector of a predefined type).
func appendPlaced(rs []run, e placed) []run {
	t := e.t
	if len(t.segs) == 1 && t.segs[0].body == nil {
		if r, ok := repeatRun(t.segs[0], e.n, t.extent); ok {
			if r, ok = repeatRun(r, e.reps, e.stride); ok {
				r.off += e.disp
				return appendRun(rs, r)
			}
		}
	}
	for _, r := range repeat(repeat(t.segs, e.n, t.extent), e.reps, e.stride) {
		r.off += e.disp
		rs = appendRun(rs, r)
	}
	return rs
}

// dataLen is the bytes of data of the runs rs.
func dataLen(rs []run) int {
	n := 0
	for i := range rs {
		n += rs[i].len * rs[i].n
	}
	return n
}

// blocksOf is the byte blocks of the type map segs: its runs without
// their basic types, adjacent ones merged, loops of one run made runs.
func blocksOf(dst, segs []run) []run {
	for _, s := range segs {
		s.basic = 0
		if s.body != nil {
			body := blocksOf(nil, s.body)
			for _, r := range repeat(body, s.n, s.stride) {
				r.off += s.off
				dst = appendRun(dst, r)
			}
			continue
		}
		dst = appendRun(dst, s)
	}
	return dst
}

// typeState is a derived type's life: built, committed, freed.
type typeState struct {
	committed atomic.Bool
	freed     atomic.Bool
	name      atomic.Pointer[string] // what typeDesc.naming made
	binding   atomic.Uintptr         // see Datatype.Binding
	attrs     attrSet                // the user's attributes
}

// ub is the upper bound, lb + extent.
func (l *layout) ub() int { return l.lb + l.extent }

// placed is reps times n consecutive elements of t, the first at byte
// disp and the others of the reps stride bytes after each other: one
// entry of a constructor's type map (a vector is one entry).
type placed struct {
	disp   int
	t      *typeDesc
	n      int
	reps   int
	stride int
}

// one is n consecutive elements of t at byte disp: an entry of one rep.
func one(disp int, t *typeDesc, n int) placed { return placed{disp, t, n, 1, 0} }

// derivedType is a derived type's descriptor and its state, allocated
// together.
type derivedType struct {
	desc  typeDesc
	state typeState
	runs  [2]run // the type map and the blocks of a type of one run, a vector's
}

// buildType makes a derived type of the given entries, in order; naming
// makes its name (nil for none).
func buildType(naming func() string, entries []placed) (Datatype, error) {
	x := &derivedType{}
	d := &x.desc
	d.derived, d.naming, d.state = true, naming, &x.state
	// The type map holds about a run per run of each entry's type, and
	// the blocks as many: one array serves both, appends past it aside.
	n := 0
	for _, e := range entries {
		n += max(1, len(e.t.segs))
	}
	runs := x.runs[:]
	if n > 1 {
		runs = make([]run, 2*n)
	}
	d.segs, d.blocks = runs[:0:n], runs[n:n:2*n]
	var lb, ub, tlb, tub int
	bounded, data, mixed, mixedRedux := false, false, false, false
	for _, e := range entries {
		if e.n == 0 || e.reps == 0 {
			continue
		}
		t := e.t
		reach := max(1, t.size, abs(t.extent))
		bad := e.disp > maxDisp || e.disp < -maxDisp || e.n > maxDisp/reach ||
			e.reps > maxDisp/max(1, abs(e.stride), e.n*reach)
		// Bounded as above, none of these sums overflows. The bounds
		// move linearly with the copy and the rep, so the first and last
		// of each hold the extremes.
		lastCopy, lastRep := (e.n-1)*t.extent, (e.reps-1)*e.stride
		corners := [4]int{e.disp, e.disp + lastCopy, e.disp + lastRep, e.disp + lastCopy + lastRep}
		for _, c := range corners {
			bad = bad || c > maxDisp || c < -maxDisp
		}
		if bad {
			return Datatype{}, errorf(ClassArg, nil, "type %s: %d elements of %s at byte %d reach beyond the %d bytes a type may span",
				d.typeName(), e.n*e.reps, t.typeName(), e.disp, maxDisp)
		}
		for _, at := range corners {
			if !bounded || at+t.lb < lb {
				lb = at + t.lb
			}
			if !bounded || at+t.ub() > ub {
				ub = at + t.ub()
			}
			bounded = true
			if t.size > 0 {
				if !data || at+t.trueLB < tlb {
					tlb = at + t.trueLB
				}
				if !data || at+t.trueUB > tub {
					tub = at + t.trueUB
				}
				data = true
			}
		}
		d.segs = appendPlaced(d.segs, e)
		d.size += e.reps * e.n * t.size
		d.nbasic += e.reps * e.n * t.nbasic
		if t.size > 0 {
			share(&d.basic, t.basic, &mixed)
			share(&d.redux, t.redux, &mixedRedux)
		}
	}
	d.lb, d.extent, d.trueLB, d.trueUB = lb, ub-lb, tlb, tub
	if mixed {
		d.basic = 0
	}
	if mixedRedux {
		d.redux = 0
	}
	d.finish()
	return Datatype{d}, nil
}

// share folds a part's id into *acc, the id every part so far has;
// *mixed is set once a part has none or another.
func share(acc *uint8, id uint8, mixed *bool) {
	if id == 0 || *acc != 0 && *acc != id {
		*mixed = true
	} else {
		*acc = id
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// finish computes what follows from the type map: the byte blocks, the
// kind, whether the type is contiguous.
func (d *typeDesc) finish() {
	d.finishBlocks()
	if d.redux != 0 {
		d.kind = predefined[d.redux].kind
	}
}

// finishBlocks is finish but for the kind: the part that reads no other
// type, which the predefined table's own entries take.
func (d *typeDesc) finishBlocks() {
	d.blocks = blocksOf(d.blocks[:0], d.segs)
	d.nblocks = countBlocks(d.blocks)
	contiguous := d.size == 0 ||
		len(d.blocks) == 1 && d.blocks[0].n == 1 && d.blocks[0].body == nil && d.blocks[0].off == 0 && d.lb == 0 && d.extent == d.size
	d.packs = !contiguous
}

// direct returns the bytes of buf that count elements of t occupy when
// they are one contiguous block, wherever it starts: they then move as
// they lie, with no packed copy. That is count 1 of a type whose data is
// one block (a subarray's row, a column of one), or more when the
// extent is that block's length.
func (t *typeDesc) direct(buf []byte, count int) ([]byte, bool) {
	if len(t.blocks) != 1 || count == 0 {
		return nil, false
	}
	b := &t.blocks[0]
	if b.n != 1 || b.body != nil || count != 1 && t.extent != b.len {
		return nil, false
	}
	return buf[b.off : b.off+count*b.len], true
}

// maxDisp bounds a displacement, in bytes, so that sums of them cannot
// overflow.
const maxDisp = 1 << 50

// wholeCount is how many elements n bytes hold, Undefined unless whole.
func (d *typeDesc) wholeCount(n int) int {
	if d.size == 0 {
		if n == 0 {
			return 0
		}
		return Undefined
	}
	if n%d.size != 0 {
		return Undefined
	}
	return n / d.size
}

// elements is how many basic elements n bytes of packed data hold,
// Undefined if n ends inside one: MPI_Get_elements.
func (d *typeDesc) elements(n int) int {
	if n == 0 {
		return 0
	}
	if d.size == 0 {
		return Undefined
	}
	if d.basic != 0 {
		if bs := predefined[d.basic].size; n%bs == 0 {
			return n / bs
		}
		return Undefined
	}
	count, rest := countElements(d.segs, n%d.size)
	count += n / d.size * d.nbasic
	if rest != 0 {
		return Undefined
	}
	return count
}

// countElements counts the basic elements of the type map segs that
// rest bytes of packed data hold, and returns them with the bytes left
// over: 0 unless the data ends inside a basic element.
func countElements(segs []run, rest int) (count, left int) {
	for _, s := range segs {
		if rest == 0 {
			break
		}
		if s.body != nil {
			whole := min(s.n, rest/s.len)
			count, rest = count+whole*elementsIn(s.body), rest-whole*s.len
			if whole < s.n {
				k, r := countElements(s.body, rest)
				return count + k, r
			}
			continue
		}
		bs := predefined[s.basic].size
		whole := min(s.n, rest/s.len)
		count, rest = count+whole*(s.len/bs), rest-whole*s.len
		if whole < s.n {
			k := rest / bs
			return count + k, rest - k*bs
		}
	}
	return count, rest
}

// elementsIn is the basic elements of the type map segs.
func elementsIn(segs []run) int {
	n := 0
	for _, s := range segs {
		if s.body != nil {
			n += s.n * elementsIn(s.body)
		} else {
			n += s.n * s.len / predefined[s.basic].size
		}
	}
	return n
}

// describe is what an error says of a derived type: its name and layout.
func (d *typeDesc) describe() string {
	return fmt.Sprintf("%s (%d bytes of data, extent %d)", d.typeName(), d.size, d.extent)
}
