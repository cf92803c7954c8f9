package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gompi/gompi/mpi"
)

func init() {
	scenarios["ddt-p2p"] = ddtP2P
	scenarios["ddt-reduce"] = ddtReduce
	scenarios["ddt-coll"] = ddtColl
	scenarios["ddt-errors"] = ddtErrors
}

// record has padding after Tag and at its end: it is sent field by field.
type record struct {
	Tag  int8
	X    float64
	Pos  [3]int16
	Rank int32
}

func recordsOf(rank, n int) []record {
	r := make([]record, n)
	for i := range r {
		r[i] = record{Tag: int8(i), X: float64(rank*1000 + i), Pos: [3]int16{int16(i), int16(-i), int16(rank)}, Rank: int32(rank)}
	}
	return r
}

// grid is a rows×cols matrix whose element i is base+i.
func grid(rows, cols int, base float64) []float64 {
	g := make([]float64, rows*cols)
	for i := range g {
		g[i] = base + float64(i)
	}
	return g
}

// ddtCase is one layout sent around the ring: want lists the indices of
// the sender's grid, in order, that one element of the layout holds.
type ddtCase struct {
	name  string
	l     mpi.Layout[float64]
	count int
	want  []int
}

func ddtCases(rows, cols int) ([]ddtCase, error) {
	var errs []error
	mk := func(l mpi.Layout[float64], err error) mpi.Layout[float64] {
		errs = append(errs, err)
		return l
	}
	col := mk(mpi.Vector[float64](rows, 1, cols))
	colIdx := func(j int) []int {
		var v []int
		for i := range rows {
			v = append(v, i*cols+j)
		}
		return v
	}
	rev := mk(mpi.Vector[float64](3, 1, -2))
	sub := mk(mpi.Subarray[float64]([]int{2, 3, 4}, []int{1, 2, 2}, []int{1, 1, 2}, mpi.OrderC))
	subF := mk(mpi.Subarray[float64]([]int{2, 3, 4}, []int{1, 2, 2}, []int{1, 1, 2}, mpi.OrderFortran))
	var colsIdx []int
	for j := range 3 {
		colsIdx = append(colsIdx, colIdx(j)...)
	}
	cases := []ddtCase{
		{"column", col, 1, colIdx(0)},
		// Three consecutive columns: the column resized to one element.
		{"resized columns", mk(col.Resized(0, 8)), 3, colsIdx},
		{"negative stride", mk(rev.Hindexed([]int{1}, []int{32})), 1, []int{4, 2, 0}},
		{"indexed unsorted", mk(mpi.Indexed[float64]([]int{2, 1, 3}, []int{9, 0, 4})), 1, []int{9, 10, 0, 4, 5, 6}},
		{"indexed block", mk(mpi.IndexedBlock[float64](2, []int{7, 3})), 1, []int{7, 8, 3, 4}},
		{"subarray C", sub, 2, []int{18, 19, 22, 23, 42, 43, 46, 47}},
		{"subarray Fortran", subF, 1, []int{15, 17, 21, 23}},
		{"hvector", mk(mpi.Hvector[float64](3, 2, 40)), 1, []int{0, 1, 5, 6, 10, 11}},
		{"contiguous", mk(mpi.Contiguous[float64](5)), 2, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	return cases, errors.Join(errs...)
}

// ddtP2P sends every layout around the ring (to itself with one rank),
// blocking, non-blocking and Sendrecv, and receives it once with the same
// layout and once as plain numbers: the packed form does not depend on
// the layout. A large column crosses the rendezvous protocol.
func ddtP2P(w mpi.Comm) error {
	if err := w.SetErrorHandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	me, n := w.Rank(), w.Size()
	right, left := (me+1)%n, (me-1+n)%n
	const rows, cols = 40, 24
	cases, err := ddtCases(rows, cols)
	if err != nil {
		return err
	}
	for ci, c := range cases {
		src := grid(rows, cols, float64(me*100000))
		off := 0
		if c.name == "column" {
			off = 2 // column 2: the layout's origin at the grid's third element
		}
		want := make([]float64, 0, len(c.want))
		for _, i := range c.want {
			want = append(want, float64(left*100000+off+i))
		}
		tag := ci * 4
		// Non-blocking send, received with the layout.
		dst := make([]float64, rows*cols)
		r, err := mpi.IsendLayout(src[off:], c.count, c.l, right, tag, w)
		if err != nil {
			return fmt.Errorf("%s: isend: %w", c.name, err)
		}
		st, err := mpi.RecvLayout(dst[off:], c.count, c.l, left, tag, w)
		if err != nil {
			return fmt.Errorf("%s: recv: %w", c.name, err)
		}
		if _, err := r.Wait(); err != nil {
			return fmt.Errorf("%s: isend wait: %w", c.name, err)
		}
		if st.Count != c.count || c.l.Count(st) != c.count || c.l.Elements(st) != len(want) {
			return fmt.Errorf("%s: count %d, elements %d, want %d and %d", c.name, st.Count, c.l.Elements(st), c.count, len(want))
		}
		if err := checkPlaced(dst, off, c.want, want); err != nil {
			return fmt.Errorf("%s: recv with the layout: %w", c.name, err)
		}
		// Irecv as plain numbers, then Sendrecv both ways with layouts.
		flat := make([]float64, len(want))
		rr, err := mpi.Irecv(flat, left, tag+1, w)
		if err != nil {
			return err
		}
		send := mpi.SendLayout[float64]
		if ci%2 == 1 {
			send = mpi.SsendLayout[float64]
		}
		if err := send(src[off:], c.count, c.l, right, tag+1, w); err != nil {
			return fmt.Errorf("%s: send: %w", c.name, err)
		}
		if _, err := rr.Wait(); err != nil {
			return fmt.Errorf("%s: irecv as numbers: %w", c.name, err)
		}
		if !slices.Equal(flat, want) {
			return fmt.Errorf("%s: received as numbers %v, want %v", c.name, flat, want)
		}
		dst2 := make([]float64, rows*cols)
		if _, err := mpi.SendrecvLayout(src[off:], c.count, c.l, right, tag+2, dst2[off:], c.count, c.l, left, tag+2, w); err != nil {
			return fmt.Errorf("%s: sendrecv: %w", c.name, err)
		}
		if err := checkPlaced(dst2, off, c.want, want); err != nil {
			return fmt.Errorf("%s: sendrecv: %w", c.name, err)
		}
		if err := ddtMatched(w, c, ci, src[off:], off, want, tag+3); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	// A column of a large grid: above every eager limit. Irecv, WaitAll.
	const bigRows, bigCols = 20000, 8
	col, err := mpi.Vector[float64](bigRows, 1, bigCols)
	if err != nil {
		return err
	}
	src, dst := grid(bigRows, bigCols, float64(me)), make([]float64, bigRows*bigCols)
	rr, err := mpi.IrecvLayout(dst[3:], 1, col, left, 900, w)
	if err != nil {
		return err
	}
	sr, err := mpi.IssendLayout(src[3:], 1, col, right, 900, w)
	if err != nil {
		return err
	}
	// Freed while both are pending: they finish with it.
	if err := col.Free(); err != nil {
		return err
	}
	if err := mpi.WaitAll(rr, sr); err != nil {
		return fmt.Errorf("large column: %w", err)
	}
	for i := range bigRows {
		for j := range bigCols {
			want := 0.0
			if j == 3 {
				want = float64(left + i*bigCols + j)
			}
			if dst[i*bigCols+j] != want {
				return fmt.Errorf("large column: element (%d,%d) = %v, want %v", i, j, dst[i*bigCols+j], want)
			}
		}
	}
	if err := mpi.SendLayout(src, 1, col, right, 901, w); !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "was freed") {
		return fmt.Errorf("send with a freed layout: %v, want ErrType", err)
	}
	// A slice of a padded Go struct, sent as it is.
	recs := recordsOf(me, 5)
	got := make([]record, 5)
	if _, err := mpi.Sendrecv(recs, right, 902, got, left, 902, w); err != nil {
		return fmt.Errorf("records: %w", err)
	}
	if !slices.Equal(got, recordsOf(left, 5)) {
		return fmt.Errorf("records: got %+v, want %+v", got, recordsOf(left, 5))
	}
	// Blocks of 8 KiB, and of 1 MiB: what a single-copy sender exposes.
	if err := longBlocks(w, right, left, 40, 1024); err != nil {
		return err
	}
	if err := longBlocks(w, right, left, 2, 1<<17); err != nil {
		return err
	}
	// Enough records for many fragments, which end inside a record's
	// packed bytes.
	many, gotMany := recordsOf(me, 30000), make([]record, 30000)
	if _, err := mpi.Sendrecv(many, right, 904, gotMany, left, 904, w); err != nil {
		return fmt.Errorf("many records: %w", err)
	}
	if want := recordsOf(left, len(many)); !slices.Equal(gotMany, want) {
		return fmt.Errorf("many records: received ones differ from those sent")
	}
	// TypeStruct over raw bytes: a float64 at 0 and two int32 at 12.
	st, err := mpi.TypeStruct[byte](mpi.StructBlock{Count: 1, Disp: 0, Type: mpi.TypeOf[float64]()},
		mpi.StructBlock{Count: 2, Disp: 12, Type: mpi.TypeOf[int32]()})
	if err != nil {
		return err
	}
	raw := make([]byte, 20)
	for i := range raw {
		raw[i] = byte(me*20 + i)
	}
	in := make([]byte, 20)
	if _, err := mpi.SendrecvLayout(raw, 1, st, right, 903, in, 1, st, left, 903, w); err != nil {
		return fmt.Errorf("struct over bytes: %w", err)
	}
	for i := range in {
		want := byte(left*20 + i)
		if i >= 8 && i < 12 {
			want = 0 // the gap is not sent
		}
		if in[i] != want {
			return fmt.Errorf("struct over bytes: byte %d = %d, want %d", i, in[i], want)
		}
	}
	return ddtFreed(w)
}

// ddtFreed frees a send with a layout while it is active and sends plain
// numbers next, which may reuse its request: the layout's message arrives
// whole, and the next one carries nothing of it: a short column, and one
// of 40,000 bytes, past sm's eager limit.
func ddtFreed(w mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	right, left := (me+1)%n, (me-1+n)%n
	const cols = 4
	for _, rows := range []int{8, 5000} {
		col, err := mpi.Vector[float64](rows, 1, cols)
		if err != nil {
			return err
		}
		src, dst := grid(rows, cols, float64(me*100000)), make([]float64, rows*cols)
		sr, err := mpi.IsendLayout(src, 1, col, right, 910, w)
		if err != nil {
			return fmt.Errorf("freed send of %d rows: %w", rows, err)
		}
		if err := sr.Free(); err != nil {
			return fmt.Errorf("freed send of %d rows: free: %w", rows, err)
		}
		nums := make([]float64, rows)
		for i := range nums {
			nums[i] = -float64(me*1000 + i)
		}
		pr, err := mpi.Isend(nums, right, 911, w)
		if err != nil {
			return fmt.Errorf("send after a freed one: %w", err)
		}
		if _, err := mpi.RecvLayout(dst, 1, col, left, 910, w); err != nil {
			return fmt.Errorf("freed send of %d rows: recv: %w", rows, err)
		}
		idx, want := make([]int, rows), make([]float64, rows)
		for i := range rows {
			idx[i], want[i] = i*cols, float64(left*100000+i*cols)
		}
		if err := checkPlaced(dst, 0, idx, want); err != nil {
			return fmt.Errorf("freed send of %d rows: %w", rows, err)
		}
		got := make([]float64, rows)
		if _, err := mpi.Recv(got, left, 911, w); err != nil {
			return fmt.Errorf("send after a freed one of %d rows: recv: %w", rows, err)
		}
		for i := range got {
			if got[i] != -float64(left*1000+i) {
				return fmt.Errorf("send after a freed one of %d rows: number %d = %v, want %v", rows, i, got[i], -float64(left*1000+i))
			}
		}
		if _, err := pr.Wait(); err != nil {
			return fmt.Errorf("send after a freed one: wait: %w", err)
		}
		if err := col.Free(); err != nil {
			return err
		}
	}
	return nil
}

// ddtMatched sends src with c's layout to the right and takes the message
// from the left with a matched probe, received with the layout: blocking
// for even cases, non-blocking for odd ones.
func ddtMatched(w mpi.Comm, c ddtCase, ci int, src []float64, off int, want []float64, tag int) error {
	me, n := w.Rank(), w.Size()
	right, left := (me+1)%n, (me-1+n)%n
	sr, err := mpi.IsendLayout(src, c.count, c.l, right, tag, w)
	if err != nil {
		return fmt.Errorf("isend: %w", err)
	}
	msg, pst, err := mpi.Mprobe(left, tag, w)
	if err != nil {
		return fmt.Errorf("mprobe: %w", err)
	}
	if got := mpi.GetCount[float64](pst); got != len(want) {
		return fmt.Errorf("mprobe: %d numbers, want %d", got, len(want))
	}
	dst := make([]float64, len(src)+off)
	var st mpi.Status
	if ci%2 == 0 {
		st, err = mpi.MrecvLayout(dst[off:], c.count, c.l, &msg)
	} else {
		var r mpi.Request
		if r, err = mpi.ImrecvLayout(dst[off:], c.count, c.l, &msg); err == nil {
			st, err = r.Wait()
		}
	}
	if err != nil {
		return fmt.Errorf("matched receive with the layout: %w", err)
	}
	if msg != mpi.MessageNull || c.l.Count(st) != c.count {
		return fmt.Errorf("matched receive: message %v, count %d, want MessageNull and %d", msg, c.l.Count(st), c.count)
	}
	if _, err := sr.Wait(); err != nil {
		return fmt.Errorf("isend wait: %w", err)
	}
	return checkPlaced(dst, off, c.want, want)
}

// checkPlaced checks that dst[off:] holds want at the indices idx and
// zero everywhere else.
func checkPlaced(dst []float64, off int, idx []int, want []float64) error {
	expect := make([]float64, len(dst))
	for k, i := range idx {
		expect[off+i] = want[k]
	}
	for i := range dst {
		if dst[i] != expect[i] {
			return fmt.Errorf("element %d = %v, want %v", i, dst[i], expect[i])
		}
	}
	return nil
}

// welford is a running count, mean and sum of squared deviations.
type welford struct {
	N    int64
	Mean float64
	M2   float64
}

func (a welford) merge(b welford) welford {
	n := a.N + b.N
	if n == 0 {
		return a
	}
	d := b.Mean - a.Mean
	return welford{n, a.Mean + d*float64(b.N)/float64(n), a.M2 + b.M2 + d*d*float64(a.N)*float64(b.N)/float64(n)}
}

// affine is x -> A*x + B, with padding after A: composing is not
// commutative, so the operation must see whole values in rank order.
type affine struct {
	A float32
	B float64
}

// then is g∘f: f first, then g.
func (f affine) then(g affine) affine { return affine{g.A * f.A, float64(g.A)*f.B + g.B} }

// ddtReduce reduces struct slices with user operations, across ranks:
// Welford triples with Allreduce, non-commutative affine maps with
// Reduce (padded, so packed), and Sum over a struct of one number type.
func ddtReduce(w mpi.Comm) error {
	if err := w.SetErrorHandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	me, n := w.Rank(), w.Size()
	const k = 3
	data := func(r, i int) []float64 { return []float64{float64(r + i), float64(r*r + 2*i), float64(3*r - i)} }
	mine := make([]welford, k)
	for i := range mine {
		for _, x := range data(me, i) {
			mine[i] = mine[i].merge(welford{1, x, 0})
		}
	}
	op, err := mpi.NewOp(func(in, inout []welford) {
		for i := range inout {
			inout[i] = in[i].merge(inout[i])
		}
	}, true)
	if err != nil {
		return err
	}
	got := make([]welford, k)
	if err := mpi.Allreduce(mine, got, op, w); err != nil {
		return fmt.Errorf("welford allreduce: %w", err)
	}
	for i := range k {
		var all []float64
		for r := range n {
			all = append(all, data(r, i)...)
		}
		mean, m2 := 0.0, 0.0
		for _, x := range all {
			mean += x
		}
		mean /= float64(len(all))
		for _, x := range all {
			m2 += (x - mean) * (x - mean)
		}
		if got[i].N != int64(len(all)) || math.Abs(got[i].Mean-mean) > 1e-9 || math.Abs(got[i].M2-m2) > 1e-6 {
			return fmt.Errorf("welford %d: %+v, want n %d mean %v m2 %v", i, got[i], len(all), mean, m2)
		}
	}

	fs := []affine{{float32(me + 2), float64(me)}, {1, float64(-me)}}
	compose, err := mpi.NewOp(func(in, inout []affine) {
		for i := range inout {
			inout[i] = in[i].then(inout[i]) // lower ranks' maps first
		}
	}, false)
	if err != nil {
		return err
	}
	var res []affine
	if me == 0 {
		res = make([]affine, len(fs))
	}
	if err := mpi.Reduce(fs, res, compose, 0, w); err != nil {
		return fmt.Errorf("affine reduce: %w", err)
	}
	if me == 0 {
		for i := range fs {
			want := affine{1, 0}
			for r := range n {
				f := []affine{{float32(r + 2), float64(r)}, {1, float64(-r)}}[i]
				want = want.then(f)
			}
			if res[i] != want {
				return fmt.Errorf("affine %d: %+v, want %+v", i, res[i], want)
			}
		}
	}

	type vec3 struct {
		X float64
		V [2]float64
	}
	sum := make([]vec3, 2)
	if err := mpi.Allreduce([]vec3{{1, [2]float64{float64(me), 2}}, {3, [2]float64{4, 5}}}, sum, mpi.Sum, w); err != nil {
		return fmt.Errorf("sum of vec3: %w", err)
	}
	if want := []vec3{{float64(n), [2]float64{float64(n * (n - 1) / 2), float64(2 * n)}}, {float64(3 * n), [2]float64{float64(4 * n), float64(5 * n)}}}; !slices.Equal(sum, want) {
		return fmt.Errorf("sum of vec3: %v, want %v", sum, want)
	}
	// Max over column 1 of a 5×3 grid: only that column changes.
	col, err := mpi.Vector[float64](5, 1, 3)
	if err != nil {
		return err
	}
	g, out := grid(5, 3, float64(10*me)), make([]float64, 15)
	if err := mpi.AllreduceLayout(g[1:], out[1:], 1, col, mpi.Max, w); err != nil {
		return fmt.Errorf("max over a column: %w", err)
	}
	var atRoot []float64
	if me == 0 {
		atRoot = make([]float64, 15)
	}
	if err := mpi.ReduceLayout(g[1:], atRoot[min(1, len(atRoot)):], 1, col, mpi.Max, 0, w); err != nil {
		return fmt.Errorf("reduce max over a column: %w", err)
	}
	if me == 0 && !slices.Equal(atRoot, out) {
		return fmt.Errorf("reduce max over a column: %v, want %v", atRoot, out)
	}
	for i := range out {
		want := 0.0
		if i%3 == 1 {
			want = float64(10*(n-1) + i)
		}
		if out[i] != want {
			return fmt.Errorf("max over a column: element %d = %v, want %v", i, out[i], want)
		}
	}
	if err := mpi.Allreduce(fs, make([]affine, 2), mpi.Sum, w); !errors.Is(err, mpi.ErrOp) || !strings.Contains(err.Error(), "mix basic types") {
		return fmt.Errorf("sum over a mixed struct: %v, want ErrOp", err)
	}
	return nil
}

// ddtColl uses layouts in collectives: each rank's block of columns
// gathered into its place in the root's array by a subarray layout, the
// same scattered back, a column broadcast, structs allgathered (and
// gathered with per-rank counts, packed), and alltoall of columns.
func ddtColl(w mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	const rows, width = 6, 3
	cols := n * width
	// Rank r's block: rows×width, element (i, j) = 1000*r + 10*i + j.
	block := make([]float64, rows*width)
	for i := range rows {
		for j := range width {
			block[i*width+j] = float64(1000*me + 10*i + j)
		}
	}
	sub, err := mpi.Subarray[float64]([]int{rows, cols}, []int{rows, width}, []int{0, 0}, mpi.OrderC)
	if err != nil {
		return err
	}
	// Resized to width elements: rank r's block lands at column r*width.
	place, err := sub.Resized(0, width*8)
	if err != nil {
		return err
	}
	whole := mpi.LayoutOf[float64]()
	var global []float64
	if me == 0 {
		global = make([]float64, rows*cols)
	}
	if err := mpi.GatherLayout(block, rows*width, whole, global, 1, place, 0, w); err != nil {
		return fmt.Errorf("gather of subarrays: %w", err)
	}
	if me == 0 {
		for i := range rows {
			for j := range cols {
				r, jj := j/width, j%width
				if want := float64(1000*r + 10*i + jj); global[i*cols+j] != want {
					return fmt.Errorf("gathered (%d,%d) = %v, want %v", i, j, global[i*cols+j], want)
				}
			}
		}
	}
	back := make([]float64, rows*width)
	if err := mpi.ScatterLayout(global, 1, place, back, rows*width, whole, 0, w); err != nil {
		return fmt.Errorf("scatter of subarrays: %w", err)
	}
	if !slices.Equal(back, block) {
		return fmt.Errorf("scattered back %v, want %v", back, block)
	}
	all := make([]float64, rows*cols)
	if err := mpi.AllgatherLayout(block, rows*width, whole, all, 1, place, w); err != nil {
		return fmt.Errorf("allgather of subarrays: %w", err)
	}
	for i := range rows {
		for j := range cols {
			if want := float64(1000*(j/width) + 10*i + j%width); all[i*cols+j] != want {
				return fmt.Errorf("allgathered (%d,%d) = %v, want %v", i, j, all[i*cols+j], want)
			}
		}
	}

	// Bcast a column: only it changes elsewhere.
	col, err := mpi.Vector[float64](rows, 1, width)
	if err != nil {
		return err
	}
	b := make([]float64, rows*width)
	if me == 0 {
		for i := range rows {
			b[i*width+1] = float64(10*i + 1)
		}
	}
	if err := mpi.BcastLayout(b[1:], 1, col, 0, w); err != nil {
		return fmt.Errorf("bcast of a column: %w", err)
	}
	for i := range rows {
		for j := range width {
			want := 0.0
			if j == 1 {
				want = float64(10*i + j)
			}
			if b[i*width+j] != want {
				return fmt.Errorf("bcast: (%d,%d) = %v, want %v", i, j, b[i*width+j], want)
			}
		}
	}

	// Allgather of padded records.
	recs := make([]record, 2*n)
	if err := mpi.Allgather(recordsOf(me, 2), recs, w); err != nil {
		return fmt.Errorf("allgather of records: %w", err)
	}
	for r := range n {
		if !slices.Equal(recs[2*r:2*r+2], recordsOf(r, 2)) {
			return fmt.Errorf("allgather of records: rank %d's %+v", r, recs[2*r:2*r+2])
		}
	}

	// Allgatherv and Gatherv of padded records, rank r's r+1 records
	// after a gap of one that stays untouched.
	counts, displs := make([]int, n), make([]int, n)
	end := 0
	for r := range n {
		counts[r], displs[r] = r+1, end+1
		end += r + 2
	}
	gapped := make([]record, end)
	if err := mpi.Allgatherv(recordsOf(me, me+1), gapped, counts, displs, w); err != nil {
		return fmt.Errorf("allgatherv of records: %w", err)
	}
	var rooted []record
	if me == 0 {
		rooted = make([]record, end)
	}
	if err := mpi.Gatherv(recordsOf(me, me+1), rooted, counts, displs, 0, w); err != nil {
		return fmt.Errorf("gatherv of records: %w", err)
	}
	for r := range n {
		got := gapped[displs[r] : displs[r]+counts[r]]
		if gapped[displs[r]-1] != (record{}) || !slices.Equal(got, recordsOf(r, r+1)) {
			return fmt.Errorf("allgatherv of records: rank %d's block %+v after %+v", r, got, gapped[displs[r]-1])
		}
		if me == 0 && !slices.Equal(rooted[displs[r]:displs[r]+counts[r]], got) {
			return fmt.Errorf("gatherv of records: rank %d's block %+v", r, rooted[displs[r]:displs[r]+counts[r]])
		}
	}

	// Alltoall: column r of a rows×n grid goes to rank r, into a column
	// of the receiver's rows×n grid.
	c, err := mpi.Vector[float64](rows, 1, n)
	if err != nil {
		return err
	}
	colStep, err := c.Resized(0, 8)
	if err != nil {
		return err
	}
	send, recv := grid(rows, n, float64(100*me)), make([]float64, rows*n)
	if err := mpi.AlltoallLayout(send, 1, colStep, recv, 1, colStep, w); err != nil {
		return fmt.Errorf("alltoall of columns: %w", err)
	}
	for i := range rows {
		for r := range n {
			if want := float64(100*r + i*n + me); recv[i*n+r] != want {
				return fmt.Errorf("alltoall: (%d,%d) = %v, want %v", i, r, recv[i*n+r], want)
			}
		}
	}
	return nil
}

// ddtErrors: truncation, a signature mismatch, a partial element, and
// the errors a bad layout or buffer gives, between ranks 0 and 1.
func ddtErrors(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	if err := w.SetErrorHandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	type bad struct {
		X    float64
		Name string
	}
	if err := mpi.Send(make([]bad, 1), 1-w.Rank(), 0, w); !errors.Is(err, mpi.ErrType) ||
		!strings.Contains(err.Error(), "element type main.bad: field Name is a string; allowed: fixed-size numbers, arrays and structs of them") {
		return fmt.Errorf("send of a struct with a string: %v", err)
	}
	col, err := mpi.Vector[float64](4, 1, 3)
	if err != nil {
		return err
	}
	if err := mpi.SendLayout(make([]float64, 9), 1, col, 1-w.Rank(), 0, w); !errors.Is(err, mpi.ErrBuffer) || !strings.Contains(err.Error(), "they need 80 bytes") {
		return fmt.Errorf("send from a short buffer: %v", err)
	}
	if _, err := mpi.Vector[float64](-1, 1, 3); !errors.Is(err, mpi.ErrCount) {
		return fmt.Errorf("negative count: %v", err)
	}
	if _, err := mpi.Vector[float64](2, -1, 3); !errors.Is(err, mpi.ErrArg) {
		return fmt.Errorf("negative block length: %v", err)
	}
	type pt struct {
		X float64
		N int32
	}
	if w.Rank() == 0 {
		// Three records to a receiver with room for two.
		if err := mpi.Send([]pt{{1, 1}, {2, 2}, {3, 3}}, 1, 1, w); err != nil {
			return err
		}
		// 12 bytes to a receiver of float64s: no whole number of them.
		if err := mpi.Send([]int32{1, 2, 3}, 1, 2, w); err != nil {
			return err
		}
		// A record and a half: the receiver's count is undefined.
		half, err := mpi.TypeStruct[byte](mpi.StructBlock{Count: 1, Disp: 0, Type: mpi.TypeOf[float64]()},
			mpi.StructBlock{Count: 1, Disp: 8, Type: mpi.TypeOf[int32]()},
			mpi.StructBlock{Count: 1, Disp: 16, Type: mpi.TypeOf[float64]()})
		if err != nil {
			return err
		}
		return mpi.SendLayout(make([]byte, 24), 1, half, 1, 3, w)
	}
	got := make([]pt, 2)
	st, err := mpi.Recv(got, 0, 1, w)
	if !errors.Is(err, mpi.ErrTruncate) || got[1] != (pt{2, 2}) {
		return fmt.Errorf("truncated records: %v, %+v (status %+v)", err, got, st)
	}
	type two struct{ A, B float64 }
	if _, err := mpi.Recv(make([]two, 1), 0, 2, w); !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "12 bytes does not end on a basic element") {
		return fmt.Errorf("signature mismatch: %v", err)
	}
	recs := make([]pt, 2)
	st, err = mpi.Recv(recs, 0, 3, w)
	if err != nil {
		return fmt.Errorf("a record and a half: %v", err)
	}
	l := mpi.LayoutOf[pt]()
	if st.Count != mpi.Undefined || l.Elements(st) != 3 {
		return fmt.Errorf("a record and a half: count %d elements %d", st.Count, l.Elements(st))
	}
	return nil
}

// longBlocks sends layouts of n blocks of blen float64, long enough to
// move where they lie (writev and readv over tcp, cross-memory attach
// over sm): to a layout of other strides, to plain numbers and from them.
func longBlocks(w mpi.Comm, right, left, n, blen int) error {
	me := w.Rank()
	send, err := mpi.Vector[float64](n, blen, blen+100)
	if err != nil {
		return err
	}
	recv, err := mpi.Vector[float64](n, blen, blen+7)
	if err != nil {
		return err
	}
	values := func(rank int) []float64 {
		v := make([]float64, n*blen)
		for i := range v {
			v[i] = float64(rank*10000000 + i)
		}
		return v
	}
	spread := func(stride int, v []float64) []float64 {
		g := make([]float64, (n-1)*stride+blen)
		for b := range n {
			copy(g[b*stride:], v[b*blen:(b+1)*blen])
		}
		return g
	}
	src, want := spread(blen+100, values(me)), spread(blen+7, values(left))
	got := make([]float64, len(want))
	if _, err := mpi.SendrecvLayout(src, 1, send, right, 910, got, 1, recv, left, 910, w); err != nil {
		return fmt.Errorf("long blocks: %w", err)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("long blocks: received into a layout wrong")
	}
	flat := make([]float64, n*blen)
	if _, err := mpi.SendrecvLayout(src, 1, send, right, 911, flat, n*blen, mpi.LayoutOf[float64](), left, 911, w); err != nil {
		return fmt.Errorf("long blocks to numbers: %w", err)
	}
	if !slices.Equal(flat, values(left)) {
		return fmt.Errorf("long blocks: received as numbers wrong")
	}
	clear(got)
	if _, err := mpi.SendrecvLayout(values(me), n*blen, mpi.LayoutOf[float64](), right, 912, got, 1, recv, left, 912, w); err != nil {
		return fmt.Errorf("numbers to long blocks: %w", err)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("numbers received into long blocks wrong")
	}
	return nil
}
