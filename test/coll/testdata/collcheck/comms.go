package main

import (
	"slices"
	"strings"
	"sync"

	"github.com/gompi/gompi/mpi"
)

// concurrent runs two loops of collectives at once, each on its own Dup
// of world from its own goroutine.
func concurrent(x *checker, w mpi.Comm, u userOps) {
	a, err := w.Dup()
	x.ok(err, "dup a")
	b, err := w.Dup()
	x.ok(err, "dup b")
	x.ok(a.SetName("concurrent-a"), "set name")
	x.ok(b.SetName("concurrent-b"), "set name")
	me, size := w.Rank(), w.Size()
	const rounds = 150
	xa, xb := &checker{rank: x.rank}, &checker{rank: x.rank}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		aff := u.affineReduction()
		for it := range rounds {
			got := make([]int64, 2)
			xa.ok(mpi.Allreduce([]int64{int64(me+1) * int64(it), 1}, got, mpi.Sum, a), "concurrent allreduce round %d", it)
			same(xa, got, []int64{int64(it) * int64(size*(size+1)/2), int64(size)}, "concurrent allreduce round %d", it)
			if it%10 == 0 {
				recv := make([]mpi.Pair[int32], 3)
				xa.ok(mpi.Scan(aff.input(me, 3), recv, aff.op, a), "concurrent scan round %d", it)
				same(xa, recv, aff.fold(0, me, 3), "concurrent scan round %d", it)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for it := range rounds {
			root := it % size
			buf := int32s.holes(5)
			if me == root {
				buf = int32s.block(root, it, 5)
			}
			xb.ok(mpi.Bcast(buf, root, b), "concurrent bcast round %d", it)
			same(xb, buf, int32s.block(root, it, 5), "concurrent bcast round %d", it)
			all := make([]float64, size)
			xb.ok(mpi.Allgather([]float64{float64(me * it)}, all, b), "concurrent allgather round %d", it)
			for r := range all {
				equal(xb, all[r], float64(r*it), "concurrent allgather round %d from rank %d", it, r)
			}
		}
	}()
	wg.Wait()

	// Each goroutine makes communicators from its own while the other
	// does too: the context ids they agree on must not collide.
	wg.Add(2)
	for _, p := range []struct {
		c mpi.Comm
		x *checker
	}{{a, xa}, {b, xb}} {
		go func() {
			defer wg.Done()
			for it := range 8 {
				d, err := p.c.Dup()
				p.x.ok(err, "concurrent dup of %s round %d", p.c.Name(), it)
				got := make([]int32, 1)
				p.x.ok(mpi.Allreduce([]int32{int32(me + it)}, got, mpi.Sum, d), "allreduce on a concurrent dup round %d", it)
				equal(p.x, got[0], int32(size*(size-1)/2+size*it), "allreduce on a concurrent dup of %s round %d", p.c.Name(), it)
				p.x.ok(d.Free(), "free a concurrent dup")
			}
		}()
	}
	wg.Wait()
	x.checks += xa.checks + xb.checks
	x.fails += xa.fails + xb.fails
	x.ok(a.Free(), "free a")
	x.ok(b.Free(), "free b")
}

// communicators checks Compare, names, Free and Split with Undefined.
func communicators(x *checker, w mpi.Comm) {
	me, size := w.Rank(), w.Size()
	cmp := func(a, b mpi.Comm, want mpi.Comparison, what string) {
		got, err := a.Compare(b)
		x.ok(err, "compare %s", what)
		equal(x, got, want, "compare %s", what)
	}
	dup, err := w.Dup()
	x.ok(err, "dup")
	rev, err := w.Split(0, -me)
	x.ok(err, "split reversed")
	mod3, err := w.Split(me%3, me)
	x.ok(err, "split by rank%%3")
	cmp(w, w, mpi.Ident, "world with world")
	cmp(dup, w, mpi.Congruent, "a dup with world")
	cmp(rev, w, bySize(size, mpi.Similar, mpi.Congruent), "world reversed with world")
	cmp(mod3, w, bySize(size, mpi.Unequal, mpi.Congruent), "a split by rank%3 with world")
	cmp(mpi.CommSelf(), w, bySize(size, mpi.Unequal, mpi.Congruent), "self with world")
	_, err = w.Compare(mpi.Comm{})
	x.wantErr(err, mpi.ErrComm, "compare with a null communicator")

	equal(x, w.Name(), "MPI_COMM_WORLD", "world's name")
	equal(x, mpi.CommSelf().Name(), "MPI_COMM_SELF", "self's name")
	x.ok(dup.SetName("renamed"), "set name")
	equal(x, dup.Name(), "renamed", "name after SetName")
	x.wantErr(dup.SetName(""), mpi.ErrArg, "set an empty name")
	equal(x, dup.Name(), "renamed", "name after a refused SetName")
	long := strings.Repeat("n", mpi.MaxObjectName-1) + "é" // the 2-byte rune straddles the limit
	x.ok(dup.SetName(long), "set a name over MaxObjectName bytes")
	equal(x, dup.Name(), long[:mpi.MaxObjectName-1], "a long name, truncated at a character")
	x.ok(dup.SetName("renamed"), "set name")
	child, err := dup.Split(0, 0)
	x.ok(err, "split of a renamed communicator")
	equal(x, child.Name(), "renamed.split", "name of a split of a renamed communicator")
	x.ok(child.Free(), "free")

	// Free nulls the handle; a copy of it is freed too.
	stale := dup
	x.ok(dup.Free(), "free a dup")
	equal(x, dup.IsNull(), true, "a freed communicator is null")
	equal(x, dup.Rank(), -1, "rank of a freed communicator")
	equal(x, dup.Size(), 0, "size of a freed communicator")
	x.wantErr(mpi.Barrier(dup), mpi.ErrComm, "barrier on a freed communicator")
	x.wantErr(mpi.Barrier(stale), mpi.ErrComm, "barrier on a copy of a freed communicator")
	x.wantErr(mpi.Bcast([]int32{1}, 0, stale), mpi.ErrComm, "bcast on a copy of a freed communicator")
	x.wantErr(mpi.Allreduce([]int32{1}, make([]int32, 1), mpi.Sum, stale), mpi.ErrComm, "allreduce on a copy of a freed communicator")
	_, err = stale.Dup()
	x.wantErr(err, mpi.ErrComm, "dup of a freed communicator")
	x.wantErr(stale.Free(), mpi.ErrComm, "free twice")
	x.wantErr(dup.Free(), mpi.ErrComm, "free a null communicator")
	world := w
	x.wantErr(world.Free(), mpi.ErrComm, "free world")
	self := mpi.CommSelf()
	x.wantErr(self.Free(), mpi.ErrComm, "free self")

	// Split with Undefined: ranks 3, 7, ... get no communicator.
	color := 0
	var members []int
	for r := range size {
		if r%4 != 3 {
			members = append(members, r)
		}
	}
	if me%4 == 3 {
		color = mpi.Undefined
	}
	part, err := w.Split(color, 0)
	x.ok(err, "split with undefined")
	if me%4 == 3 {
		equal(x, part.IsNull(), true, "split with undefined: null")
		equal(x, part.Rank(), -1, "split with undefined: rank")
		equal(x, part.Size(), 0, "split with undefined: size")
		x.wantErr(mpi.Barrier(part), mpi.ErrComm, "barrier on the null communicator of split with undefined")
	} else {
		equal(x, part.Size(), len(members), "split with undefined: size")
		equal(x, part.Rank(), slices.Index(members, me), "split with undefined: rank")
		got := make([]int32, len(members))
		x.ok(mpi.Allgather([]int32{int32(me)}, got, part), "allgather after split with undefined")
		for i, m := range members {
			equal(x, got[i], int32(m), "split with undefined: member %d", i)
		}
		x.ok(part.Free(), "free")
	}
	none, err := w.Split(mpi.Undefined, me)
	x.ok(err, "split with undefined everywhere")
	equal(x, none.IsNull(), true, "split with undefined everywhere: null")
	g, err := w.Group()
	x.ok(err, "world group")
	eg, err := g.Incl(nil)
	x.ok(err, "empty group")
	empty, err := w.Create(eg)
	x.ok(err, "create from an empty group")
	equal(x, empty.IsNull(), true, "create from an empty group: null")
	createDisjoint(x, w, g, me, size)

	noType, err := w.SplitType(mpi.Undefined, 0)
	x.ok(err, "split type undefined")
	equal(x, noType.IsNull(), true, "split type undefined: null")
	_, err = w.SplitType(42, 0)
	x.wantErr(err, mpi.ErrArg, "split type of an unknown type")
	if size > 3 {
		// mod3 lacks some of world's ranks.
		_, err = mod3.Create(g)
		x.wantErr(err, mpi.ErrGroup, "create from a group with ranks outside the communicator")
	}

	// Communicators made and freed many times over reuse context ids:
	// nothing of a freed one may reach its successor.
	for it := range 40 {
		d, err := w.Dup()
		x.ok(err, "dup round %d", it)
		buf := int32s.holes(3)
		root := it % size
		if me == root {
			buf = int32s.block(root, it, 3)
		}
		x.ok(mpi.Bcast(buf, root, d), "bcast on dup round %d", it)
		same(x, buf, int32s.block(root, it, 3), "bcast on dup round %d", it)
		x.ok(d.Free(), "free dup round %d", it)
	}

	// Communicators of one rank each, made by Create in turn as a task
	// farm makes them: the ranks outside one have no say in its context
	// id, so each rank numbers its own apart from the others'. A
	// communicator of all the ranks made after them must still get ids of
	// its own on every rank: each rank listens on its one-rank
	// communicators for any message while messages cross the later one,
	// and must find there only its own.
	var singles []mpi.Comm
	for i := range 3 * size {
		owner := i % size
		gi, err := g.Incl([]int{owner})
		x.ok(err, "group of rank %d alone", owner)
		c, err := w.Create(gi)
		x.ok(err, "create of rank %d alone, round %d", owner, i)
		equal(x, c.IsNull(), owner != me, "create of rank %d alone, round %d: null outside it", owner, i)
		if !c.IsNull() {
			singles = append(singles, c)
		}
	}
	after, err := w.Dup()
	x.ok(err, "dup after the one-rank communicators")
	listening := make([]mpi.Request, len(singles))
	heard := make([][]int32, len(singles))
	for k, c := range singles {
		heard[k] = make([]int32, 2)
		listening[k], err = mpi.Irecv(heard[k], mpi.AnySource, mpi.AnyTag, c)
		x.ok(err, "irecv from anyone on one-rank communicator %d", k)
	}
	from := make([]int32, 1)
	_, err = mpi.Sendrecv([]int32{int32(me)}, (me+1)%size, 7, from, (me+size-1)%size, 7, after)
	x.ok(err, "sendrecv around a dup made after the one-rank communicators")
	equal(x, from[0], int32((me+size-1)%size), "sendrecv around a dup made after the one-rank communicators")
	// Sent in the reverse order of the receives: communicators that
	// shared a context would deliver each message to the wrong one.
	for k := len(singles) - 1; k >= 0; k-- {
		x.ok(mpi.Send([]int32{int32(k), int32(me)}, 0, k, singles[k]), "send on one-rank communicator %d", k)
	}
	for k, c := range singles {
		_, err := listening[k].Wait()
		x.ok(err, "irecv on one-rank communicator %d", k)
		same(x, heard[k], []int32{int32(k), int32(me)}, "what one-rank communicator %d heard", k)
		sum := make([]int32, 1)
		x.ok(mpi.Allreduce([]int32{int32(k)}, sum, mpi.Sum, c), "allreduce on one-rank communicator %d", k)
		equal(x, sum[0], int32(k), "allreduce on one-rank communicator %d", k)
		x.ok(c.Free(), "free one-rank communicator %d", k)
	}
	x.ok(after.Free(), "free")

	// A communicator derived from derived ones.
	inner, err := mod3.Split(mod3.Rank()%2, -mod3.Rank())
	x.ok(err, "split of a split")
	nested, err := inner.Dup()
	x.ok(err, "dup of a split of a split")
	x.ok(nested.SetName("nested"), "set name")
	members = nil
	for r := size - 1; r >= 0; r-- {
		// mod3's rank of world rank r is its place among r%3's ranks.
		if r%3 == me%3 && (r/3)%2 == (me/3)%2 {
			members = append(members, r)
		}
	}
	checkMembers(x, derived{"nested", nested, members})
	moves(x, nested, int32s, 7)
	reduce(x, nested, int32Reductions()[0], 7)
	x.ok(nested.Free(), "free")
	x.ok(inner.Free(), "free")

	_, err = w.Split(-5, 0)
	x.wantErr(err, mpi.ErrArg, "split with a negative color")
	x.ok(rev.Free(), "free")
	x.ok(mod3.Free(), "free")
}

// groups checks group construction, comparison and rank translation.
func groups(x *checker, w mpi.Comm) {
	me, size := w.Rank(), w.Size()
	g, err := w.Group()
	x.ok(err, "world group")
	equal(x, g.Size(), size, "group size")
	equal(x, g.Rank(), me, "group rank")
	var evens, odds, all, reversed []int
	for r := range size {
		all = append(all, r)
		reversed = append(reversed, size-1-r)
		if r%2 == 0 {
			evens = append(evens, r)
		} else {
			odds = append(odds, r)
		}
	}
	gcmp := func(a, b mpi.Group, want mpi.Comparison, what string) {
		got, err := a.Compare(b)
		x.ok(err, "group compare %s", what)
		equal(x, got, want, "group compare %s", what)
	}
	ge, err := g.Incl(evens)
	x.ok(err, "incl evens")
	odd, err := g.Excl(evens)
	x.ok(err, "excl evens")
	equal(x, ge.Size(), len(evens), "size of the evens")
	equal(x, odd.Size(), len(odds), "size of the odds")
	wantRank := func(list []int) int {
		if i := slices.Index(list, me); i >= 0 {
			return i
		}
		return mpi.Undefined
	}
	equal(x, ge.Rank(), wantRank(evens), "rank among the evens")
	equal(x, odd.Rank(), wantRank(odds), "rank among the odds")

	// Union is the evens then the odds: all ranks, in another order
	// unless there are fewer than three.
	u, err := ge.Union(odd)
	x.ok(err, "union")
	equal(x, u.Size(), size, "size of the union")
	inUnion, err := g.TranslateRanks(all, u)
	x.ok(err, "translate to the union")
	for r := range size {
		want := r / 2
		if r%2 == 1 {
			want = len(evens) + r/2
		}
		equal(x, inUnion[r], want, "rank %d in the union", r)
	}
	gcmp(u, g, bySize(size-1, mpi.Similar, mpi.Ident), "union with world")
	i, err := g.Intersection(ge)
	x.ok(err, "intersection")
	gcmp(i, ge, mpi.Ident, "world ∩ evens with evens")
	d, err := g.Difference(ge)
	x.ok(err, "difference")
	gcmp(d, odd, mpi.Ident, "world − evens with odds")
	empty, err := ge.Intersection(odd)
	x.ok(err, "intersection of disjoint groups")
	equal(x, empty.Size(), 0, "size of evens ∩ odds")
	equal(x, empty.Rank(), mpi.Undefined, "rank in an empty group")
	rg, err := g.Incl(reversed)
	x.ok(err, "incl reversed")
	gcmp(rg, g, bySize(size, mpi.Similar, mpi.Ident), "reversed with world")
	gcmp(ge, g, bySize(size, mpi.Unequal, mpi.Ident), "evens with world")

	toWorld, err := ge.TranslateRanks(indices(len(evens)), g)
	x.ok(err, "translate the evens to world")
	same(x, toWorld, evens, "evens in world")
	fromWorld, err := g.TranslateRanks(all, ge)
	x.ok(err, "translate world to the evens")
	for r := range size {
		want := mpi.Undefined
		if r%2 == 0 {
			want = r / 2
		}
		equal(x, fromWorld[r], want, "world rank %d among the evens", r)
	}
	inRev, err := g.TranslateRanks([]int{0, size - 1, mpi.ProcNull}, rg)
	x.ok(err, "translate to reversed")
	same(x, inRev, []int{size - 1, 0, mpi.ProcNull}, "world's ends in the reversed group")

	_, err = g.Incl([]int{size})
	x.wantErr(err, mpi.ErrRank, "incl of a rank out of range")
	_, err = g.Excl([]int{0, 0})
	x.wantErr(err, mpi.ErrRank, "excl of a rank listed twice")
	_, err = g.TranslateRanks([]int{-3}, g)
	x.wantErr(err, mpi.ErrRank, "translate a rank out of range")
	_, err = g.Union(mpi.Group{})
	x.wantErr(err, mpi.ErrGroup, "union with an invalid group")
	none, err := g.Incl(nil)
	x.ok(err, "empty group")
	_, err = none.Incl([]int{0})
	x.wantErr(err, mpi.ErrRank, "incl of rank 0 of the empty group")
	if err != nil && !strings.Contains(err.Error(), "it has no rank") {
		x.errorf("incl of rank 0 of the empty group: %q does not say the group has no rank", err)
	}
}

// bySize is many for a communicator of more than one rank, else one.
func bySize(size int, many, one mpi.Comparison) mpi.Comparison {
	if size > 1 {
		return many
	}
	return one
}

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// createDisjoint makes communicators of groups that differ from rank to
// rank, each passed by its own ranks, as a grid's rows are made: the even
// and the odd ranks in one call, then all but rank 0, which passes the
// empty group. Communicators of one call share a context id, so a ring
// around each must stay in it.
func createDisjoint(x *checker, w mpi.Comm, world mpi.Group, me, size int) {
	var odd, even, rest []int
	for r := range size {
		if r%2 == 0 {
			even = append(even, r)
		} else {
			odd = append(odd, r)
		}
		if r > 0 {
			rest = append(rest, r)
		}
	}
	mine := map[bool][]int{true: even, false: odd}[me%2 == 0]
	for _, call := range []struct {
		what    string
		members []int
	}{{"the ranks of its parity", mine}, {"the ranks but 0", rest}} {
		members := call.members
		if !slices.Contains(members, me) {
			members = nil
		}
		grp, err := world.Incl(members)
		x.ok(err, "group of %s", call.what)
		c, err := w.Create(grp)
		x.ok(err, "create of %s", call.what)
		equal(x, c.IsNull(), members == nil, "create of %s: null outside it", call.what)
		if c.IsNull() {
			continue
		}
		n, r := len(members), slices.Index(members, me)
		equal(x, c.Rank(), r, "create of %s: rank", call.what)
		got := make([]int32, n)
		x.ok(mpi.Allgather([]int32{int32(me)}, got, c), "allgather on %s", call.what)
		for i, m := range members {
			equal(x, got[i], int32(m), "allgather on %s: member %d", call.what, i)
		}
		from := make([]int32, 1)
		_, err = mpi.Sendrecv([]int32{int32(me)}, (r+1)%n, 9, from, (r+n-1)%n, 9, c)
		x.ok(err, "sendrecv around %s", call.what)
		equal(x, from[0], int32(members[(r+n-1)%n]), "sendrecv around %s", call.what)
		x.ok(c.Free(), "free the communicator of %s", call.what)
	}
}
