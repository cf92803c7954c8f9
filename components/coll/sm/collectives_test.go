package sm

import (
	"bytes"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

type kind int

const (
	kBarrier kind = iota
	kBcast
	kReduce
	kAllreduce
	kGather
	kScatter
	kAllgather
	kAlltoall
	kAllgatherv
	kReduceScatter
	kReduceScatterBlock
	kScan
	kExscan
	nKinds
)

var kindNames = [...]string{"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall",
	"allgatherv", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"}

func (k kind) String() string { return kindNames[k] }

func (k kind) rooted() bool { return k == kBcast || k == kReduce || k == kGather || k == kScatter }

// reduction: the call takes an operation, and its size is in elements.
func (k kind) reduction() bool {
	switch k {
	case kReduce, kAllreduce, kReduceScatter, kReduceScatterBlock, kScan, kExscan:
		return true
	}
	return false
}

// call is one collective call, alike on every rank. size is in bytes:
// bcast's buffer, gather's and allgather's send, scatter's and
// alltoall's block, allgatherv's largest count (see vLayout); in elements
// for the reductions: the whole vector, but reduce_scatter_block's block
// (reduce_scatter's counts: see rsCounts).
type call struct {
	k    kind
	root int
	size int
	op   colltest.OpCase
	seed int
}

func (x call) String() string {
	s := fmt.Sprintf("%v/root%d/size%d", x.k, x.root, x.size)
	if x.k.reduction() {
		s += "/" + x.op.Name
	}
	return s
}

// contribution is the bytes a rank puts through the segment, which
// decides whether sm serves the call.
func (x call) contribution(n int) int {
	switch x.k {
	case kBarrier:
		return 0
	case kReduce, kAllreduce, kReduceScatter, kScan, kExscan:
		return x.size * x.op.Op.ElemSize()
	case kReduceScatterBlock:
		return n * x.size * x.op.Op.ElemSize()
	case kScatter, kAlltoall:
		return n * x.size
	}
	return x.size // allgatherv: the largest count, which decides
}

// do runs x on rank r through tab and checks the result against a
// reference computed sequentially from every rank's input.
func (x call) do(tab *coll.Table, c coll.Comm, r, n int) error {
	switch x.k {
	case kBarrier:
		return tab.Barrier(c)
	case kBcast:
		want := colltest.Data(x.seed, x.root, x.size)
		buf := make([]byte, x.size)
		defer scribble(buf)
		if r == x.root {
			copy(buf, want)
		}
		if err := tab.Bcast(c, buf, x.root); err != nil {
			return err
		}
		return colltest.ExpectEqual(buf, want, x.String(), r)
	case kReduce, kAllreduce:
		in := colltest.Inputs(n, func(q int) []byte { return x.op.Input(x.seed, q, x.size) })
		send := bytes.Clone(in[r])
		var recv []byte // nil off the root
		if x.k == kAllreduce || r == x.root {
			recv = make([]byte, len(send))
		}
		defer scribble(send)
		defer scribble(recv)
		var err error
		if x.k == kReduce {
			err = tab.Reduce(c, send, recv, x.op.Op, x.root)
		} else {
			err = tab.Allreduce(c, send, recv, x.op.Op)
		}
		if err != nil {
			return err
		}
		if err := colltest.ExpectEqual(send, in[r], x.String()+" send buffer", r); err != nil {
			return err
		}
		if recv != nil {
			return colltest.ExpectEqual(recv, colltest.Fold(x.op.Op, in), x.String(), r)
		}
		return nil
	case kGather, kAllgather:
		send := colltest.Data(x.seed, r, x.size)
		defer scribble(send)
		var recv []byte
		if x.k == kAllgather || r == x.root {
			recv = make([]byte, n*x.size)
		}
		var err error
		if x.k == kGather {
			err = tab.Gather(c, send, recv, x.root)
		} else {
			err = tab.Allgather(c, send, recv)
		}
		if err != nil || recv == nil {
			return err
		}
		return colltest.ExpectEqual(recv, bytes.Join(colltest.Inputs(n, func(q int) []byte { return colltest.Data(x.seed, q, x.size) }), nil), x.String(), r)
	case kScatter:
		all := colltest.Data(x.seed, x.root, n*x.size)
		var send []byte // nil off the root
		if r == x.root {
			send = bytes.Clone(all)
		}
		defer scribble(send)
		recv := make([]byte, x.size)
		if err := tab.Scatter(c, send, recv, x.root); err != nil {
			return err
		}
		return colltest.ExpectEqual(recv, all[r*x.size:(r+1)*x.size], x.String(), r)
	case kAlltoall:
		send := colltest.Data(x.seed, r, n*x.size)
		defer scribble(send)
		recv := make([]byte, n*x.size)
		if err := tab.Alltoall(c, send, recv); err != nil {
			return err
		}
		want := make([]byte, 0, n*x.size)
		for q := range n {
			want = append(want, colltest.Data(x.seed, q, n*x.size)[r*x.size:(r+1)*x.size]...)
		}
		return colltest.ExpectEqual(recv, want, x.String(), r)
	case kAllgatherv:
		return x.allgatherv(tab, c, r, n)
	case kReduceScatter, kReduceScatterBlock, kScan, kExscan:
		return x.scatterOrScan(tab, c, r, n)
	}
	return fmt.Errorf("no collective %d", x.k)
}

// scribble overwrites a buffer once its call returned, as a program may:
// a rank that left while others still read its buffer shows as a wrong
// result on theirs.
func scribble(b []byte) {
	for i := range b {
		b[i] ^= 0xa5
	}
}

// vLayout is allgatherv's blocks for n ranks whose largest count is most
// bytes: uneven, rank seed%n's most, others most, empty or in between
// (rank (seed+1)%n's empty but on 2 ranks with an even seed); laid out
// in decreasing rank order, with a byte's gap after every other block,
// and an empty block, if any, at the very end of recv (a displacement
// equal to recv's length). size is recv's length.
func vLayout(n, most, seed int) (counts, displs []int, size int) {
	counts = make([]int, n)
	for q := range counts {
		switch (q + seed) % 3 {
		case 0:
			counts[q] = most
		case 2:
			counts[q] = most * (q + 1) / (n + 1)
		}
	}
	if n > 2 || seed%2 == 1 {
		counts[(seed+1)%n] = 0
	}
	counts[seed%n] = most
	displs = make([]int, n)
	for i := range n {
		q := n - 1 - i
		displs[q] = size
		size += counts[q] + i%2
	}
	size++
	for i := range n {
		if q := (seed + 1 + i) % n; counts[q] == 0 {
			displs[q] = size
			break
		}
	}
	return counts, displs, size
}

// rsCounts is reduce_scatter's counts in bytes for a vector of elems
// elements of es bytes: the ranks with (rank+seed)%3 == 1 get nothing,
// the others, from rank seed%n on, half of what is left (the last all of
// it), so that the counts are uneven and some are zero.
func rsCounts(n, elems, es, seed int) []int {
	var takers []int
	for i := range n {
		if q := (seed + i) % n; (q+seed)%3 != 1 {
			takers = append(takers, q)
		}
	}
	counts := make([]int, n)
	left := elems
	for i, q := range takers {
		k := left
		if i < len(takers)-1 {
			k = (left + 1) / 2
		}
		counts[q] = k * es
		left -= k
	}
	return counts
}

// allgatherv checks the blocks against every rank's input and the gaps
// between them against what recv held before.
func (x call) allgatherv(tab *coll.Table, c coll.Comm, r, n int) error {
	counts, displs, size := vLayout(n, x.size, x.seed)
	send := colltest.Data(x.seed, r, counts[r])
	recv := colltest.Data(x.seed+1000, n+r, size) // the gaps must keep it
	want := bytes.Clone(recv)
	for q := range n {
		copy(want[displs[q]:], colltest.Data(x.seed, q, counts[q]))
	}
	cs, ds := slices.Clone(counts), slices.Clone(displs)
	if err := tab.Allgatherv(c, send, recv, counts, displs); err != nil {
		return err
	}
	if !slices.Equal(cs, counts) || !slices.Equal(ds, displs) {
		return fmt.Errorf("%v at rank %d: counts %v and displs %v changed to %v and %v", x, r, cs, ds, counts, displs)
	}
	if err := colltest.ExpectEqual(send, colltest.Data(x.seed, r, counts[r]), x.String()+" send buffer", r); err != nil {
		return err
	}
	return colltest.ExpectEqual(recv, want, x.String(), r)
}

// scatterOrScan runs reduce_scatter, reduce_scatter_block, scan or
// exscan and checks the result against a sequential fold in rank order;
// exscan's rank 0 must find its recv as it was.
func (x call) scatterOrScan(tab *coll.Table, c coll.Comm, r, n int) error {
	op, es := x.op.Op, x.op.Op.ElemSize()
	elems := x.size
	if x.k == kReduceScatterBlock {
		elems = n * x.size
	}
	in := colltest.Inputs(n, func(q int) []byte { return x.op.Input(x.seed, q, elems) })
	send := bytes.Clone(in[r])
	var recv, want []byte
	var err error
	switch x.k {
	case kReduceScatter:
		counts := rsCounts(n, x.size, es, x.seed)
		lo := 0
		for _, k := range counts[:r] {
			lo += k
		}
		recv = make([]byte, counts[r])
		want = colltest.Fold(op, in)[lo : lo+counts[r]]
		err = tab.ReduceScatter(c, send, recv, counts, op)
	case kReduceScatterBlock:
		k := x.size * es
		recv = make([]byte, k)
		want = colltest.Fold(op, in)[r*k : (r+1)*k]
		err = tab.ReduceScatterBlock(c, send, recv, op)
	case kScan:
		recv = make([]byte, len(send))
		want = colltest.Fold(op, in[:r+1])
		err = tab.Scan(c, send, recv, op)
	case kExscan:
		recv = colltest.Data(x.seed+1000, n+r, len(send))
		if r == 0 {
			want = bytes.Clone(recv) // left as it was
		} else {
			want = colltest.Fold(op, in[:r])
		}
		err = tab.Exscan(c, send, recv, op)
	}
	if err != nil {
		return err
	}
	if err := colltest.ExpectEqual(send, in[r], x.String()+" send buffer", r); err != nil {
		return err
	}
	return colltest.ExpectEqual(recv, want, x.String(), r)
}

// maxBytesFor is the segment's limit for an n-rank test world: small, so
// that calls fall on both sides of it, and a multiple of n*16 so that an
// alltoall or a reduction of 16-byte elements can fill it exactly.
func maxBytesFor(n int) int { return 16 * n * ((4 + n - 1) / n) }

// boundaryCalls are x's calls of every size of interest: empty, one
// element, a few, exactly maxBytes, and one element more, which the next
// module serves.
func boundaryCalls(k kind, n, maxBytes int) []call {
	return limitCalls(k, n, maxBytes, func(l int) []int { return []int{0, 1, min(3, l), l, l + 1} })
}

// limitCalls makes k's calls of the sizes that lens gives for l, the
// largest size that fits maxBytes in k's unit: elements for a reduction,
// a rank's block for scatter, alltoall and reduce_scatter_block, bytes
// otherwise.
func limitCalls(k kind, n, maxBytes int, lens func(l int) []int) []call {
	return callsOf(k, n, func(op colltest.OpCase) []int {
		switch k {
		case kBarrier:
			return []int{0}
		case kReduce, kAllreduce, kReduceScatter, kScan, kExscan:
			return lens(maxBytes / op.Op.ElemSize())
		case kReduceScatterBlock:
			return lens(maxBytes / (n * op.Op.ElemSize()))
		case kScatter, kAlltoall:
			return lens(maxBytes / n)
		}
		return lens(maxBytes)
	})
}

// callsOf makes calls of k with every root (of a rooted collective) and
// operation (of a reduction), and each length that lens gives for it.
func callsOf(k kind, n int, lens func(op colltest.OpCase) []int) []call {
	var cs []call
	rs := []int{0}
	if k.rooted() {
		rs = colltest.Roots(n)
	}
	ops := []colltest.OpCase{{}}
	if k.reduction() {
		ops = testOps
	}
	for _, op := range ops {
		for _, root := range rs {
			for _, l := range slices.Compact(lens(op)) {
				cs = append(cs, call{k: k, root: root, size: l, op: op, seed: len(cs) + 1})
			}
		}
	}
	return cs
}

// runServed runs each call on every rank of w and checks its result and
// where it went: through sm (no message) where bySm says so, to the next
// module otherwise.
func (w *world) runServed(t *testing.T, calls []call, bySm func(call) bool) {
	t.Helper()
	for _, x := range calls {
		t.Run(x.String(), func(t *testing.T) {
			before := w.sends()
			w.run(t, func(r int, c *testComm) error { return x.do(w.tables[r], c, r, w.n) })
			switch sent := w.sends() - before; {
			case bySm(x) && sent != 0:
				t.Errorf("%d messages were sent: the call did not go through sm", sent)
			case !bySm(x) && sent == 0:
				t.Error("no message was sent: the next module was not called")
			}
		})
	}
}

// TestCollectives runs every collective sm provides on every size, root
// and length around the segment's limit, and checks that the calls that
// fit go through the segment (no message) and the others through basic.
func TestCollectives(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			maxBytes := maxBytesFor(n)
			w := newWorld(t, n)
			w.buildSm(t, maxBytes)
			for k := range nKinds {
				w.runServed(t, boundaryCalls(k, n, maxBytes), func(x call) bool { return x.contribution(n) <= maxBytes })
			}
		})
	}
}

// TestBarrierSynchronizes checks that no rank leaves a barrier before
// every rank entered it, whatever the schedule.
func TestBarrierSynchronizes(t *testing.T) {
	for _, n := range []int{2, 5, 9} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			w := newWorld(t, n)
			w.buildSm(t, 64)
			var entered atomic.Int64
			const rounds = 50
			w.run(t, func(r int, c *testComm) error {
				for i := 1; i <= rounds; i++ {
					entered.Add(1)
					if err := w.tables[r].Barrier(c); err != nil {
						return err
					}
					if got := entered.Load(); got < int64(i*n) {
						return fmt.Errorf("rank %d left barrier %d when %d ranks had entered, want %d", r, i, got, i*n)
					}
				}
				return nil
			})
		})
	}
}

// sequence is a deterministic mix of calls, the same on every rank:
// collectives, roots, operations and sizes on both sides of maxBytes, so
// that consecutive epochs differ in who writes, who reads and how much.
func sequence(n, maxBytes, count int) []call {
	x := uint32(12345 + n)
	next := func(m int) int {
		x = x*1664525 + 1013904223
		return int(x>>8) % m
	}
	cs := make([]call, count)
	for i := range cs {
		k := kind(next(int(nKinds)))
		op := testOps[next(len(testOps))]
		// Sizes up to about twice the limit: mostly through the segment.
		per := maxBytes + maxBytes/2
		switch k {
		case kReduce, kAllreduce, kReduceScatter, kScan, kExscan:
			per /= op.Op.ElemSize()
		case kReduceScatterBlock:
			per = max(per/(n*op.Op.ElemSize()), 2)
		case kScatter, kAlltoall:
			per /= n
		}
		cs[i] = call{k: k, root: next(n), size: next(per + 1), op: op, seed: i}
	}
	return cs
}

// TestManyEpochs runs hundreds of calls in a row on one world, checking
// each: a rank that reused a block of parity p before every member was
// done with its previous content would show as a wrong result.
func TestManyEpochs(t *testing.T) {
	for _, tc := range []struct {
		n              int
		oversubscribed bool
	}{{2, false}, {3, false}, {4, true}, {7, false}, {9, false}} {
		t.Run(fmt.Sprintf("n%d/oversubscribed=%v", tc.n, tc.oversubscribed), func(t *testing.T) {
			const maxBytes = epochsBytes
			w, calls := epochsWorld(t, tc.n, tc.oversubscribed)
			fit := 0
			for _, x := range calls {
				if x.contribution(tc.n) <= maxBytes {
					fit++
				}
			}
			if fit < 150 || fit == len(calls) {
				t.Fatalf("%d of %d calls fit: the sequence should take both paths, mostly sm's", fit, len(calls))
			}
			expectEveryKind(t, calls, tc.n, maxBytes)
			w.runCalls(t, calls)
		})
	}
}

// TestManyEpochsSmallSegment repeats the epochs with a segment whose
// limit is not a whole number of 8-byte words.
func TestManyEpochsSmallSegment(t *testing.T) {
	const n, maxBytes = 5, 61
	w := newWorld(t, n)
	w.buildSm(t, maxBytes)
	calls := sequence(n, maxBytes, 200)
	expectEveryKind(t, calls, n, maxBytes)
	w.runCalls(t, calls)
}

// expectEveryKind fails unless calls have every collective go through the
// segment at least once, between calls of the others.
func expectEveryKind(t *testing.T, calls []call, n, maxBytes int) {
	t.Helper()
	var fit [nKinds]int
	for _, x := range calls {
		if x.contribution(n) <= maxBytes {
			fit[x.k]++
		}
	}
	for k, c := range fit {
		if c == 0 {
			t.Errorf("no %v call of the sequence goes through the segment", kind(k))
		}
	}
}

// TestNonCommutative checks that reduce, allreduce, scan, exscan and the
// reduce-scatters combine in rank order, b0 ⊕ b1 ⊕ ... ⊕ b(n-1), with operations whose reversed order
// gives another result.
func TestNonCommutative(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			w := newWorld(t, n)
			w.buildSm(t, maxBytesFor(n))
			for _, top := range testOps[1:] {
				for _, elems := range []int{1, 3} {
					if elems*16 > maxBytesFor(n) {
						continue
					}
					in := colltest.Inputs(n, func(r int) []byte { return top.Input(7, r, elems) })
					rev := make([][]byte, n)
					for r := range in {
						rev[n-1-r] = in[r]
					}
					if bytes.Equal(colltest.Fold(top.Op, in), colltest.Fold(top.Op, rev)) {
						t.Fatalf("%s: the inputs give the same result in either order: the test would show nothing", top.Name)
					}
					calls := []call{{k: kAllreduce, size: elems, op: top, seed: 7}}
					for _, root := range colltest.Roots(n) {
						calls = append(calls, call{k: kReduce, root: root, size: elems, op: top, seed: 7})
					}
					// The prefixes and the parts of the whole: rs's vector is
					// n*elems, rsb's block elems, where they fit.
					for _, x := range []call{
						{k: kScan, size: elems, op: top, seed: 7},
						{k: kExscan, size: elems, op: top, seed: 7},
						{k: kReduceScatter, size: n * elems, op: top, seed: 7},
						{k: kReduceScatterBlock, size: elems, op: top, seed: 7},
					} {
						if x.contribution(n) <= maxBytesFor(n) {
							calls = append(calls, x)
						}
					}
					for _, x := range calls {
						t.Run(x.String(), func(t *testing.T) {
							before := w.sends()
							w.run(t, func(r int, c *testComm) error { return x.do(w.tables[r], c, r, n) })
							if w.sends() != before {
								t.Error("the call went to basic, not through the segment")
							}
						})
					}
				}
			}
		})
	}
}
