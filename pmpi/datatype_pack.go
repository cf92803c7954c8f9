package pmpi

import (
	"math/bits"
	"strconv"
	"sync"
	"unsafe"
)

// span checks that count elements of d lie inside a buffer of n bytes
// whose first byte is the origin, and says how many bytes they need.
func (d *typeDesc) span(op string, n, count int) error {
	if d.fits(n, count) {
		return nil
	}
	if !d.bounded(count) {
		return errorf(ClassCount, nil, "%s: %d elements of %s span more than the %d bytes a buffer may hold",
			op, count, d.describe(), maxReach)
	}
	lo, hi := d.reach(count)
	if lo < 0 {
		return errorf(ClassBuffer, nil, "%s: %d elements of %s reach %d bytes below the buffer's first byte, the origin (a layout's data must lie at or after it)",
			op, count, d.describe(), -lo)
	}
	return errorf(ClassBuffer, nil, "%s: buffer of %d bytes is too small for %d elements of %s: they need %d bytes",
		op, n, count, d.describe(), hi)
}

// fits is span's test without its error, for the calls' fast path.
func (d *typeDesc) fits(n, count int) bool {
	if count == 0 || d.size == 0 {
		return true
	}
	if !d.bounded(count) {
		return false
	}
	lo, hi := d.reach(count)
	return lo >= 0 && hi <= n
}

// maxReach bounds the bytes count elements may pack to or span, so that
// neither count*size nor reach overflows.
const maxReach = 1 << 62

// bounded reports whether count (> 0) elements of d pack to and span at
// most maxReach bytes. A type's extent and bounds are within maxDisp.
func (d *typeDesc) bounded(count int) bool {
	packed, n := bits.Mul64(uint64(count), uint64(d.size))
	step, m := bits.Mul64(uint64(count-1), uint64(abs(d.extent)))
	return packed == 0 && n <= maxReach && step == 0 && m <= maxReach
}

// reach is the first byte of data of count elements of d and the byte
// after their last, from the origin.
func (d *typeDesc) reach(count int) (lo, hi int) {
	lo, hi = d.trueLB, d.trueUB
	if step := (count - 1) * d.extent; step < 0 {
		lo += step
	} else {
		hi += step
	}
	return lo, hi
}

// ready is usable's test without its error, for the calls' fast path.
func ready(t *typeDesc) bool {
	return t != nil && t.bad == "" && (t.state == nil || t.state.committed.Load() && !t.state.freed.Load())
}

// usable checks that dt may move data: valid, committed, not freed.
func usable(op string, dt Datatype) (*typeDesc, error) {
	t := dt.t
	switch {
	case t == nil:
		return nil, errorf(ClassType, nil, "%s: invalid datatype (MPI_DATATYPE_NULL)", op)
	case t.bad != "":
		return nil, errorf(ClassType, nil, "%s: %s", op, t.bad)
	case t.state == nil:
		return t, nil
	case t.state.freed.Load():
		return nil, errorf(ClassType, nil, "%s: datatype %s was freed (a freed type serves only the operations already started with it)", op, t.typeName())
	case !t.state.committed.Load():
		return nil, errorf(ClassType, nil, "%s: datatype %s is not committed (commit a type before moving data with it)", op, t.typeName())
	}
	return t, nil
}

// pack copies count elements of t from src, its origin at src[0], into
// dst, which holds count*t.size bytes. span must have checked that the
// elements lie inside src: the copy does not check each block again.
func (t *typeDesc) pack(dst, src []byte, count int) {
	if !t.packs {
		copy(dst, src[:count*t.size])
		return
	}
	if count == 0 || t.size == 0 {
		return
	}
	_ = dst[count*t.size-1]
	t.copyAll(unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src)), count, true)
}

// unpack copies packed data from src into count elements of t in dst,
// until src ends: a truncated or short message fills the elements it
// reaches. It returns the bytes taken from src. span must have checked
// that the elements lie inside dst.
func (t *typeDesc) unpack(dst, src []byte, count int) int {
	if !t.packs {
		return copy(dst, src[:min(len(src), count*t.size)])
	}
	n := min(len(src), count*t.size)
	if n == 0 {
		return 0
	}
	packed := unsafe.Pointer(unsafe.SliceData(src))
	origin := unsafe.Pointer(unsafe.SliceData(dst))
	if n == count*t.size {
		t.copyAll(packed, origin, count, false)
		return n
	}
	// The data ends inside an element.
	unpackPart(t.blocks, packed, origin, 0, 0, n, count, t.extent)
	return n
}

// unpackPart unpacks the first n bytes of packed, from byte pos, into
// count repetitions of the runs rs, extent bytes apart from byte base of
// typed: whole runs while they fit, then the whole blocks of the run the
// data ends in, then part of one. It returns the position reached and
// whether the data ended.
func unpackPart(rs []run, packed, typed unsafe.Pointer, pos, base, n, count, extent int) (int, bool) {
	for e := range count {
		for i := range rs {
			r := &rs[i]
			off := base + e*extent + r.off
			if r.body != nil {
				var end bool
				if pos, end = unpackPart(r.body, packed, typed, pos, off, n, r.n, r.stride); end {
					return pos, true
				}
				continue
			}
			k := min(r.n, (n-pos)/r.len)
			copyRun(packed, typed, pos, off, r.len, k, r.stride, false)
			pos += k * r.len
			if k < r.n {
				if rest := n - pos; rest > 0 {
					copy(unsafe.Slice((*byte)(unsafe.Add(typed, off+k*r.stride)), rest), unsafe.Slice((*byte)(unsafe.Add(packed, pos)), rest))
				}
				return n, true
			}
		}
	}
	return pos, false
}

// copyAll copies count whole elements of t between packed data and the
// typed buffer whose origin is typed: into packed if pack is set.
func (t *typeDesc) copyAll(packed, typed unsafe.Pointer, count int, pack bool) {
	copyRuns(t.blocks, packed, typed, 0, 0, count, t.extent, pack)
}

// copyRuns copies count repetitions of the runs rs, extent bytes apart
// from byte base of typed, to or from packed at pos, and returns the
// position after them.
func copyRuns(rs []run, packed, typed unsafe.Pointer, pos, base, count, extent int, pack bool) int {
	for e := range count {
		at := base + e*extent
		for i := range rs {
			r := &rs[i]
			switch {
			case r.body != nil:
				pos = copyRuns(r.body, packed, typed, pos, at+r.off, r.n, r.stride, pack)
			case r.n == 1:
				// One block, as a struct's fields are: a word inline.
				p, u := unsafe.Add(packed, pos), unsafe.Add(typed, at+r.off)
				if !pack {
					p, u = u, p
				}
				switch n := r.len; {
				case n == 8:
					*(*uint64)(p) = *(*uint64)(u)
				case n == 4:
					*(*uint32)(p) = *(*uint32)(u)
				case n > 8 && n <= 16:
					// Two words that overlap in the middle: no call
					// to memmove for a small odd field.
					*(*uint64)(p) = *(*uint64)(u)
					*(*uint64)(unsafe.Add(p, n-8)) = *(*uint64)(unsafe.Add(u, n-8))
				case n > 4 && n < 8:
					*(*uint32)(p) = *(*uint32)(u)
					*(*uint32)(unsafe.Add(p, n-4)) = *(*uint32)(unsafe.Add(u, n-4))
				case n == 2:
					*(*uint16)(p) = *(*uint16)(u)
				case n == 1:
					*(*byte)(p) = *(*byte)(u)
				default:
					copy(unsafe.Slice((*byte)(p), n), unsafe.Slice((*byte)(u), n))
				}
				pos += r.len
			default:
				copyRun(packed, typed, pos, at+r.off, r.len, r.n, r.stride, pack)
				pos += r.len * r.n
			}
		}
	}
	return pos
}

// copyRun copies n blocks of size bytes between packed, back to back
// from byte pos, and typed, stride bytes apart from byte off: into packed
// if pack is set, out of it otherwise. The blocks of one number (a
// column's) are copied as words: calling memmove for each cost more
// than the copy. Every offset is taken from the buffers' first bytes,
// so that no pointer leaves its buffer; the words are read and written
// unaligned, which amd64 and arm64, gompi's platforms, allow.
func copyRun(packed, typed unsafe.Pointer, pos, off, size, n, stride int, pack bool) {
	if pack {
		copyStrided(packed, typed, pos, off, size, stride, size, n)
	} else {
		copyStrided(typed, packed, off, pos, stride, size, size, n)
	}
}

// copyStrided copies n blocks of size bytes from src at soff, sstep bytes
// apart, to dst at doff, dstep bytes apart.
func copyStrided(dst, src unsafe.Pointer, doff, soff, dstep, sstep, size, n int) {
	switch size {
	case 8:
		for range n {
			*(*uint64)(unsafe.Add(dst, doff)) = *(*uint64)(unsafe.Add(src, soff))
			doff, soff = doff+dstep, soff+sstep
		}
	case 4:
		for range n {
			*(*uint32)(unsafe.Add(dst, doff)) = *(*uint32)(unsafe.Add(src, soff))
			doff, soff = doff+dstep, soff+sstep
		}
	case 2:
		for range n {
			*(*uint16)(unsafe.Add(dst, doff)) = *(*uint16)(unsafe.Add(src, soff))
			doff, soff = doff+dstep, soff+sstep
		}
	case 1:
		for range n {
			*(*byte)(unsafe.Add(dst, doff)) = *(*byte)(unsafe.Add(src, soff))
			doff, soff = doff+dstep, soff+sstep
		}
	default:
		if size > 8 && size <= 32 {
			// Blocks of a few words (a pair of columns, a particle's
			// coordinates): words that overlap in the middle, not a call
			// to memmove a block, which took four times as long at 16 bytes.
			copyWords(dst, src, doff, soff, dstep, sstep, size, n)
			return
		}
		for range n {
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, doff)), size), unsafe.Slice((*byte)(unsafe.Add(src, soff)), size))
			doff, soff = doff+dstep, soff+sstep
		}
	}
}

// copyWords is copyStrided for blocks of 9 to 32 bytes: two, three or
// four words each, the last ending at the block's end and overlapping
// the one before when the block is not a whole number of words.
func copyWords(dst, src unsafe.Pointer, doff, soff, dstep, sstep, size, n int) {
	word := func(d, s, at int) {
		*(*uint64)(unsafe.Add(dst, d+at)) = *(*uint64)(unsafe.Add(src, s+at))
	}
	switch {
	case size <= 16:
		for range n {
			word(doff, soff, 0)
			word(doff, soff, size-8)
			doff, soff = doff+dstep, soff+sstep
		}
		return
	case size <= 24:
		for range n {
			word(doff, soff, 0)
			word(doff, soff, 8)
			word(doff, soff, size-8)
			doff, soff = doff+dstep, soff+sstep
		}
		return
	}
	for range n {
		word(doff, soff, 0)
		word(doff, soff, 8)
		word(doff, soff, size-16)
		word(doff, soff, size-8)
		doff, soff = doff+dstep, soff+sstep
	}
}

// packArgs checks the arguments of a pack or unpack: the datatype, the
// count, the typed buffer and the packed one from pos, which must hold
// need bytes.
func packArgs(op string, typed []byte, count int, dt Datatype, packed []byte, pos int, esize func(*typeDesc) int) (*typeDesc, int, error) {
	t, err := usable(op, dt)
	if err != nil {
		return nil, 0, err
	}
	if err := checkCount(op, "count", count); err != nil {
		return nil, 0, err
	}
	if err := t.span(op, len(typed), count); err != nil {
		return nil, 0, err
	}
	need := count * esize(t)
	if pos < 0 || pos > len(packed) {
		return nil, 0, errorf(ClassArg, nil, "%s: position %d is outside the packed buffer of %d bytes", op, pos, len(packed))
	}
	if need > len(packed)-pos {
		return nil, 0, errorf(ClassTruncate, nil, "%s: %d elements of %s take %d bytes, but the packed buffer has %d from position %d",
			op, count, t.typeName(), need, len(packed)-pos, pos)
	}
	return t, need, nil
}

func packedSize(t *typeDesc) int { return t.size }

// Pack packs count elements of dt from in (its origin at in[0]) into out
// at position pos, and returns the position after them (MPI_Pack).
func (*realAPI) Pack(in []byte, count int, dt Datatype, out []byte, pos int) (int, error) {
	t, need, err := packArgs("pack", in, count, dt, out, pos, packedSize)
	if err != nil {
		return pos, err
	}
	t.pack(out[pos:pos+need], in, count)
	return pos + need, nil
}

// Unpack unpacks count elements of dt from in at position pos into out
// (its origin at out[0]), and returns the position after them (MPI_Unpack).
func (*realAPI) Unpack(in []byte, pos int, out []byte, count int, dt Datatype) (int, error) {
	t, need, err := packArgs("unpack", out, count, dt, in, pos, packedSize)
	if err != nil {
		return pos, err
	}
	t.unpack(out, in[pos:pos+need], count)
	return pos + need, nil
}

// PackSize is the bytes Pack takes for count elements of dt (MPI_Pack_size).
func (*realAPI) PackSize(count int, dt Datatype) (int, error) {
	t, err := usable("pack size", dt)
	if err == nil {
		err = checkCount("pack size", "count", count)
	}
	if err != nil {
		return 0, err
	}
	if count > 0 && !t.bounded(count) {
		return 0, errorf(ClassCount, nil, "pack size: %d elements of %s pack to more than the %d bytes a buffer may hold",
			count, t.describe(), maxReach)
	}
	return count * t.size, nil
}

// External32 is the name of MPI's portable data representation: every
// basic element big-endian, with no padding (a pair's value and index
// back to back).
const External32 = "external32"

func checkRep(op, datarep string) error {
	if datarep != External32 {
		return errorf(ClassArg, nil, "%s: data representation %q (want %q)", op, datarep, External32)
	}
	return nil
}

// PackExternal packs count elements of dt from in into out at pos in the
// representation datarep, which must be External32, and returns the
// position after them (MPI_Pack_external).
func (*realAPI) PackExternal(datarep string, in []byte, count int, dt Datatype, out []byte, pos int) (int, error) {
	const op = "pack external"
	if err := checkRep(op, datarep); err != nil {
		return pos, err
	}
	t, need, err := packArgs(op, in, count, dt, out, pos, externalSize)
	if err != nil {
		return pos, err
	}
	if bad := t.external(out[pos:pos+need], in, count, true); bad != "" {
		return pos, errorf(ClassArg, nil, "%s of %d elements of %s: %s (external32 fixes MPI_LONG and MPI_UNSIGNED_LONG at 4 bytes, MPI_WCHAR at 2)",
			op, count, t.describe(), bad)
	}
	return pos + need, nil
}

// UnpackExternal is Unpack from the representation datarep, which must
// be External32 (MPI_Unpack_external).
func (*realAPI) UnpackExternal(datarep string, in []byte, pos int, out []byte, count int, dt Datatype) (int, error) {
	const op = "unpack external"
	if err := checkRep(op, datarep); err != nil {
		return pos, err
	}
	t, need, err := packArgs(op, out, count, dt, in, pos, externalSize)
	if err != nil {
		return pos, err
	}
	t.external(in[pos:pos+need], out, count, false) // widening cannot fail
	return pos + need, nil
}

// PackExternalSize is the bytes PackExternal takes for count elements of
// dt in datarep (MPI_Pack_external_size).
func (*realAPI) PackExternalSize(datarep string, count int, dt Datatype) (int, error) {
	const op = "pack external size"
	if err := checkRep(op, datarep); err != nil {
		return 0, err
	}
	t, err := usable(op, dt)
	if err == nil {
		err = checkCount(op, "count", count)
	}
	if err != nil {
		return 0, err
	}
	return count * externalSize(t), nil
}

// externalSize is the bytes of one element of t in external32.
func externalSize(t *typeDesc) int {
	return externalLen(t.segs)
}

// externalLen is the bytes of the type map segs in external32.
func externalLen(segs []run) int {
	n := 0
	for _, s := range segs {
		if s.body != nil {
			n += s.n * externalLen(s.body)
			continue
		}
		n += s.n * s.len / predefined[s.basic].size * basicExternal(s.basic).size
	}
	return n
}

// basicRep is how a basic element of Go's layout maps to external32:
// words of word bytes each, byte-swapped. A pair type is two basic
// elements in the type map, so it needs nothing of its own.
type basicRep struct {
	size int // external bytes
	word int // the element is words of this many bytes, each reversed
	// narrow: external32 has fewer bytes than memory (C's long, unsigned
	// long and wchar_t), the low ones; they come back extended, with the
	// sign if signed.
	narrow, signed bool
	// x87: each word is a long double, binary128 in external32.
	x87 bool
}

func basicExternal(id uint8) basicRep {
	d := &predefined[id]
	switch {
	case id == idLongDouble || id == idLongDoubleComplex:
		return basicRep{size: d.size, word: 16, x87: true}
	case d.kind == kindComplex:
		return basicRep{size: d.size, word: d.size / 2}
	case id == idLong:
		return basicRep{size: 4, word: 4, narrow: true, signed: true}
	case id == idUnsignedLong:
		return basicRep{size: 4, word: 4, narrow: true}
	case id == idWchar:
		return basicRep{size: 2, word: 2, narrow: true}
	}
	return basicRep{size: d.size, word: d.size}
}

// external converts count elements of t between packed external32 data
// in ext and Go's layout in mem, origin at mem[0]: out of mem when
// toExt, into it otherwise. Packing names the first value that
// external32's size of its type cannot hold ("" if none); ext is then
// partly written.
func (t *typeDesc) external(ext, mem []byte, count int, toExt bool) string {
	var bad string
	externalRuns(t.segs, ext, mem, 0, 0, count, t.extent, toExt, &bad)
	return bad
}

// externalRuns converts count repetitions of the type map segs, extent
// bytes apart from byte base of mem, at p of ext, and returns the
// position after them in ext. The first value that does not fit is
// named in bad.
func externalRuns(segs []run, ext, mem []byte, p, base, count, extent int, toExt bool, bad *string) int {
	for e := range count {
		for _, s := range segs {
			at := base + e*extent + s.off
			if s.body != nil {
				p = externalRuns(s.body, ext, mem, p, at, s.n, s.stride, toExt, bad)
				continue
			}
			r := basicExternal(s.basic)
			gs := predefined[s.basic].size
			for i := range s.n {
				for el := at + i*s.stride; el < at+i*s.stride+s.len; el += gs {
					if r.x87 {
						for w := 0; w < r.size; w += 16 {
							x87External(ext[p+w:p+w+16], mem[el+w:el+w+16], toExt)
						}
					} else if r.narrow {
						if v := narrow(ext[p:p+r.size], mem[el:el+gs], r.signed, toExt); v != "" && *bad == "" {
							*bad = predefined[s.basic].name + " value " + v + " does not fit"
						}
					} else {
						for w := 0; w < r.size; w += r.word {
							swap(ext[p+w:p+w+r.word], mem[el+w:el+w+r.word], toExt)
						}
					}
					p += r.size
				}
			}
		}
	}
	return p
}

// narrow converts a little-endian integer of len(mem) bytes to the
// big-endian one of len(ext) bytes, or back with its sign or zeros
// extended. It returns a value too large for ext, formatted, and ""
// when the value fits.
func narrow(ext, mem []byte, signed, toExt bool) string {
	bits := 8 * uint(len(ext))
	if !toExt {
		var v uint64
		for _, b := range ext {
			v = v<<8 | uint64(b)
		}
		if signed && v>>(bits-1) != 0 {
			v |= ^uint64(0) << bits
		}
		for i := range mem {
			mem[i] = byte(v >> (8 * i))
		}
		return ""
	}
	var v uint64
	for i := len(mem) - 1; i >= 0; i-- {
		v = v<<8 | uint64(mem[i])
	}
	if signed {
		shift := 64 - 8*uint(len(mem))
		if x := int64(v<<shift) >> shift; x < -1<<(bits-1) || x >= 1<<(bits-1) {
			return strconv.FormatInt(x, 10)
		}
	} else if v >= 1<<bits {
		return strconv.FormatUint(v, 10)
	}
	for i := range ext {
		ext[i] = byte(v >> (8 * (len(ext) - 1 - i)))
	}
	return ""
}

// swap copies a little-endian word (gompi runs on little-endian
// platforms only: amd64, arm64) of mem to big-endian ext, or back.
func swap(ext, mem []byte, toExt bool) {
	n := len(ext)
	if toExt {
		for i := range n {
			ext[i] = mem[n-1-i]
		}
		return
	}
	for i := range n {
		mem[i] = ext[n-1-i]
	}
}

// packPool holds the buffers that non-contiguous types are packed into
// for the transports, by power-of-two size class.
var packPool [48]sync.Pool

// getPacked returns a buffer of n bytes from the pool.
func getPacked(n int) *[]byte {
	c := sizeClass(n)
	if p, ok := packPool[c].Get().(*[]byte); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, 1<<c)
	return &b
}

func putPacked(p *[]byte) {
	if p == nil || cap(*p) == 0 {
		return
	}
	packPool[sizeClass(cap(*p))].Put(p)
}

// sizeClass is the power of two at or above n.
func sizeClass(n int) int {
	c := 0
	for 1<<c < n {
		c++
	}
	return c
}
