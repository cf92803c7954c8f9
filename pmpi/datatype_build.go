package pmpi

import (
	"fmt"
	"strconv"
	"strings"
)

// The type constructors of MPI 4.1, chapter 5. Each makes a new derived
// type from an old one (any valid type, committed or not); the new type
// must be committed before a call moves data with it. Displacements and
// strides may be negative; the element's data must lie inside the buffer
// a call is given, whose first byte is the origin.

// Order is the storage order of a Subarray's array.
type Order int

const (
	// OrderC is row-major order: the last dimension varies fastest.
	OrderC Order = iota
	// OrderFortran is column-major order: the first dimension varies fastest.
	OrderFortran
)

// oldType checks a constructor's old type.
func oldType(op string, old Datatype) (*typeDesc, error) {
	return validType(op, "the old datatype", old)
}

// validType checks that d is a valid datatype that was not freed; what
// names it in the error.
func validType(op, what string, d Datatype) (*typeDesc, error) {
	switch {
	case d.t == nil:
		return nil, errorf(ClassType, nil, "%s: %s is invalid (MPI_DATATYPE_NULL)", op, what)
	case d.t.bad != "":
		return nil, errorf(ClassType, nil, "%s: %s", op, d.t.bad)
	case d.t.state != nil && d.t.state.freed.Load():
		return nil, errorf(ClassType, nil, "%s: %s %s was freed", op, what, d.t.typeName())
	}
	return d.t, nil
}

func checkCount(op, what string, n int) error {
	if n < 0 {
		return errorf(ClassCount, nil, "%s: %s %d is negative (want 0 or more)", op, what, n)
	}
	return nil
}

func checkBlocklen(op string, i, n int) error {
	if n < 0 {
		return errorf(ClassArg, nil, "%s: block length %d of block %d is negative (want 0 or more)", op, n, i)
	}
	return nil
}

// TypeContiguous is count elements of old back to back
// (MPI_Type_contiguous).
func (*realAPI) TypeContiguous(count int, old Datatype) (Datatype, error) {
	const op = "type contiguous"
	t, err := oldType(op, old)
	if err == nil {
		err = checkCount(op, "count", count)
	}
	if err != nil {
		return Datatype{}, err
	}
	return buildType(func() string { return fmt.Sprintf("contiguous(%d,%s)", count, t.typeName()) }, []placed{one(0, t, count)})
}

// TypeVector is count blocks of blocklen elements of old, the blocks
// stride elements of old apart (MPI_Type_vector): a column of a
// row-major matrix is TypeVector(rows, 1, cols, Float64).
func (*realAPI) TypeVector(count, blocklen, stride int, old Datatype) (Datatype, error) {
	t, err := oldType("type vector", old)
	if err != nil {
		return Datatype{}, err
	}
	return vector("type vector", "vector", count, blocklen, stride, stride*t.extent, t)
}

// TypeHvector is TypeVector with the stride in bytes (MPI_Type_create_hvector).
func (*realAPI) TypeHvector(count, blocklen, stride int, old Datatype) (Datatype, error) {
	t, err := oldType("type hvector", old)
	if err != nil {
		return Datatype{}, err
	}
	return vector("type hvector", "hvector", count, blocklen, stride, stride, t)
}

// vector is count blocks of blocklen elements of t, bytes apart; stride
// is the stride as the program gave it, for the name.
func vector(op, name string, count, blocklen, stride, bytes int, t *typeDesc) (Datatype, error) {
	if err := checkCount(op, "count", count); err != nil {
		return Datatype{}, err
	}
	if blocklen < 0 {
		return Datatype{}, errorf(ClassArg, nil, "%s: block length %d is negative (want 0 or more)", op, blocklen)
	}
	naming := func() string { return fmt.Sprintf("%s(%d,%d,%d,%s)", name, count, blocklen, stride, t.typeName()) }
	return buildType(naming, []placed{{0, t, blocklen, count, bytes}})
}

// TypeIndexed is blocks of blocklens[i] elements of old at displs[i]
// elements of old, in the order given (MPI_Type_indexed).
func (*realAPI) TypeIndexed(blocklens, displs []int, old Datatype) (Datatype, error) {
	return indexed("type indexed", "indexed", blocklens, displs, old, false)
}

// TypeHindexed is TypeIndexed with the displacements in bytes
// (MPI_Type_create_hindexed).
func (*realAPI) TypeHindexed(blocklens, displs []int, old Datatype) (Datatype, error) {
	return indexed("type hindexed", "hindexed", blocklens, displs, old, true)
}

// TypeIndexedBlock is TypeIndexed with every block blocklen long
// (MPI_Type_create_indexed_block).
func (*realAPI) TypeIndexedBlock(blocklen int, displs []int, old Datatype) (Datatype, error) {
	return indexedBlock("type indexed block", "indexed_block", blocklen, displs, old, false)
}

// TypeHindexedBlock is TypeIndexedBlock with the displacements in bytes
// (MPI_Type_create_hindexed_block).
func (*realAPI) TypeHindexedBlock(blocklen int, displs []int, old Datatype) (Datatype, error) {
	return indexedBlock("type hindexed block", "hindexed_block", blocklen, displs, old, true)
}

func indexedBlock(op, name string, blocklen int, displs []int, old Datatype, bytes bool) (Datatype, error) {
	if blocklen < 0 {
		return Datatype{}, errorf(ClassArg, nil, "%s: block length %d is negative (want 0 or more)", op, blocklen)
	}
	lens := make([]int, len(displs))
	for i := range lens {
		lens[i] = blocklen
	}
	return indexed(op, name, lens, displs, old, bytes)
}

func indexed(op, name string, blocklens, displs []int, old Datatype, bytes bool) (Datatype, error) {
	t, err := oldType(op, old)
	if err != nil {
		return Datatype{}, err
	}
	if len(blocklens) != len(displs) {
		return Datatype{}, errorf(ClassArg, nil, "%s: %d block lengths and %d displacements (want one of each per block)",
			op, len(blocklens), len(displs))
	}
	unit := t.extent
	if bytes {
		unit = 1
	}
	entries := make([]placed, len(displs))
	for i, n := range blocklens {
		if err := checkBlocklen(op, i, n); err != nil {
			return Datatype{}, err
		}
		entries[i] = one(displs[i]*unit, t, n)
	}
	// The name reads the arguments later: a copy, since the caller's
	// slices are its own again once this returns.
	args := append(append(make([]int, 0, 2*len(displs)), blocklens...), displs...)
	naming := func() string {
		return fmt.Sprintf("%s(%s;%s;%s)", name, ints(args[:len(displs)]), ints(args[len(displs):]), t.typeName())
	}
	return buildType(naming, entries)
}

// TypeStruct is blocks of blocklens[i] elements of types[i] at byte
// displs[i] (MPI_Type_create_struct): a layout no one Go type describes.
// Its extent runs from the lowest lower bound to the highest upper bound
// of the blocks, with no alignment padding added: resize it
// (TypeResized) to match a struct of another language.
func (*realAPI) TypeStruct(blocklens, displs []int, types []Datatype) (Datatype, error) {
	const op = "type struct"
	if len(blocklens) != len(displs) || len(blocklens) != len(types) {
		return Datatype{}, errorf(ClassArg, nil, "%s: %d block lengths, %d displacements and %d types (want one of each per block)",
			op, len(blocklens), len(displs), len(types))
	}
	entries := make([]placed, len(types))
	for i, n := range blocklens {
		if err := checkBlocklen(op, i, n); err != nil {
			return Datatype{}, err
		}
		t, err := oldType(op, types[i])
		if err != nil {
			_, err = oldType(fmt.Sprintf("%s: block %d", op, i), types[i]) // the error, naming the block
			return Datatype{}, err
		}
		entries[i] = one(displs[i], t, n)
	}
	// The entries hold every argument, as given: the name reads them.
	naming := func() string {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = fmt.Sprintf("%d*%s@%d", e.n, e.t.typeName(), e.disp)
		}
		return "struct(" + strings.Join(names, ",") + ")"
	}
	return buildType(naming, entries)
}

// TypeResized is old with lower bound lb and extent extent, in bytes
// (MPI_Type_create_resized): the elements of a count then lie extent
// apart, whatever gaps that leaves or overlaps it makes.
func (*realAPI) TypeResized(old Datatype, lb, extent int) (Datatype, error) {
	t, err := oldType("type resized", old)
	if err != nil {
		return Datatype{}, err
	}
	if lb > maxDisp || lb < -maxDisp || extent > maxDisp || extent < -maxDisp || abs(lb+extent) > maxDisp {
		return Datatype{}, errorf(ClassArg, nil, "type resized: lower bound %d and extent %d of %s (want each, and their sum, within %d bytes either way, the span a type may have)",
			lb, extent, t.typeName(), maxDisp)
	}
	d, err := buildType(func() string { return fmt.Sprintf("resized(%s,%d,%d)", t.typeName(), lb, extent) }, []placed{one(0, t, 1)})
	if err != nil {
		return d, err
	}
	d.t.lb, d.t.extent = lb, extent
	d.t.finish()
	return d, nil
}

// TypeSubarray is the block of an n-dimensional array of elements of old
// (sizes[i] along dimension i) that starts at starts[i] and is
// subsizes[i] long along each, in C or Fortran order
// (MPI_Type_create_subarray). Its lower bound is 0 and its extent the
// whole array's, so that a count of them tiles consecutive arrays.
func (*realAPI) TypeSubarray(sizes, subsizes, starts []int, order Order, old Datatype) (Datatype, error) {
	const op = "type subarray"
	t, err := oldType(op, old)
	if err != nil {
		return Datatype{}, err
	}
	n := len(sizes)
	switch {
	case n == 0:
		return Datatype{}, errorf(ClassArg, nil, "%s: no dimensions (want 1 or more)", op)
	case len(subsizes) != n || len(starts) != n:
		return Datatype{}, errorf(ClassArg, nil, "%s: %d sizes, %d subsizes and %d starts (want one of each per dimension)",
			op, n, len(subsizes), len(starts))
	case order != OrderC && order != OrderFortran:
		return Datatype{}, errorf(ClassArg, nil, "%s: order %d (want OrderC or OrderFortran)", op, order)
	}
	total := 1
	limit := maxDisp / max(1, abs(t.extent)) // elements of old a type may span
	for i := range n {
		switch {
		case sizes[i] < 1:
			return Datatype{}, errorf(ClassArg, nil, "%s: size %d of dimension %d (want 1 or more)", op, sizes[i], i)
		case subsizes[i] < 0 || subsizes[i] > sizes[i]:
			return Datatype{}, errorf(ClassArg, nil, "%s: subsize %d of dimension %d (want 0 to its size %d)", op, subsizes[i], i, sizes[i])
		case starts[i] < 0 || starts[i] > sizes[i]-subsizes[i]:
			return Datatype{}, errorf(ClassArg, nil, "%s: start %d of dimension %d (want 0 to %d, so that the subarray fits)",
				op, starts[i], i, sizes[i]-subsizes[i])
		}
		if total > limit/sizes[i] {
			return Datatype{}, errorf(ClassArg, nil, "%s: the array of %s elements of %s spans more than the %d bytes a type may span",
				op, ints(sizes), t.typeName(), maxDisp)
		}
		total *= sizes[i]
	}
	// dims lists the dimensions from the slowest to the fastest.
	dims := make([]int, n)
	for i := range dims {
		dims[i] = i
		if order == OrderFortran {
			dims[i] = n - 1 - i
		}
	}
	// Build from the fastest dimension out: a run along it, then
	// hvectors of that along the slower ones.
	stride := t.extent
	origin := 0
	cur := t
	curN := 1
	for k := n - 1; k >= 0; k-- {
		i := dims[k]
		origin += starts[i] * stride
		if k == n-1 {
			curN = subsizes[i]
		} else {
			d, err := buildType(nil, []placed{{0, cur, curN, subsizes[i], stride}})
			if err != nil {
				return Datatype{}, err
			}
			cur, curN = d.t, 1
		}
		stride *= sizes[i]
	}
	args := append(append(append(make([]int, 0, 3*n), sizes...), subsizes...), starts...)
	naming := func() string {
		return fmt.Sprintf("subarray(%s;%s;%s,%s,%s)", ints(args[:n]), ints(args[n:2*n]), ints(args[2*n:]), order, t.typeName())
	}
	d, err := buildType(naming, []placed{one(origin, cur, curN)})
	if err != nil {
		return d, err
	}
	d.t.lb, d.t.extent = 0, total*t.extent
	d.t.finish()
	return d, nil
}

func (o Order) String() string {
	switch o {
	case OrderC:
		return "C"
	case OrderFortran:
		return "Fortran"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

func ints(v []int) string {
	b := make([]byte, 0, 4*len(v))
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}

// TypeCommit makes d usable in communication (MPI_Type_commit). Committing
// again does nothing; a predefined type needs no commit.
func (*realAPI) TypeCommit(d Datatype) error {
	t, err := validType("type commit", "the datatype", d)
	if err != nil {
		return err
	}
	if t.state != nil {
		t.state.committed.Store(true)
	}
	return nil
}

// TypeFree marks d freed (MPI_Type_free): later calls that use it fail with
// ErrType. Operations already started with it, and types built from it,
// go on using it. Predefined types cannot be freed. Its attributes are
// deleted first: a failing delete callback fails the Free and leaves d
// valid.
func (*realAPI) TypeFree(d Datatype) error {
	t, err := validType("type free", "the datatype", d)
	if err != nil {
		return err
	}
	if t.state == nil {
		return errorf(ClassType, nil, "type free: %s is predefined (only derived types may be freed)", t.typeName())
	}
	if t.goType {
		return errorf(ClassType, nil, "type free: %s is a Go type's datatype, shared by every user of that type (only constructed types may be freed)", t.typeName())
	}
	if err := d.freeAttrs(); err != nil {
		return err
	}
	t.state.freed.Store(true)
	return nil
}

// Extent returns d's lower bound and extent in bytes (MPI_Type_get_extent):
// consecutive elements lie extent bytes apart.
func (d Datatype) Extent() (lb, extent int) {
	if d.t == nil {
		return 0, 0
	}
	return d.t.lb, d.t.extent
}

// Alignment is the strictest natural alignment of d's basic elements, in
// bytes (a number's size, a complex number's part's), 0 for a type with
// none: what C aligns a struct of them to, and so the multiple MPI rounds
// a C struct type's extent up to.
func (d Datatype) Alignment() int {
	if d.t == nil {
		return 0
	}
	return alignmentOf(d.t.segs)
}

func alignmentOf(segs []run) int {
	a := 0
	for _, s := range segs {
		if s.body != nil {
			a = max(a, alignmentOf(s.body))
			continue
		}
		p := &predefined[s.basic]
		if p.kind == kindComplex {
			a = max(a, p.size/2)
		} else {
			a = max(a, p.size)
		}
	}
	return a
}

// TrueExtent returns the offset of d's first byte of data and the span
// of its data in bytes (MPI_Type_get_true_extent).
func (d Datatype) TrueExtent() (lb, extent int) {
	if d.t == nil {
		return 0, 0
	}
	return d.t.trueLB, d.t.trueUB - d.t.trueLB
}

// Elements returns how many basic elements (predefined types) n bytes of
// d's data hold, Undefined if n ends inside one (MPI_Get_elements).
func (d Datatype) Elements(n int) int {
	if d.t == nil || d.t.bad != "" {
		return Undefined
	}
	return d.t.elements(n)
}

// Binding is the value SetBinding last stored in d, 0 if none: a
// language binding's handle for the type (the C library's), which it
// finds from the type where a callback has only the type to give.
func (d Datatype) Binding() uintptr {
	if d.t == nil || d.t.state == nil {
		return 0
	}
	return d.t.state.binding.Load()
}

// SetBinding stores h in d for Binding. A predefined type keeps none: a
// binding knows its own.
func (d Datatype) SetBinding(h uintptr) {
	if d.t != nil && d.t.state != nil {
		d.t.state.binding.Store(h)
	}
}

// Committed reports whether d may be used in communication: predefined
// types always, derived ones once committed and until freed.
func (d Datatype) Committed() bool {
	return d.t != nil && d.t.bad == "" && (d.t.state == nil || d.t.state.committed.Load() && !d.t.state.freed.Load())
}

// Contiguous reports whether d's data is one block from its origin with
// no gaps: such a type moves without packing.
func (d Datatype) Contiguous() bool { return d.t != nil && !d.t.packs }

// Blocks calls f with the offset and length of each contiguous block of
// data of count elements of d, in type map order, adjacent blocks of
// consecutive elements merged: the iovec list a vectored transport
// (writev, process_vm_readv) takes instead of a packed copy.
func (d Datatype) Blocks(count int, f func(off, n int)) {
	if d.t == nil {
		return
	}
	var cur struct{ off, len int }
	var walk func(rs []run, base, count, extent int)
	walk = func(rs []run, base, count, extent int) {
		for e := range count {
			for _, r := range rs {
				at := base + e*extent + r.off
				if r.body != nil {
					walk(r.body, at, r.n, r.stride)
					continue
				}
				for i := range r.n {
					off := at + i*r.stride
					if cur.len > 0 && cur.off+cur.len == off {
						cur.len += r.len
						continue
					}
					if cur.len > 0 {
						f(cur.off, cur.len)
					}
					cur.off, cur.len = off, r.len
				}
			}
		}
	}
	walk(d.t.blocks, 0, count, d.t.extent)
	if cur.len > 0 {
		f(cur.off, cur.len)
	}
}
