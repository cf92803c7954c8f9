package main

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// The non-blocking and persistent collectives: every one gives what its
// blocking call gives, on world, a split and a dup; several outstanding at
// once complete in any order, mixed with point-to-point requests; an
// Iallreduce of 1 MiB completes while the rank computes; a persistent call
// restarts without allocating; ReduceLocal reduces two local buffers.

func init() {
	scenarios["nbc"] = nbc
	scenarios["nbcmany"] = nbcMany
	scenarios["nbcmismatch"] = nbcMismatch
}

func nbc(x *checker, w mpi.Comm) {
	me := w.Rank()
	split, err := w.Split(me%2, -me)
	x.ok(err, "split")
	dup, err := w.Dup()
	x.ok(err, "dup")
	for _, c := range []mpi.Comm{w, split, dup} {
		for _, n := range []int{1, 5} {
			nbcForms(x, c, n)
		}
		nbcOutstanding(x, c)
		nbcPersistentOutstanding(x, c)
		nbcBeforeBlocking(x, c)
		nbcWaitFirst(x, c)
		nbcMixed(x, c)
		nbcProgress(x, c)
	}
	nbcOverlap(x, w)
	nbcTestLoop(x, dup)
	nbcRestarts(x, dup)
	nbcPacked(x, split)
	nbcStartall(x, w)
	nbcArgErrors(x, w)
	reduceLocal(x)
	x.ok(errors.Join(split.Free(), dup.Free()), "free")
	x.ok(mpi.Barrier(w), "final barrier")
}

// form is how a case runs its collective.
type form int

const (
	blocking form = iota
	nonBlocking
	persistentForm
)

func (f form) String() string { return [...]string{"blocking", "non-blocking", "persistent"}[f] }

// run runs one collective in form f: the blocking call, or the
// non-blocking one waited on, or the persistent one started, waited on
// and freed (started twice when again is set: its inputs are unchanged by
// the call, so the second start gives the same result).
func (f form) run(x *checker, what string, again bool, b func() error, i, p func() (mpi.Request, error)) {
	switch f {
	case blocking:
		x.ok(b(), "%s", what)
	case nonBlocking:
		r, err := i()
		x.ok(err, "%s: start", what)
		st, err := r.Wait()
		x.ok(err, "%s: wait", what)
		// Alike whether the call completed at its start or later.
		if st.Source != 0 || st.Tag != 0 || st.Cancelled || st.Bytes() != 0 {
			x.errorf("%s: wait's status %+v, want every field zero", what, st)
		}
	case persistentForm:
		r, err := p()
		x.ok(err, "%s: init", what)
		starts := 1
		if again {
			starts = 2
		}
		for range starts {
			x.ok(r.Start(), "%s: start", what)
			_, err = r.Wait()
			x.ok(err, "%s: wait", what)
		}
		x.ok(r.Free(), "%s: free", what)
	}
}

// nbcCase sets up one collective's buffers and runs it in a form; it
// returns what the rank received.
type nbcCase struct {
	name string
	run  func(f form) []int64
}

// nbcForms runs every collective, plain and in place, in each form and
// checks that the non-blocking and persistent forms give what the
// blocking one gives.
func nbcForms(x *checker, c mpi.Comm, n int) {
	for _, k := range nbcCases(x, c, n) {
		want := k.run(blocking)
		for _, f := range []form{nonBlocking, persistentForm} {
			same(x, k.run(f), want, "%s %s %s n=%d", c.Name(), f, k.name, n)
		}
	}
}

func nbcCases(x *checker, c mpi.Comm, n int) []nbcCase {
	me, size := c.Rank(), c.Size()
	root := size - 1
	input := func(r int) []int64 { return seq(r, n) }
	counts := vcounts(size, n)
	displs, total := layout(counts)
	what := func(name string, f form) string { return fmt.Sprintf("%s %s %s n=%d", c.Name(), f, name, n) }
	return []nbcCase{
		{"barrier", func(f form) []int64 {
			f.run(x, what("barrier", f), true, func() error { return mpi.Barrier(c) },
				func() (mpi.Request, error) { return mpi.Ibarrier(c) }, func() (mpi.Request, error) { return mpi.BarrierInit(c) })
			return nil
		}},
		{"bcast", func(f form) []int64 {
			buf := make([]int64, n)
			if me == root {
				buf = input(root)
			}
			f.run(x, what("bcast", f), true, func() error { return mpi.Bcast(buf, root, c) },
				func() (mpi.Request, error) { return mpi.Ibcast(buf, root, c) }, func() (mpi.Request, error) { return mpi.BcastInit(buf, root, c) })
			return buf
		}},
		{"reduce", func(f form) []int64 {
			send, recv := input(me), make([]int64, n)
			f.run(x, what("reduce", f), true, func() error { return mpi.Reduce(send, recv, mpi.Sum, root, c) },
				func() (mpi.Request, error) { return mpi.Ireduce(send, recv, mpi.Sum, root, c) },
				func() (mpi.Request, error) { return mpi.ReduceInit(send, recv, mpi.Sum, root, c) })
			return recv
		}},
		{"reduce in place", func(f form) []int64 {
			buf := input(me)
			f.run(x, what("reduce in place", f), false, func() error { return mpi.ReduceInPlace(buf, mpi.Sum, root, c) },
				func() (mpi.Request, error) { return mpi.IreduceInPlace(buf, mpi.Sum, root, c) },
				func() (mpi.Request, error) { return mpi.ReduceInPlaceInit(buf, mpi.Sum, root, c) })
			return buf
		}},
		{"allreduce", func(f form) []int64 {
			send, recv := input(me), make([]int64, n)
			f.run(x, what("allreduce", f), true, func() error { return mpi.Allreduce(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.Iallreduce(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.AllreduceInit(send, recv, mpi.Sum, c) })
			return recv
		}},
		{"allreduce in place", func(f form) []int64 {
			buf := input(me)
			f.run(x, what("allreduce in place", f), false, func() error { return mpi.AllreduceInPlace(buf, mpi.Max, c) },
				func() (mpi.Request, error) { return mpi.IallreduceInPlace(buf, mpi.Max, c) },
				func() (mpi.Request, error) { return mpi.AllreduceInPlaceInit(buf, mpi.Max, c) })
			return buf
		}},
		{"scan", func(f form) []int64 {
			send, recv := input(me), make([]int64, n)
			f.run(x, what("scan", f), true, func() error { return mpi.Scan(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.Iscan(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ScanInit(send, recv, mpi.Sum, c) })
			return recv
		}},
		{"scan in place", func(f form) []int64 {
			buf := input(me)
			f.run(x, what("scan in place", f), false, func() error { return mpi.ScanInPlace(buf, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.IscanInPlace(buf, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ScanInPlaceInit(buf, mpi.Sum, c) })
			return buf
		}},
		{"exscan", func(f form) []int64 {
			send, recv := input(me), make([]int64, n)
			f.run(x, what("exscan", f), true, func() error { return mpi.Exscan(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.Iexscan(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ExscanInit(send, recv, mpi.Sum, c) })
			return recv
		}},
		{"exscan in place", func(f form) []int64 {
			buf := input(me)
			f.run(x, what("exscan in place", f), false, func() error { return mpi.ExscanInPlace(buf, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.IexscanInPlace(buf, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ExscanInPlaceInit(buf, mpi.Sum, c) })
			return buf
		}},
		{"reduce scatter", func(f form) []int64 {
			send, recv := seq(me, total), make([]int64, counts[me])
			f.run(x, what("reduce scatter", f), true, func() error { return mpi.ReduceScatter(send, recv, counts, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.IreduceScatter(send, recv, counts, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ReduceScatterInit(send, recv, counts, mpi.Sum, c) })
			return recv
		}},
		{"reduce scatter in place", func(f form) []int64 {
			buf := seq(me, total)
			f.run(x, what("reduce scatter in place", f), false, func() error { return mpi.ReduceScatterInPlace(buf, counts, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.IreduceScatterInPlace(buf, counts, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ReduceScatterInPlaceInit(buf, counts, mpi.Sum, c) })
			return buf[:counts[me]]
		}},
		{"reduce scatter block", func(f form) []int64 {
			send, recv := seq(me, size*n), make([]int64, n)
			f.run(x, what("reduce scatter block", f), true, func() error { return mpi.ReduceScatterBlock(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.IreduceScatterBlock(send, recv, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ReduceScatterBlockInit(send, recv, mpi.Sum, c) })
			return recv
		}},
		{"reduce scatter block in place", func(f form) []int64 {
			buf := seq(me, size*n)
			f.run(x, what("reduce scatter block in place", f), false, func() error { return mpi.ReduceScatterBlockInPlace(buf, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.IreduceScatterBlockInPlace(buf, mpi.Sum, c) },
				func() (mpi.Request, error) { return mpi.ReduceScatterBlockInPlaceInit(buf, mpi.Sum, c) })
			return buf[:n]
		}},
		{"gather", func(f form) []int64 {
			send, recv := input(me), make([]int64, size*n)
			f.run(x, what("gather", f), true, func() error { return mpi.Gather(send, recv, root, c) },
				func() (mpi.Request, error) { return mpi.Igather(send, recv, root, c) },
				func() (mpi.Request, error) { return mpi.GatherInit(send, recv, root, c) })
			return recv
		}},
		{"gather in place", func(f form) []int64 {
			buf := input(me)
			if me == root {
				buf = slices.Concat(make([]int64, root*n), input(me))
			}
			f.run(x, what("gather in place", f), true, func() error { return mpi.GatherInPlace(buf, root, c) },
				func() (mpi.Request, error) { return mpi.IgatherInPlace(buf, root, c) },
				func() (mpi.Request, error) { return mpi.GatherInPlaceInit(buf, root, c) })
			return buf
		}},
		{"gatherv", func(f form) []int64 {
			send, recv := seq(me, counts[me]), make([]int64, total)
			f.run(x, what("gatherv", f), true, func() error { return mpi.Gatherv(send, recv, counts, displs, root, c) },
				func() (mpi.Request, error) { return mpi.Igatherv(send, recv, counts, displs, root, c) },
				func() (mpi.Request, error) { return mpi.GathervInit(send, recv, counts, displs, root, c) })
			return recv
		}},
		{"gatherv in place", func(f form) []int64 {
			buf := seq(me, counts[me])
			if me == root {
				buf = make([]int64, total)
				copy(buf[displs[me]:], seq(me, counts[me]))
			}
			f.run(x, what("gatherv in place", f), true, func() error { return mpi.GathervInPlace(buf, counts, displs, root, c) },
				func() (mpi.Request, error) { return mpi.IgathervInPlace(buf, counts, displs, root, c) },
				func() (mpi.Request, error) { return mpi.GathervInPlaceInit(buf, counts, displs, root, c) })
			return buf
		}},
		{"scatter", func(f form) []int64 {
			send, recv := seq(me, size*n), make([]int64, n)
			f.run(x, what("scatter", f), true, func() error { return mpi.Scatter(send, recv, root, c) },
				func() (mpi.Request, error) { return mpi.Iscatter(send, recv, root, c) },
				func() (mpi.Request, error) { return mpi.ScatterInit(send, recv, root, c) })
			return recv
		}},
		{"scatter in place", func(f form) []int64 {
			buf := make([]int64, n)
			if me == root {
				buf = seq(me, size*n)
			}
			f.run(x, what("scatter in place", f), true, func() error { return mpi.ScatterInPlace(buf, root, c) },
				func() (mpi.Request, error) { return mpi.IscatterInPlace(buf, root, c) },
				func() (mpi.Request, error) { return mpi.ScatterInPlaceInit(buf, root, c) })
			return buf
		}},
		{"scatterv", func(f form) []int64 {
			send, recv := seq(me, total), make([]int64, counts[me])
			f.run(x, what("scatterv", f), true, func() error { return mpi.Scatterv(send, counts, displs, recv, root, c) },
				func() (mpi.Request, error) { return mpi.Iscatterv(send, counts, displs, recv, root, c) },
				func() (mpi.Request, error) { return mpi.ScattervInit(send, counts, displs, recv, root, c) })
			return recv
		}},
		{"scatterv in place", func(f form) []int64 {
			buf := make([]int64, counts[me])
			if me == root {
				buf = seq(me, total)
			}
			f.run(x, what("scatterv in place", f), true, func() error { return mpi.ScattervInPlace(buf, counts, displs, root, c) },
				func() (mpi.Request, error) { return mpi.IscattervInPlace(buf, counts, displs, root, c) },
				func() (mpi.Request, error) { return mpi.ScattervInPlaceInit(buf, counts, displs, root, c) })
			return buf
		}},
		{"allgather", func(f form) []int64 {
			send, recv := input(me), make([]int64, size*n)
			f.run(x, what("allgather", f), true, func() error { return mpi.Allgather(send, recv, c) },
				func() (mpi.Request, error) { return mpi.Iallgather(send, recv, c) },
				func() (mpi.Request, error) { return mpi.AllgatherInit(send, recv, c) })
			return recv
		}},
		{"allgather in place", func(f form) []int64 {
			buf := make([]int64, size*n)
			copy(buf[me*n:], input(me))
			f.run(x, what("allgather in place", f), true, func() error { return mpi.AllgatherInPlace(buf, c) },
				func() (mpi.Request, error) { return mpi.IallgatherInPlace(buf, c) },
				func() (mpi.Request, error) { return mpi.AllgatherInPlaceInit(buf, c) })
			return buf
		}},
		{"allgatherv", func(f form) []int64 {
			send, recv := seq(me, counts[me]), make([]int64, total)
			f.run(x, what("allgatherv", f), true, func() error { return mpi.Allgatherv(send, recv, counts, displs, c) },
				func() (mpi.Request, error) { return mpi.Iallgatherv(send, recv, counts, displs, c) },
				func() (mpi.Request, error) { return mpi.AllgathervInit(send, recv, counts, displs, c) })
			return recv
		}},
		{"allgatherv in place", func(f form) []int64 {
			buf := make([]int64, total)
			copy(buf[displs[me]:], seq(me, counts[me]))
			f.run(x, what("allgatherv in place", f), true, func() error { return mpi.AllgathervInPlace(buf, counts, displs, c) },
				func() (mpi.Request, error) { return mpi.IallgathervInPlace(buf, counts, displs, c) },
				func() (mpi.Request, error) { return mpi.AllgathervInPlaceInit(buf, counts, displs, c) })
			return buf
		}},
		{"alltoall", func(f form) []int64 {
			send, recv := seq(me, size*n), make([]int64, size*n)
			f.run(x, what("alltoall", f), true, func() error { return mpi.Alltoall(send, recv, c) },
				func() (mpi.Request, error) { return mpi.Ialltoall(send, recv, c) },
				func() (mpi.Request, error) { return mpi.AlltoallInit(send, recv, c) })
			return recv
		}},
		{"alltoall in place", func(f form) []int64 {
			buf := seq(me, size*n)
			f.run(x, what("alltoall in place", f), false, func() error { return mpi.AlltoallInPlace(buf, c) },
				func() (mpi.Request, error) { return mpi.IalltoallInPlace(buf, c) },
				func() (mpi.Request, error) { return mpi.AlltoallInPlaceInit(buf, c) })
			return buf
		}},
		{"alltoallv", func(f form) []int64 {
			// Every rank sends counts[j] elements to rank j and so
			// receives counts[me] from each.
			rcounts := slices.Repeat([]int{counts[me]}, size)
			rdispls, rtotal := layout(rcounts)
			send, recv := seq(me, total), make([]int64, rtotal)
			f.run(x, what("alltoallv", f), true, func() error { return mpi.Alltoallv(send, counts, displs, recv, rcounts, rdispls, c) },
				func() (mpi.Request, error) { return mpi.Ialltoallv(send, counts, displs, recv, rcounts, rdispls, c) },
				func() (mpi.Request, error) { return mpi.AlltoallvInit(send, counts, displs, recv, rcounts, rdispls, c) })
			return recv
		}},
		{"alltoallv in place", func(f form) []int64 {
			even := slices.Repeat([]int{n}, size)
			evenDispls, evenTotal := layout(even)
			buf := seq(me, evenTotal)
			f.run(x, what("alltoallv in place", f), false, func() error { return mpi.AlltoallvInPlace(buf, even, evenDispls, c) },
				func() (mpi.Request, error) { return mpi.IalltoallvInPlace(buf, even, evenDispls, c) },
				func() (mpi.Request, error) { return mpi.AlltoallvInPlaceInit(buf, even, evenDispls, c) })
			return buf
		}},
	}
}

// seq is n distinct values of rank r.
func seq(r, n int) []int64 {
	b := make([]int64, n)
	for i := range b {
		b[i] = int64(datum(r, 0, i))
	}
	return b
}

// nbcOutstanding starts six collectives before it waits for any, then
// waits for them in reverse order.
func nbcOutstanding(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	what := c.Name() + " outstanding"
	b := newSumBuffers(me, size)
	var reqs []mpi.Request
	start := collect(x, &reqs, what+": start")
	start(mpi.Ibcast(b.bc, 0, c))
	start(mpi.Iallreduce(b.send, b.sum, mpi.Sum, c))
	start(mpi.Ibarrier(c))
	start(mpi.Iallgather(b.send, b.all, c))
	start(mpi.Ialltoall(seq(me, size*sumN), b.a2a, c))
	start(mpi.Ireduce(b.send, b.red, mpi.Sum, size-1, c))
	for i := len(reqs) - 1; i >= 0; i-- {
		_, err := reqs[i].Wait()
		x.ok(err, "%s: wait %d", what, i)
	}
	nbcCheckSums(x, c, what, b.bc, b.sum, b.red, b.all, b.a2a)
}

// sumN is the count of each rank's contribution in sumBuffers.
const sumN = 3

// sumBuffers are the buffers of the calls that nbcCheckSums checks.
type sumBuffers struct{ bc, send, sum, red, all, a2a []int64 }

func newSumBuffers(me, size int) sumBuffers {
	return sumBuffers{bc: bcastData(me, sumN), send: seq(me, sumN), sum: make([]int64, sumN), red: make([]int64, sumN),
		all: make([]int64, size*sumN), a2a: make([]int64, size*sumN)}
}

// collect returns a function that checks a start's error and appends
// its request to reqs.
func collect(x *checker, reqs *[]mpi.Request, what string) func(mpi.Request, error) {
	return func(r mpi.Request, err error) {
		x.ok(err, "%s", what)
		*reqs = append(*reqs, r)
	}
}

// nbcPersistentOutstanding restarts six persistent collectives three
// times, started among a non-blocking and a blocking call before any is
// waited for, then waited for in reverse order: calls that run in start
// order do so at every start, and an in-place one reads its buffer anew.
func nbcPersistentOutstanding(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	what := c.Name() + " persistent outstanding"
	const n = sumN
	b := newSumBuffers(me, size)
	bc, sum, red, all, a2a := b.bc, b.sum, b.red, b.all, b.a2a
	var reqs []mpi.Request
	add := collect(x, &reqs, what+": init")
	add(mpi.BcastInit(bc, 0, c))
	add(mpi.AllreduceInit(b.send, sum, mpi.Sum, c))
	add(mpi.AllgatherInit(b.send, all, c))
	add(mpi.AlltoallInit(seq(me, size*n), a2a, c))
	add(mpi.ReduceInit(b.send, red, mpi.Sum, size-1, c))
	inPlace := make([]int64, n)
	add(mpi.AllreduceInPlaceInit(inPlace, mpi.Sum, c))
	for round := range 3 {
		copy(inPlace, seq(me+round, n))
		for _, b := range [][]int64{sum, red, all, a2a} {
			clear(b)
		}
		if me != 0 {
			clear(bc)
		}
		x.ok(reqs[0].Start(), "%s: start bcast", what)
		b, err := mpi.Ibarrier(c)
		x.ok(err, "%s: ibarrier", what)
		x.ok(mpi.Startall(reqs[1:3]...), "%s: start allreduce and allgather", what)
		top := make([]int64, 1)
		x.ok(mpi.Allreduce([]int64{int64(me)}, top, mpi.Max, c), "%s: blocking allreduce", what)
		x.ok(mpi.Startall(reqs[3:]...), "%s: start alltoall and reduce", what)
		for i := len(reqs) - 1; i >= 0; i-- {
			_, err := reqs[i].Wait()
			x.ok(err, "%s: wait %d", what, i)
		}
		_, err = b.Wait()
		x.ok(err, "%s: ibarrier wait", what)
		if top[0] != int64(size-1) {
			x.errorf("%s: blocking allreduce gave %d, want %d", what, top[0], size-1)
		}
		nbcCheckSums(x, c, fmt.Sprintf("%s round %d", what, round), bc, sum, red, all, a2a)
		want := make([]int64, n)
		x.ok(mpi.Allreduce(seq(me+round, n), want, mpi.Sum, c), "%s: blocking allreduce", what)
		same(x, inPlace, want, "%s round %d: allreduce in place", what, round)
	}
	for _, r := range reqs {
		x.ok(r.Free(), "%s: free", what)
	}
}

// nbcBeforeBlocking starts non-blocking collectives, then calls blocking
// ones and a Dup on the same communicator before it waits for them: the
// calls started first must run first wherever a component needs every
// member to run a communicator's calls in one order (coll sm's segment).
func nbcBeforeBlocking(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	what := c.Name() + " before blocking"
	const n = 3
	bc := bcastData(me, n)
	sum, all := make([]int64, n), make([]int64, size*n)
	r1, err := mpi.Ibcast(bc, 0, c)
	x.ok(err, "%s: ibcast", what)
	r2, err := mpi.Iallreduce(seq(me, n), sum, mpi.Sum, c)
	x.ok(err, "%s: iallreduce", what)
	blocking := make([]int64, n)
	x.ok(mpi.Allreduce(seq(me+1, n), blocking, mpi.Max, c), "%s: blocking allreduce", what)
	d, err := c.Dup()
	x.ok(err, "%s: dup", what)
	r3, err := mpi.Iallgather(seq(me, n), all, c)
	x.ok(err, "%s: iallgather", what)
	x.ok(mpi.Barrier(c), "%s: barrier", what)
	for i, r := range []mpi.Request{r3, r2, r1} {
		_, err := r.Wait()
		x.ok(err, "%s: wait %d", what, i)
	}
	same(x, bc, seq(0, n), "%s: bcast", what)
	same(x, blocking, seq(size, n), "%s: blocking allreduce", what)
	want := make([]int64, n)
	for i := range size {
		for k, v := range seq(i, n) {
			want[k] += v
		}
	}
	same(x, sum, want, "%s: allreduce", what)
	from := make([][]int64, size)
	for i := range from {
		from[i] = seq(i, n)
	}
	same(x, all, concat(from), "%s: allgather", what)
	x.ok(d.Free(), "%s: free the dup", what)
}

// nbcWaitFirst: a Wait on the first of two outstanding collectives returns
// once that one is done, whoever runs the second. Rank 0 starts both,
// waits for the first and only then sends the last rank the message that
// lets it start its second: a Wait that ran every call started, or waited
// for whoever runs them, would hang.
func nbcWaitFirst(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	if size < 2 {
		return
	}
	what := c.Name() + " wait for the first"
	const tag = 70
	a := []int64{int64(me)}
	b := []int64{int64(me)}
	ra, err := mpi.Iallreduce([]int64{int64(me)}, a, mpi.Sum, c)
	x.ok(err, "%s: first", what)
	var rb mpi.Request
	start := func() {
		rb, err = mpi.Iallreduce([]int64{int64(me)}, b, mpi.Max, c)
		x.ok(err, "%s: second", what)
	}
	switch me {
	case 0:
		start()
		_, err = ra.Wait()
		x.ok(err, "%s: wait for the first", what)
		x.ok(mpi.Send([]int64{1}, size-1, tag, c), "%s: send", what)
	case size - 1:
		_, err = mpi.Recv(make([]int64, 1), 0, tag, c)
		x.ok(err, "%s: recv", what)
		start()
	default:
		start()
	}
	if me != 0 {
		_, err = ra.Wait()
		x.ok(err, "%s: wait for the first", what)
	}
	_, err = rb.Wait()
	x.ok(err, "%s: wait for the second", what)
	if want := int64(size * (size - 1) / 2); a[0] != want {
		x.errorf("%s: first gave %d, want %d", what, a[0], want)
	}
	if b[0] != int64(size-1) {
		x.errorf("%s: second gave %d, want %d", what, b[0], size-1)
	}
}

// bcastData is a bcast's buffer of n values from rank 0 at rank me: rank
// 0's data there, zeros elsewhere.
func bcastData(me, n int) []int64 {
	if me == 0 {
		return seq(0, n)
	}
	return make([]int64, n)
}

// nbcCheckSums checks the results of nbcOutstanding's and nbcMixed's calls
// against the blocking ones'.
func nbcCheckSums(x *checker, c mpi.Comm, what string, bc, sum, red, all, a2a []int64) {
	me, size := c.Rank(), c.Size()
	const n = 3
	same(x, bc, seq(0, n), "%s bcast", what)
	want := make([]int64, n)
	x.ok(mpi.Allreduce(seq(me, n), want, mpi.Sum, c), "%s: blocking allreduce", what)
	same(x, sum, want, "%s allreduce", what)
	if me == size-1 {
		same(x, red, want, "%s reduce", what)
	}
	from := make([][]int64, size)
	for i := range from {
		from[i] = seq(i, n)
	}
	same(x, all, concat(from), "%s allgather", what)
	wantA2A := make([]int64, size*n)
	x.ok(mpi.Alltoall(seq(me, size*n), wantA2A, c), "%s: blocking alltoall", what)
	same(x, a2a, wantA2A, "%s alltoall", what)
}

// nbcMixed completes collectives and point-to-point requests together,
// with WaitAny for some rounds and TestSome for others.
func nbcMixed(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	const n = 3
	right, left := (me+1)%size, (me+size-1)%size
	for round, useTestSome := range []bool{false, true} {
		what := fmt.Sprintf("%s mixed round %d", c.Name(), round)
		bc := bcastData(me, n)
		send := seq(me, n)
		sum, red := make([]int64, n), make([]int64, n)
		all, a2a := make([]int64, size*n), make([]int64, size*n)
		got := make([]int64, n)
		var reqs []mpi.Request
		start := func(r mpi.Request, err error) {
			x.ok(err, "%s: start", what)
			reqs = append(reqs, r)
		}
		start(mpi.Irecv(got, left, 40+round, c))
		start(mpi.Ibcast(bc, 0, c))
		start(mpi.Iallreduce(send, sum, mpi.Sum, c))
		start(mpi.Isend(seq(me, n), right, 40+round, c))
		start(mpi.Iallgather(send, all, c))
		start(mpi.Ialltoall(seq(me, size*n), a2a, c))
		start(mpi.Ireduce(send, red, mpi.Sum, size-1, c))
		done := 0
		indices := make([]int, len(reqs))
		for done < len(reqs) {
			if !useTestSome {
				i, _, err := mpi.WaitAny(reqs)
				x.ok(err, "%s: waitany", what)
				if i < 0 {
					x.errorf("%s: waitany found no active request with %d of %d done", what, done, len(reqs))
					break
				}
				done++
				continue
			}
			k, err := mpi.TestSome(reqs, indices, nil)
			x.ok(err, "%s: testsome", what)
			if k < 0 {
				x.errorf("%s: testsome found no active request with %d of %d done", what, done, len(reqs))
				break
			}
			done += k
		}
		same(x, got, seq(left, n), "%s: the point-to-point message", what)
		nbcCheckSums(x, c, what, bc, sum, red, all, a2a)
	}
}

// nbcProgress: a small non-blocking collective progresses while its rank
// waits in other calls, or did its part at its start. Rank 0 starts an
// Ibarrier, an Iallreduce or an Ibcast from itself, then waits for a
// message that the last rank sends only once its own call has completed,
// and waits for its call last: a Recv, then a Test loop on an Irecv, then
// a Wait on it. Without progress inside those calls, it hangs.
func nbcProgress(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	if size < 2 {
		return
	}
	for round := range 9 {
		how, call := []string{"recv", "test loop", "wait"}[round%3], []string{"ibarrier", "iallreduce", "ibcast"}[round/3]
		what := fmt.Sprintf("%s %s progress while rank 0 is in a %s", c.Name(), call, how)
		var r mpi.Request
		var err error
		sum, bc := []int64{0, 0}, bcastData(me, 2)
		switch call {
		case "ibarrier":
			r, err = mpi.Ibarrier(c)
		case "iallreduce":
			r, err = mpi.Iallreduce(seq(me, 2), sum, mpi.Sum, c)
		case "ibcast":
			r, err = mpi.Ibcast(bc, 0, c)
		}
		x.ok(err, "%s: start", what)
		token := []int64{0}
		tag := 60 + round
		switch me {
		case 0:
			if how == "recv" {
				_, err = mpi.Recv(token, size-1, tag, c)
				x.ok(err, "%s: recv", what)
			} else {
				in, err := mpi.Irecv(token, size-1, tag, c)
				x.ok(err, "%s: irecv", what)
				for done := false; !done && err == nil && how == "test loop"; {
					_, done, err = in.Test()
				}
				x.ok(err, "%s: test", what)
				_, err = in.Wait()
				x.ok(err, "%s: wait", what)
			}
			if token[0] != int64(round+1) {
				x.errorf("%s: received %d, want %d", what, token[0], round+1)
			}
		case size - 1:
			_, err = r.Wait()
			x.ok(err, "%s: wait on the ibarrier", what)
			x.ok(mpi.Send([]int64{int64(round + 1)}, 0, tag, c), "%s: send", what)
		}
		_, err = r.Wait()
		x.ok(err, "%s: wait", what)
		switch call {
		case "iallreduce":
			want := make([]int64, 2)
			for i := range size {
				for k, v := range seq(i, 2) {
					want[k] += v
				}
			}
			same(x, sum, want, "%s: sum", what)
		case "ibcast":
			same(x, bc, seq(0, 2), "%s: data", what)
		}
	}
}

// nbcMany starts more non-blocking collectives on c than it has slots
// for (1024) before it waits for any: the start that finds its slot still
// held must make the call that holds it progress, though that call's
// goroutine may not have begun. Its own scenario, run over sm only: over
// tcp with the CPUs loaded, a thousand barriers polling sockets at once
// starved a rank's connection to gompirun past its keepalive.
func nbcMany(x *checker, c mpi.Comm) {
	const n = 1100
	reqs := make([]mpi.Request, 0, n)
	for i := range n {
		r, err := mpi.Ibarrier(c)
		if err != nil {
			x.ok(err, "%s many: ibarrier %d", c.Name(), i)
			return
		}
		reqs = append(reqs, r)
	}
	x.ok(mpi.WaitAll(reqs...), "%s many: waitall", c.Name())
}

// nbcTestLoop completes small calls by Test alone, in a loop, as codes
// that end a phase with an Ibarrier do: enough of them that coll sm serves
// the later ones (after coll_sm_segment_after calls), which a Test runs
// once the others' parts are there. Every few rounds a blocking call and a
// message come between.
func nbcTestLoop(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	want := make([]int64, 2)
	for i := range size {
		for k, v := range seq(i, 2) {
			want[k] += v
		}
	}
	for round := range 600 {
		what := fmt.Sprintf("%s test loop %d", c.Name(), round)
		sum, bc := make([]int64, 2), seq(0, 2)
		if me != 0 {
			bc = make([]int64, 2)
		}
		var r mpi.Request
		var err error
		switch round % 3 {
		case 0:
			r, err = mpi.Ibarrier(c)
		case 1:
			r, err = mpi.Iallreduce(seq(me, 2), sum, mpi.Sum, c)
		case 2:
			r, err = mpi.Ibcast(bc, 0, c)
		}
		x.ok(err, "%s: start", what)
		for done := false; !done; {
			_, done, err = r.Test()
			x.ok(err, "%s: test", what)
		}
		switch round % 3 {
		case 1:
			same(x, sum, want, "%s: sum", what)
		case 2:
			same(x, bc, seq(0, 2), "%s: data", what)
		}
		if round%50 == 49 {
			x.ok(mpi.Barrier(c), "%s: barrier", what)
			token := []int64{int64(round)}
			_, err := mpi.Sendrecv(token, (me+1)%size, 7, token, (me+size-1)%size, 7, c)
			x.ok(err, "%s: sendrecv", what)
		}
	}
}

// nbcOverlap starts an Iallreduce of 1 MiB and computes until Test says it
// completed, with no other MPI call meanwhile: the call must complete
// within a bound of iterations that only a hang reaches.
func nbcOverlap(x *checker, w mpi.Comm) {
	const n = 1 << 17 // int64s: 1 MiB
	send, recv := seq(w.Rank(), n), make([]int64, n)
	r, err := mpi.Iallreduce(send, recv, mpi.Sum, w)
	x.ok(err, "overlap: iallreduce")
	work := make([]float64, 4096)
	done := false
	iterations := 0
	for ; !done && iterations < 1_000_000; iterations++ {
		for i := range work { // compute, without MPI
			work[i] = work[i]*0.5 + float64(i)
		}
		_, done, err = r.Test()
		x.ok(err, "overlap: test")
	}
	if !done {
		x.errorf("overlap: the iallreduce of 1 MiB did not complete in %d rounds of computation", iterations)
		return
	}
	want := make([]int64, n)
	x.ok(mpi.Allreduce(send, want, mpi.Sum, w), "overlap: allreduce")
	same(x, recv, want, "overlap: iallreduce of 1 MiB")
}

// nbcRestarts restarts a persistent allreduce on c 100 times, each round
// giving the sum of its inputs, then counts the allocations of 1000 more,
// on c and on a communicator of one rank. On one rank no wait depends on
// another rank's timing, and once warm a Start and its Wait must allocate
// nothing. On c a wait sleeps or not as the machine's load has it, and a
// sleeping wait allocates its wake-up in the engine, so the figures there
// are printed, not checked.
func nbcRestarts(x *checker, c mpi.Comm) {
	const n = 4
	send, recv := make([]int64, n), make([]int64, n)
	r, err := mpi.AllreduceInit(send, recv, mpi.Sum, c)
	x.ok(err, "restarts: allreduce init")
	size := int64(c.Size())
	for round := range int64(100) {
		send[0] = round + int64(c.Rank())
		x.ok(r.Start(), "restarts: start")
		_, err := r.Wait()
		x.ok(err, "restarts: wait")
		if recv[0] != round*size+size*(size-1)/2 {
			x.errorf("restarts: round %d gave %d, want %d", round, recv[0], round*size+size*(size-1)/2)
			break
		}
	}
	var failed error
	round := func(r mpi.Request) func() {
		return func() {
			err := r.Start()
			_, werr := r.Wait()
			failed = errors.Join(failed, err, werr)
		}
	}
	allocs := testing.AllocsPerRun(1000, round(r))
	blocking := testing.AllocsPerRun(1000, func() { failed = errors.Join(failed, mpi.Allreduce(send, recv, mpi.Sum, c)) })
	fmt.Printf("rank %d: %v allocations per Start and Wait of a persistent allreduce on %d ranks, %v per blocking allreduce\n",
		c.Rank(), allocs, c.Size(), blocking)
	x.ok(r.Free(), "restarts: free")
	_, err = r.Wait()
	x.ok(err, "restarts: wait after free")

	one, err := mpi.CommSelf().Dup()
	x.ok(err, "restarts: dup of self")
	r, err = mpi.AllreduceInit(send, recv, mpi.Sum, one)
	x.ok(err, "restarts: allreduce init on one rank")
	alone := testing.AllocsPerRun(1000, round(r))
	x.ok(failed, "restarts: rounds")
	if !raceEnabled && alone != 0 {
		x.errorf("restarts: %v allocations per Start and Wait of a persistent allreduce on one rank, want 0", alone)
	}
	x.ok(errors.Join(r.Free(), one.Free()), "restarts: free on one rank")
}

// nbcArgErrors: an argument error is reported by the call that starts, and
// no request is made; the ranks stay in step.
func nbcArgErrors(x *checker, w mpi.Comm) {
	_, err := mpi.Ibcast(make([]int64, 2), w.Size(), w)
	x.wantErr(err, mpi.ErrRoot, "ibcast with a root out of range")
	_, err = mpi.AllreduceInit(make([]int64, 2), make([]int64, 2), mpi.Op{}, w)
	x.wantErr(err, mpi.ErrOp, "allreduce init with the null operation")
}

// reduceLocal checks ReduceLocal against a sum computed here, and its
// error for slices of different lengths.
func reduceLocal(x *checker) {
	in, inout := []int64{1, 2, 3}, []int64{10, 20, 30}
	x.ok(mpi.ReduceLocal(in, inout, mpi.Sum), "reduce local")
	same(x, inout, []int64{11, 22, 33}, "reduce local sum")
	x.wantErr(mpi.ReduceLocal(in, inout[:2], mpi.Sum), mpi.ErrCount, "reduce local of 3 and 2 elements")
}

// nbcMismatch runs a non-blocking collective whose ranks' counts disagree
// (collcheck nbcmismatch KIND): some rank's Wait must report ErrTruncate
// or ErrCount, the call having started without error.
func nbcMismatch(x *checker, w mpi.Comm) {
	if len(x.args) != 1 {
		x.fatalf("usage: collcheck nbcmismatch KIND")
	}
	kind := x.args[0]
	count := 4
	switch w.Rank() {
	case 1:
		count = 3
	case 2:
		count = 5
	}
	var r mpi.Request
	var err error
	switch kind {
	case "ibcast":
		r, err = mpi.Ibcast(make([]int32, count), 0, w)
	case "iallreduce":
		r, err = mpi.Iallreduce(make([]int32, count), make([]int32, count), mpi.Sum, w)
	case "allreduce-init":
		r, err = mpi.AllreduceInit(make([]int32, count), make([]int32, count), mpi.Sum, w)
		if err == nil {
			err = r.Start()
		}
	default:
		x.fatalf("nbcmismatch: unknown kind %q", kind)
	}
	x.ok(err, "%s: start", kind)
	_, err = r.Wait()
	detected(x, kind, err, mpi.ErrTruncate, mpi.ErrCount)
}

// nbcPacked runs a reduction on pairs, a datatype that packs (a float64
// and an int32 with padding), in each form: a persistent call packs its
// buffers again at each start.
func nbcPacked(x *checker, c mpi.Comm) {
	const n = 5
	send := make([]mpi.Pair[float64], n)
	fill := func(round int) {
		for i := range send {
			send[i] = mpi.Pair[float64]{Value: float64((c.Rank()*7 + i + round) % 5), Index: int32(c.Rank())}
		}
	}
	for round := range 2 {
		fill(round)
		want := make([]mpi.Pair[float64], n)
		x.ok(mpi.Allreduce(send, want, mpi.MaxLoc, c), "packed: allreduce round %d", round)
		got := make([]mpi.Pair[float64], n)
		r, err := mpi.Iallreduce(send, got, mpi.MaxLoc, c)
		x.ok(err, "packed: iallreduce")
		_, err = r.Wait()
		x.ok(err, "packed: iallreduce wait")
		same(x, got, want, "packed: iallreduce round %d", round)
	}
	got := make([]mpi.Pair[float64], n)
	p, err := mpi.AllreduceInit(send, got, mpi.MaxLoc, c)
	x.ok(err, "packed: allreduce init")
	for round := range 2 {
		fill(round)
		want := make([]mpi.Pair[float64], n)
		x.ok(mpi.Allreduce(send, want, mpi.MaxLoc, c), "packed: allreduce round %d", round)
		x.ok(p.Start(), "packed: start")
		_, err := p.Wait()
		x.ok(err, "packed: wait")
		same(x, got, want, "packed: persistent allreduce round %d, after its inputs changed", round)
	}
	x.ok(p.Free(), "packed: free")
}

// nbcStartall starts persistent collectives and point-to-point requests
// together with Startall and completes them with WaitAll, twice.
func nbcStartall(x *checker, w mpi.Comm) {
	me, size := w.Rank(), w.Size()
	right, left := (me+1)%size, (me+size-1)%size
	const n = 3
	bc, sum, got := make([]int64, n), make([]int64, n), make([]int64, n)
	out := seq(me, n)
	reqs := make([]mpi.Request, 0, 4)
	add := func(r mpi.Request, err error) {
		x.ok(err, "startall: init")
		reqs = append(reqs, r)
	}
	add(mpi.RecvInit(got, left, 50, w))
	add(mpi.BcastInit(bc, 0, w))
	add(mpi.AllreduceInit(out, sum, mpi.Sum, w))
	add(mpi.SendInit(out, right, 50, w))
	want := make([]int64, n)
	x.ok(mpi.Allreduce(out, want, mpi.Sum, w), "startall: blocking allreduce")
	for round := range 2 {
		if me == 0 {
			copy(bc, seq(round, n))
		}
		x.ok(mpi.Startall(reqs...), "startall round %d", round)
		x.ok(mpi.WaitAll(reqs...), "startall: waitall round %d", round)
		same(x, bc, seq(round, n), "startall: bcast round %d", round)
		same(x, sum, want, "startall: allreduce round %d", round)
		same(x, got, seq(left, n), "startall: recv round %d", round)
	}
	for _, r := range reqs {
		x.ok(r.Free(), "startall: free")
	}

	// MPI frees no active persistent collective: the free fails, the call
	// completes at its Wait, the inactive request is freed, and the
	// communicator's next calls go on.
	r, err := mpi.BcastInit(bc, 0, w)
	x.ok(err, "free while active: init")
	x.ok(r.Start(), "free while active: start")
	x.wantErr(r.Free(), mpi.ErrRequest, "free while active: free of the active request")
	_, err = r.Wait()
	x.ok(err, "free while active: wait")
	x.ok(r.Free(), "free while active: free")
	got = make([]int64, n)
	if me == 0 {
		copy(got, seq(9, n))
	}
	q, err := mpi.Ibcast(got, 0, w)
	x.ok(err, "free while active: ibcast after")
	_, err = q.Wait()
	x.ok(err, "free while active: wait")
	same(x, got, seq(9, n), "free while active: the ibcast after")
}
