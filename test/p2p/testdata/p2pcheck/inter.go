package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gompi/gompi/mpi"
)

func init() {
	scenarios["inter"] = interScenario
	scenarios["interconcurrent"] = interConcurrent
	scenarios["creategroup"] = createGroup
	scenarios["intererrors"] = interErrors
}

// side is one group of an intercommunicator split off the world by color.
type side struct {
	color        int
	local        mpi.Comm
	mine, theirs []int // world ranks, by rank in each group
	remoteLeader int   // the other group's leader, in world
}

// split makes this rank's side of the two groups colorOf draws (0 or 1)
// and creates the intercommunicator over world with tag.
func split(w mpi.Comm, colorOf func(int) int, tag int) (side, mpi.Comm, error) {
	s, err := newSide(w, colorOf)
	if err != nil {
		return s, mpi.Comm{}, err
	}
	// Made under a fatal handler, then set to return errors: what is made
	// from the intercommunicator must take its handler, not the one the
	// local communicator had when it was made (checkInter's dup).
	if err := s.local.SetErrorHandler(mpi.ErrorsAreFatal); err != nil {
		return s, mpi.Comm{}, err
	}
	ic, err := mpi.IntercommCreate(s.local, 0, w, s.remoteLeader, tag)
	if err != nil {
		return s, mpi.Comm{}, fmt.Errorf("intercomm create: %w", err)
	}
	for _, c := range []mpi.Comm{s.local, ic} {
		if err := c.SetErrorHandler(mpi.ErrorsReturn); err != nil {
			return s, mpi.Comm{}, err
		}
	}
	return s, ic, nil
}

// newSide splits world by colorOf and describes this rank's side.
func newSide(w mpi.Comm, colorOf func(int) int) (side, error) {
	s := side{color: colorOf(w.Rank())}
	for r := range w.Size() {
		if colorOf(r) == s.color {
			s.mine = append(s.mine, r)
		} else {
			s.theirs = append(s.theirs, r)
		}
	}
	s.remoteLeader = s.theirs[0]
	var err error
	if s.local, err = w.Split(s.color, w.Rank()); err != nil {
		return s, fmt.Errorf("split: %w", err)
	}
	return s, nil
}

// interScenario: over even and odd halves, then over ranks 0 and 1..n-1,
// the intercommunicator's shape, a ping-pong, a ring with AnySource,
// ProcNull, Dup, Merge in both orders with collectives on the result, and
// the error of a collective on the intercommunicator.
func interScenario(w mpi.Comm) error {
	return underWildcard(w, true, func() error { return interShapes(w) })
}

// underWildcard runs f with, if wild, a receive from AnySource with
// AnyTag posted on world, which the library's own messages on world must
// not satisfy; then a ring of messages on world completes it, each
// checked.
func underWildcard(w mpi.Comm, wild bool, f func() error) error {
	me, n := w.Rank(), w.Size()
	got := make([]int, 1)
	source, tag := (me+n-1)%n, 77
	if wild {
		source, tag = mpi.AnySource, mpi.AnyTag
	}
	req, err := mpi.Irecv(got, source, tag, w)
	if err != nil {
		return err
	}
	if err := f(); err != nil {
		return err
	}
	if err := mpi.Send([]int{me}, (me+1)%n, 77, w); err != nil {
		return err
	}
	st, err := req.Wait()
	if prev := (me + n - 1) % n; err != nil || st.Source != prev || st.Tag != 77 || got[0] != prev {
		return fmt.Errorf("the wildcard receive posted on world got %v from %d tag %d (%v), want %d from %d tag 77", got, st.Source, st.Tag, err, prev, prev)
	}
	return nil
}

func interShapes(w mpi.Comm) error {
	splits := map[string]func(int) int{
		"parity":  func(r int) int { return r % 2 },
		"one+all": func(r int) int { return min(r, 1) },
	}
	for _, name := range []string{"parity", "one+all"} {
		s, ic, err := split(w, splits[name], 10)
		if err == nil {
			err = checkInter(w, s, ic)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := s.local.Free(); err != nil {
			return err
		}
	}
	return nil
}

func checkInter(w mpi.Comm, s side, ic mpi.Comm) error {
	if err := checkShape(w, s, ic); err != nil {
		return err
	}
	if err := pingPongAcross(s, ic); err != nil {
		return err
	}
	if err := ringAcross(s, ic); err != nil {
		return err
	}
	if err := mpi.Send([]byte{1}, mpi.ProcNull, 0, ic); err != nil {
		return fmt.Errorf("send to ProcNull: %w", err)
	}
	if st, err := mpi.Recv(make([]byte, 1), mpi.ProcNull, 0, ic); err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("recv from ProcNull: %+v %v", st, err)
	}
	err := mpi.Send([]byte{1}, len(s.theirs), 0, ic)
	if !errors.Is(err, mpi.ErrRank) || !strings.Contains(fmt.Sprint(err), "remote group") {
		return fmt.Errorf("send to remote rank %d: %v, want ErrRank naming the remote group", len(s.theirs), err)
	}
	if err := checkInterColl(s, ic); err != nil {
		return err
	}
	if err := checkMerges(s, ic); err != nil {
		return err
	}
	if err := checkInterSplits(s, ic); err != nil {
		return err
	}
	d, err := ic.Dup()
	if err != nil {
		return fmt.Errorf("dup: %w", err)
	}
	if !d.TestInter() || d.RemoteSize() != len(s.theirs) {
		return fmt.Errorf("dup: TestInter %v, RemoteSize %d", d.TestInter(), d.RemoteSize())
	}
	if cmp, err := ic.Compare(d); err != nil || cmp != mpi.Congruent {
		return fmt.Errorf("compare with its dup: %v %v, want Congruent", cmp, err)
	}
	if cmp, _ := ic.Compare(w); cmp != mpi.Unequal {
		return fmt.Errorf("compare with world: %v, want Unequal", cmp)
	}
	if err := pingPongAcross(s, d); err != nil {
		return fmt.Errorf("on the dup: %w", err)
	}
	if err := mpi.Send([]byte{1}, len(s.theirs), 0, d); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("send to remote rank %d on the dup: %v, want ErrRank returned", len(s.theirs), err)
	}
	if err := checkInterIdup(s, ic); err != nil {
		return err
	}
	if err := d.Disconnect(); err != nil || !d.IsNull() {
		return fmt.Errorf("disconnect the dup: %v, null %v", err, d.IsNull())
	}
	return ic.Free()
}

// checkInterIdup duplicates ic without blocking, twice, with a
// non-blocking allreduce started between the two and all three waited in
// reverse order; each copy then carries messages and collectives across.
func checkInterIdup(s side, ic mpi.Comm) error {
	me, n := s.mine[ic.Rank()], len(s.theirs)
	d1, r1, err := ic.Idup()
	if err != nil {
		return fmt.Errorf("idup: %w", err)
	}
	sum := make([]int, 1)
	r2, err := mpi.Iallreduce([]int{me}, sum, mpi.Sum, ic)
	if err != nil {
		return fmt.Errorf("iallreduce beside idup: %w", err)
	}
	d2, r3, err := ic.Idup()
	if err != nil {
		return fmt.Errorf("second idup: %w", err)
	}
	for i, r := range []mpi.Request{r3, r2, r1} {
		if _, err := r.Wait(); err != nil {
			return fmt.Errorf("idup: wait %d: %w", i, err)
		}
	}
	want := 0
	for _, w := range s.theirs {
		want += w
	}
	if sum[0] != want {
		return fmt.Errorf("iallreduce beside idup: %d, want %d", sum[0], want)
	}
	for _, d := range []mpi.Comm{d1, d2} {
		if !d.TestInter() || d.RemoteSize() != n {
			return fmt.Errorf("idup: TestInter %v, RemoteSize %d", d.TestInter(), d.RemoteSize())
		}
		if cmp, err := ic.Compare(d); err != nil || cmp != mpi.Congruent {
			return fmt.Errorf("compare with its idup: %v %v, want Congruent", cmp, err)
		}
		if err := pingPongAcross(s, d); err != nil {
			return fmt.Errorf("on the idup: %w", err)
		}
		total := make([]int, 1)
		if err := mpi.Allreduce([]int{me}, total, mpi.Sum, d); err != nil || total[0] != want {
			return fmt.Errorf("allreduce on the idup: %d %v, want %d", total[0], err, want)
		}
	}
	return errors.Join(d1.Free(), d2.Free())
}

func checkShape(w mpi.Comm, s side, ic mpi.Comm) error {
	me := slices.Index(s.mine, w.Rank())
	if !ic.TestInter() || w.TestInter() {
		return fmt.Errorf("TestInter: %v on the intercommunicator, %v on world", ic.TestInter(), w.TestInter())
	}
	if ic.Rank() != me || ic.Size() != len(s.mine) || ic.RemoteSize() != len(s.theirs) {
		return fmt.Errorf("rank %d size %d remote size %d, want %d %d %d", ic.Rank(), ic.Size(), ic.RemoteSize(), me, len(s.mine), len(s.theirs))
	}
	if w.RemoteSize() != 0 {
		return fmt.Errorf("world's RemoteSize %d, want 0", w.RemoteSize())
	}
	wg, err := w.Group()
	if err != nil {
		return err
	}
	for _, g := range []struct {
		what string
		get  func() (mpi.Group, error)
		want []int
	}{{"group", ic.Group, s.mine}, {"remote group", ic.RemoteGroup, s.theirs}} {
		grp, err := g.get()
		if err != nil {
			return fmt.Errorf("%s: %w", g.what, err)
		}
		ranks := make([]int, grp.Size())
		for i := range ranks {
			ranks[i] = i
		}
		got, err := grp.TranslateRanks(ranks, wg)
		if err != nil || !slices.Equal(got, g.want) {
			return fmt.Errorf("%s: world ranks %v %v, want %v", g.what, got, err, g.want)
		}
	}
	if _, err := w.RemoteGroup(); !errors.Is(err, mpi.ErrComm) {
		return fmt.Errorf("world's remote group: %v, want ErrComm", err)
	}
	return nil
}

// pingPongAcross: local rank i of group 0 and remote rank i exchange
// messages of eager and rendezvous sizes; the reply carries the payload
// back.
func pingPongAcross(s side, ic mpi.Comm) error {
	me := ic.Rank()
	if me >= len(s.theirs) {
		return nil
	}
	for i, size := range []int{0, 1, 1000, 100 << 10, 1 << 20} {
		buf := make([]byte, size)
		if s.color == 0 {
			pattern(buf, uint64(1000*me+i))
			if err := mpi.Send(buf, me, i, ic); err != nil {
				return fmt.Errorf("ping %d bytes: %w", size, err)
			}
			back := make([]byte, size)
			st, err := mpi.Recv(back, me, i, ic)
			if err != nil || st.Source != me || st.Tag != i {
				return fmt.Errorf("pong %d bytes: %+v %v", size, st, err)
			}
			if err := checkPattern(back, uint64(1000*me+i)); err != nil {
				return err
			}
			continue
		}
		st, err := mpi.Recv(buf, me, i, ic)
		if err != nil || st.Source != me || mpi.GetCount[byte](st) != size {
			return fmt.Errorf("ping %d bytes: %+v %v", size, st, err)
		}
		if err := mpi.Send(buf, me, i, ic); err != nil {
			return fmt.Errorf("pong %d bytes: %w", size, err)
		}
	}
	return nil
}

// ringAcross: every rank sends its world rank to remote rank (its rank
// mod the remote size) and receives, from AnySource, one message from
// each remote rank that maps to it; each status names the remote rank,
// whose world rank the payload carries.
func ringAcross(s side, ic mpi.Comm) error {
	me, n := ic.Rank(), ic.Size()
	req, err := mpi.Isend([]int{s.mine[me]}, me%len(s.theirs), 3, ic)
	if err != nil {
		return err
	}
	var want []int
	for r := range s.theirs {
		if r%n == me {
			want = append(want, r)
		}
	}
	var got []int
	for range want {
		buf := make([]int, 1)
		st, err := mpi.Recv(buf, mpi.AnySource, 3, ic)
		if err != nil {
			return fmt.Errorf("ring recv: %w", err)
		}
		if st.Source < 0 || st.Source >= len(s.theirs) || buf[0] != s.theirs[st.Source] {
			return fmt.Errorf("ring: status source %d with payload %d (remote world ranks %v)", st.Source, buf[0], s.theirs)
		}
		got = append(got, st.Source)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Errorf("ring: messages from remote ranks %v, want %v", got, want)
	}
	_, err = req.Wait()
	return err
}

// checkInterColl: Barrier, a Bcast from every rank of both groups,
// Allreduce (each group gets the other's sum), and the calls that fail.
func checkInterColl(s side, ic mpi.Comm) error {
	if err := mpi.Barrier(ic); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	me := s.mine[ic.Rank()]
	var groups [2][]int // by color: the same order at both sides
	groups[s.color], groups[1-s.color] = s.mine, s.theirs
	for color, group := range groups {
		for r, root := range group {
			buf := []int{-1, -1}
			arg := r // the other group names the root by its rank
			switch {
			case color == s.color && root == me:
				buf, arg = []int{root, 7}, mpi.Root
			case color == s.color:
				arg = mpi.ProcNull
			}
			if err := mpi.Bcast(buf, arg, ic); err != nil {
				return fmt.Errorf("bcast from world rank %d: %w", root, err)
			}
			want := []int{root, 7}
			if arg == mpi.ProcNull {
				want = []int{-1, -1}
			}
			if !slices.Equal(buf, want) {
				return fmt.Errorf("bcast from world rank %d (root argument %d): %v, want %v", root, arg, buf, want)
			}
		}
	}
	got := make([]int, 2)
	if err := mpi.Allreduce([]int{me, 1}, got, mpi.Sum, ic); err != nil {
		return fmt.Errorf("allreduce: %w", err)
	}
	want := []int{0, len(s.theirs)}
	for _, w := range s.theirs {
		want[0] += w
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("allreduce: %v, want the remote group's sum %v", got, want)
	}
	if err := mpi.AllreduceInPlace([]int{1}, mpi.Sum, ic); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("allreduce in place: %v, want ErrBuffer", err)
	}
	if err := mpi.Bcast([]int{1}, len(s.theirs), ic); !errors.Is(err, mpi.ErrRoot) {
		return fmt.Errorf("bcast from remote rank %d: %v, want ErrRoot", len(s.theirs), err)
	}
	if err := checkInterRooted(s, ic); err != nil {
		return err
	}
	if err := checkInterZeros(s, ic); err != nil {
		return err
	}
	err := mpi.Scan([]int{1}, make([]int, 1), mpi.Sum, ic)
	if !errors.Is(err, mpi.ErrComm) || !strings.Contains(fmt.Sprint(err), "defines no scan") {
		return fmt.Errorf("scan on an intercommunicator: %v, want ErrComm saying MPI defines none", err)
	}
	if err := checkInterPersistent(s, ic); err != nil {
		return err
	}
	if err := checkInterPersistentRooted(s, ic); err != nil {
		return err
	}
	return checkInterNonblocking(s, ic)
}

// checkInterPersistent starts a persistent Allreduce on the
// intercommunicator three times, with new data each time.
func checkInterPersistent(s side, ic mpi.Comm) error {
	me := s.mine[ic.Rank()]
	send, got := make([]int, 2), make([]int, 2)
	req, err := mpi.AllreduceInit(send, got, mpi.Sum, ic)
	if err != nil {
		return fmt.Errorf("allreduce init: %w", err)
	}
	for round := range 3 {
		send[0], send[1] = me*round, 1
		if err := req.Start(); err != nil {
			return fmt.Errorf("allreduce init, start %d: %w", round, err)
		}
		if _, err := req.Wait(); err != nil {
			return fmt.Errorf("allreduce init, start %d: %w", round, err)
		}
		want := []int{0, len(s.theirs)}
		for _, w := range s.theirs {
			want[0] += w * round
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("allreduce init, start %d: %v, want %v", round, got, want)
		}
	}
	return req.Free()
}

// checkInterPersistentRooted: persistent Gather, Scatter and Reduce to
// group 0's rank 0, each started twice, the root passing nil for the
// buffer it does not use, as it may.
func checkInterPersistentRooted(s side, ic mpi.Comm) error {
	me, n := s.mine[ic.Rank()], len(s.theirs)
	root := rootArg(s, ic, 0)
	var send, gathered, blocks, got, sum []int
	switch root {
	case mpi.Root:
		gathered, blocks, sum = make([]int, 2*n), make([]int, 2*n), make([]int, 2)
	case 0:
		send, got = make([]int, 2), make([]int, 2)
	}
	var reqs []mpi.Request
	start := func(r mpi.Request, err error) error {
		reqs = append(reqs, r)
		return err
	}
	if err := errors.Join(
		start(mpi.GatherInit(send, gathered, root, ic)),
		start(mpi.ScatterInit(blocks, got, root, ic)),
		start(mpi.ReduceInit(send, sum, mpi.Sum, root, ic))); err != nil {
		return fmt.Errorf("persistent rooted collectives: %w", err)
	}
	for round := 1; round <= 2; round++ {
		if send != nil {
			send[0], send[1] = me*round, 1
		}
		for j := range blocks {
			blocks[j] = j * round
		}
		if err := mpi.Startall(reqs...); err != nil {
			return fmt.Errorf("persistent rooted collectives, start %d: %w", round, err)
		}
		if err := mpi.WaitAll(reqs...); err != nil {
			return fmt.Errorf("persistent rooted collectives, start %d: %w", round, err)
		}
		switch root {
		case mpi.Root:
			var want []int
			wantSum := []int{0, n}
			for _, w := range s.theirs {
				want = append(want, w*round, 1)
				wantSum[0] += w * round
			}
			if !slices.Equal(gathered, want) || !slices.Equal(sum, wantSum) {
				return fmt.Errorf("persistent rooted collectives, start %d, at the root: gather %v (want %v), reduce %v (want %v)",
					round, gathered, want, sum, wantSum)
			}
		case 0:
			r := ic.Rank()
			if want := []int{2 * r * round, (2*r + 1) * round}; !slices.Equal(got, want) {
				return fmt.Errorf("persistent scatter, start %d: %v, want %v", round, got, want)
			}
		}
	}
	for _, r := range reqs {
		if err := r.Free(); err != nil {
			return err
		}
	}
	return nil
}

// checkInterNonblocking: non-blocking collectives on the intercommunicator,
// all outstanding at once and waited for in reverse order, with a blocking
// one between their starts.
func checkInterNonblocking(s side, ic mpi.Comm) error {
	me, mine, n := s.mine[ic.Rank()], ic.Rank(), len(s.theirs)
	sum, all, toAll, fromAll := make([]int, 2), make([]int, n), make([]int, n), make([]int, n)
	for j := range n {
		toAll[j] = me*100 + j
	}
	root := rootArg(s, ic, 0)
	gathered := make([]int, n)
	bcast, bcastRoot := []int{-1}, rootArg(s, ic, 1)
	if bcastRoot == mpi.Root {
		bcast[0] = 4242
	}
	var reqs []mpi.Request
	start := func(r mpi.Request, err error) error {
		reqs = append(reqs, r)
		return err
	}
	if err := errors.Join(
		start(mpi.Ibarrier(ic)),
		start(mpi.Iallreduce([]int{me, 1}, sum, mpi.Sum, ic)),
		start(mpi.Igather([]int{me}, gathered, root, ic)),
		mpi.Barrier(ic),
		start(mpi.Iallgather([]int{me}, all, ic)),
		start(mpi.Ialltoall(toAll, fromAll, ic)),
		start(mpi.Ibcast(bcast, bcastRoot, ic))); err != nil {
		return fmt.Errorf("non-blocking collectives: %w", err)
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		if _, err := reqs[i].Wait(); err != nil {
			return fmt.Errorf("non-blocking collective %d: %w", i, err)
		}
	}
	wantSum, wantAll := []int{0, n}, make([]int, n)
	for j, w := range s.theirs {
		wantSum[0] += w
		wantAll[j] = w*100 + mine
	}
	switch {
	case !slices.Equal(sum, wantSum):
		return fmt.Errorf("iallreduce: %v, want %v", sum, wantSum)
	case root == mpi.Root && !slices.Equal(gathered, s.theirs):
		return fmt.Errorf("igather at the root: %v, want %v", gathered, s.theirs)
	case !slices.Equal(all, s.theirs):
		return fmt.Errorf("iallgather: %v, want %v", all, s.theirs)
	case !slices.Equal(fromAll, wantAll):
		return fmt.Errorf("ialltoall: %v, want %v", fromAll, wantAll)
	case s.color == 0 && bcast[0] != 4242:
		return fmt.Errorf("ibcast from group 1's rank 0: %v, want [4242]", bcast)
	}
	return nil
}

// rootArg is the root argument of a rooted collective whose root is rank
// 0 of the group of color: Root there, ProcNull beside it, 0 across.
func rootArg(s side, ic mpi.Comm, color int) int {
	switch {
	case color != s.color:
		return 0
	case ic.Rank() == 0:
		return mpi.Root
	}
	return mpi.ProcNull
}

// checkInterRooted: Gather, Gatherv, Scatter, Scatterv and Reduce with
// the root in each group; remote rank r's blocks hold r+1 elements.
func checkInterRooted(s side, ic mpi.Comm) error {
	me, mine, n := s.mine[ic.Rank()], ic.Rank(), len(s.theirs)
	counts, displs, total := make([]int, n), make([]int, n), 0
	for r := range n {
		counts[r], displs[r], total = r+1, total, total+r+1
	}
	for color := range 2 {
		root := rootArg(s, ic, color)
		gathered, gatheredV := make([]int, 2*n), make([]int, total)
		sum := make([]int, 2)
		if err := errors.Join(
			mpi.Gather([]int{me, me * 10}, gathered, root, ic),
			mpi.Gatherv(slices.Repeat([]int{me}, mine+1), gatheredV, counts, displs, root, ic),
			mpi.Reduce([]int{me, 1}, sum, mpi.Sum, root, ic)); err != nil {
			return fmt.Errorf("rooted collectives to group %d's rank 0: %w", color, err)
		}
		var blocks, blocksV []int
		for r, w := range s.theirs {
			blocks, blocksV = append(blocks, w+100, w+200), append(blocksV, slices.Repeat([]int{w + 300}, r+1)...)
		}
		got, gotV := make([]int, 2), make([]int, mine+1)
		if root == mpi.Root || root == mpi.ProcNull {
			got, gotV = nil, nil
		}
		if err := errors.Join(
			mpi.Scatter(blocks, got, root, ic),
			mpi.Scatterv(blocksV, counts, displs, gotV, root, ic)); err != nil {
			return fmt.Errorf("scatters from group %d's rank 0: %w", color, err)
		}
		switch root {
		case mpi.Root:
			var want, wantV []int
			wantSum := []int{0, n}
			for r, w := range s.theirs {
				want, wantV = append(want, w, w*10), append(wantV, slices.Repeat([]int{w}, r+1)...)
				wantSum[0] += w
			}
			if !slices.Equal(gathered, want) || !slices.Equal(gatheredV, wantV) || !slices.Equal(sum, wantSum) {
				return fmt.Errorf("at the root: gather %v (want %v), gatherv %v (want %v), reduce %v (want %v)",
					gathered, want, gatheredV, wantV, sum, wantSum)
			}
		case 0:
			if !slices.Equal(got, []int{me + 100, me + 200}) || !slices.Equal(gotV, slices.Repeat([]int{me + 300}, mine+1)) {
				return fmt.Errorf("scatter from group %d: %v, scatterv %v", color, got, gotV)
			}
		}
	}
	if err := mpi.Gather([]int{1}, nil, len(s.theirs), ic); !errors.Is(err, mpi.ErrRoot) {
		return fmt.Errorf("gather to remote rank %d: %v, want ErrRoot", len(s.theirs), err)
	}
	return nil
}

// checkInterAll: Allgather(v), Alltoall(v) and ReduceScatter(Block), each
// rank getting the other group's data. Local rank i sends remote rank j
// i+j+1 elements in the v-forms.
func checkInterAll(s side, ic mpi.Comm) error {
	me, mine, n := s.mine[ic.Rank()], ic.Rank(), len(s.theirs)
	all := make([]int, n)
	// Allgatherv: each rank sends local rank+1 copies of its world rank.
	vcounts, vdispls, vtotal := make([]int, n), make([]int, n), 0
	for r := range n {
		vcounts[r], vdispls[r], vtotal = r+1, vtotal, vtotal+r+1
	}
	allV := make([]int, vtotal)
	send, recv := make([]int, n), make([]int, n)
	for j := range n {
		send[j] = me*100 + j
	}
	var sv, rv []int
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	for j := range n {
		sc[j], sd[j] = mine+j+1, len(sv)
		sv = append(sv, slices.Repeat([]int{me*100 + j}, mine+j+1)...)
		rc[j], rd[j] = j+mine+1, len(rv)
		rv = append(rv, make([]int, j+mine+1)...)
	}
	// The reductions: this group's vectors hold its size times the other's
	// size, so that both groups' totals agree.
	vec := make([]int, ic.Size()*n)
	for e := range vec {
		vec[e] = me*1000 + e
	}
	block, scattered := make([]int, n), make([]int, n)
	if err := errors.Join(
		mpi.Allgather([]int{me}, all, ic),
		mpi.Allgatherv(slices.Repeat([]int{me}, mine+1), allV, vcounts, vdispls, ic),
		mpi.Alltoall(send, recv, ic),
		mpi.Alltoallv(sv, sc, sd, rv, rc, rd, ic),
		mpi.ReduceScatterBlock(vec, block, mpi.Sum, ic),
		mpi.ReduceScatter(vec, scattered, slices.Repeat([]int{n}, ic.Size()), mpi.Sum, ic)); err != nil {
		return fmt.Errorf("all-to-all collectives: %w", err)
	}
	var wantV, wantRV []int
	wantRecv := make([]int, n)
	sumTheirs := 0
	for j, w := range s.theirs {
		wantV = append(wantV, slices.Repeat([]int{w}, j+1)...)
		wantRecv[j] = w*100 + mine
		wantRV = append(wantRV, slices.Repeat([]int{w*100 + mine}, j+mine+1)...)
		sumTheirs += w
	}
	wantBlock := make([]int, n)
	for i := range n {
		wantBlock[i] = sumTheirs*1000 + n*(mine*n+i)
	}
	switch {
	case !slices.Equal(all, s.theirs):
		return fmt.Errorf("allgather: %v, want %v", all, s.theirs)
	case !slices.Equal(allV, wantV):
		return fmt.Errorf("allgatherv: %v, want %v", allV, wantV)
	case !slices.Equal(recv, wantRecv):
		return fmt.Errorf("alltoall: %v, want %v", recv, wantRecv)
	case !slices.Equal(rv, wantRV):
		return fmt.Errorf("alltoallv: %v, want %v", rv, wantRV)
	case !slices.Equal(block, wantBlock) || !slices.Equal(scattered, wantBlock):
		return fmt.Errorf("reduce scatter block %v, reduce scatter %v, want %v", block, scattered, wantBlock)
	}
	if err := mpi.AllgatherInPlace(make([]int, n), ic); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("allgather in place: %v, want ErrBuffer", err)
	}
	return nil
}

// checkInterZeros: blocks of no elements are skipped alike at both ends.
// Local rank 0 of each group sends nothing in an Alltoallv (its send
// buffer is empty) and the others one element to each remote rank; a
// Gatherv to each group's rank 0 gets nothing from the other group's
// rank 0. A zero block posted at one end only hung the call or left a
// message behind for a later one.
func checkInterZeros(s side, ic mpi.Comm) error {
	me, mine, n := s.mine[ic.Rank()], ic.Rank(), len(s.theirs)
	var send []int
	sc, sd := make([]int, n), make([]int, n)
	if mine > 0 {
		for j := range n {
			sc[j], sd[j] = 1, j
			send = append(send, me*100+j)
		}
	}
	rc, rd, recv := make([]int, n), make([]int, n), make([]int, n)
	want := make([]int, n)
	for j, w := range s.theirs {
		rd[j] = j
		if j > 0 {
			rc[j], want[j] = 1, w*100+mine
		}
	}
	if err := mpi.Alltoallv(send, sc, sd, recv, rc, rd, ic); err != nil || !slices.Equal(recv, want) {
		return fmt.Errorf("alltoallv with empty blocks: %v (%v), want %v", recv, err, want)
	}
	counts, displs := make([]int, n), make([]int, n)
	for r := range n {
		counts[r], displs[r] = min(r, 1), r
	}
	for color := range 2 {
		root := rootArg(s, ic, color)
		var mineSent []int
		if mine > 0 {
			mineSent = []int{me}
		}
		got := slices.Repeat([]int{-1}, n)
		if err := mpi.Gatherv(mineSent, got, counts, displs, root, ic); err != nil {
			return fmt.Errorf("gatherv with an empty block to group %d: %w", color, err)
		}
		if root == mpi.Root {
			wantG := slices.Clone(s.theirs)
			wantG[0] = -1
			if !slices.Equal(got, wantG) {
				return fmt.Errorf("gatherv with an empty block: %v, want %v", got, wantG)
			}
		}
	}
	// Nothing may be left for a later call: a message from a skipped
	// block would match this one's.
	return checkInterAll(s, ic)
}

// checkMerges merges with group 0 low, with group 0 high, and with both
// alike (group 0 holds world rank 0, so it comes first), and runs
// collectives on each result.
func checkMerges(s side, ic mpi.Comm) error {
	for _, highOf := range [][2]bool{{false, true}, {true, false}, {false, false}} {
		m, err := ic.Merge(highOf[s.color])
		if err != nil {
			return fmt.Errorf("merge %v: %w", highOf, err)
		}
		order := slices.Concat(s.mine, s.theirs)
		if highOf[s.color] && !highOf[1-s.color] || highOf[0] == highOf[1] && s.color == 1 {
			order = slices.Concat(s.theirs, s.mine)
		}
		me := slices.Index(order, s.mine[ic.Rank()])
		if m.Rank() != me || m.Size() != len(order) || m.TestInter() {
			return fmt.Errorf("merge %v: rank %d of %d (inter %v), want %d of %d", highOf, m.Rank(), m.Size(), m.TestInter(), me, len(order))
		}
		sum := make([]int, 2)
		if err := mpi.Allreduce([]int{order[me], me}, sum, mpi.Sum, m); err != nil {
			return fmt.Errorf("merge %v: allreduce: %w", highOf, err)
		}
		n := len(order)
		if sum[0] != n*(n-1)/2 || sum[1] != n*(n-1)/2 {
			return fmt.Errorf("merge %v: allreduce gave %v", highOf, sum)
		}
		last := []int{-1}
		if me == n-1 {
			last[0] = order[me]
		}
		if err := mpi.Bcast(last, n-1, m); err != nil || last[0] != order[n-1] {
			return fmt.Errorf("merge %v: bcast from the last rank gave %d (%v), want %d", highOf, last[0], err, order[n-1])
		}
		if err := m.Free(); err != nil {
			return err
		}
	}
	return nil
}

// checkInterSplits splits ic by the parity of the local rank, each part
// in reverse order, and creates an intercommunicator of each group's
// ranks but its first, in reverse order; each result must pair the right
// ranks of both groups, or be null where MPI says (a color, or a
// subgroup, that one group lacks).
func checkInterSplits(s side, ic mpi.Comm) error {
	me := ic.Rank()
	// The world ranks of a group's part: local ranks of parity c, or all
	// but the first, last first.
	part := func(group []int, keep func(i int) bool) []int {
		var out []int
		for i := len(group) - 1; i >= 0; i-- {
			if keep(i) {
				out = append(out, group[i])
			}
		}
		return out
	}
	color := me % 2
	sc, err := ic.Split(color, -me)
	if err != nil {
		return fmt.Errorf("split: %w", err)
	}
	parity := func(i int) bool { return i%2 == color }
	w := s.mine[me]
	if err := checkPart("split", w, sc, part(s.mine, parity), part(s.theirs, parity)); err != nil {
		return err
	}
	g, err := ic.Group()
	if err != nil {
		return err
	}
	ranks := part(seq(len(s.mine)), func(i int) bool { return i > 0 })
	sub, err := g.Incl(ranks)
	if err != nil {
		return err
	}
	cc, err := ic.Create(sub)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	notFirst := func(i int) bool { return i > 0 }
	mine, theirs := part(s.mine, notFirst), part(s.theirs, notFirst)
	if len(mine) == 0 || len(theirs) == 0 {
		mine, theirs = nil, nil // either subgroup empty: none for anyone
	}
	if err := checkPart("create", w, cc, mine, theirs); err != nil {
		return err
	}
	// Every rank is on this host: one part of each whole group, ordered by
	// key (reversed).
	all := func(int) bool { return true }
	st, err := ic.SplitType(mpi.CommTypeShared, -me)
	if err != nil {
		return fmt.Errorf("split type: %w", err)
	}
	return checkPart("split type", w, st, part(s.mine, all), part(s.theirs, all))
}

// checkPart checks c, world rank w's result of a split or create of an
// intercommunicator that should pair mine with theirs (world ranks, by
// new rank), or be null if w is not in mine or theirs is empty: its
// shape, and an Allreduce that gives each group the sum of the other's
// world ranks.
func checkPart(what string, w int, c mpi.Comm, mine, theirs []int) error {
	rank := slices.Index(mine, w)
	if rank < 0 || len(theirs) == 0 {
		if !c.IsNull() {
			return fmt.Errorf("%s: world rank %d got a communicator, want none (mine %v, theirs %v)", what, w, mine, theirs)
		}
		return nil
	}
	if c.IsNull() {
		return fmt.Errorf("%s: world rank %d got none, want rank %d of %v facing %v", what, w, rank, mine, theirs)
	}
	if !c.TestInter() || c.Rank() != rank || c.Size() != len(mine) || c.RemoteSize() != len(theirs) {
		return fmt.Errorf("%s: inter %v, rank %d of %d facing %d, want rank %d of %v facing %v",
			what, c.TestInter(), c.Rank(), c.Size(), c.RemoteSize(), rank, mine, theirs)
	}
	sum := []int{0}
	if err := mpi.Allreduce([]int{w}, sum, mpi.Sum, c); err != nil {
		return fmt.Errorf("%s: allreduce: %w", what, err)
	}
	want := 0
	for _, r := range theirs {
		want += r
	}
	if sum[0] != want {
		return fmt.Errorf("%s: allreduce across gave %d, want %d (the sum of %v)", what, sum[0], want, theirs)
	}
	return c.Free()
}

// interConcurrent: two goroutines of every rank create at once two
// intercommunicators of different groups (even/odd, lower/upper half),
// with different tags over world, then ping-pong on both at once. The
// splits that make the local communicators are collectives on world,
// made one after the other.
func interConcurrent(w mpi.Comm) error {
	n := w.Size()
	colors := []func(int) int{func(r int) int { return r % 2 }, func(r int) int { return r * 2 / n }}
	sides := make([]side, len(colors))
	for i, colorOf := range colors {
		var err error
		if sides[i], err = newSide(w, colorOf); err != nil {
			return err
		}
	}
	errs := make([]error, len(colors))
	var wg sync.WaitGroup
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ic, err := mpi.IntercommCreate(s.local, 0, w, s.remoteLeader, 100+i)
			if err == nil {
				err = pingPongAcross(s, ic)
			}
			if err == nil {
				err = ringAcross(s, ic)
			}
			if err == nil {
				err = errors.Join(ic.Free(), s.local.Free())
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// createGroup: ranks 3, 2 and 0 make two communicators at once, from two
// goroutines with different tags, one in that order and one in the
// reverse, and reduce over each, while rank 1 waits in a Recv from rank 0
// that rank 0 sends afterwards; rank 1 then calls CreateGroup as a
// non-member and must be refused. At the members, a wildcard receive on
// world stays posted throughout.
func createGroup(w mpi.Comm) error {
	if w.Size() != 4 {
		return fmt.Errorf("createGroup runs on 4 ranks, not %d", w.Size())
	}
	return underWildcard(w, w.Rank() != 1, func() error { return createGroups(w) })
}

func createGroups(w mpi.Comm) error {
	wg, err := w.Group()
	if err != nil {
		return err
	}
	members := []int{3, 2, 0}
	g, err := wg.Incl(members)
	if err != nil {
		return err
	}
	me := w.Rank()
	if me == 1 {
		buf := make([]int, 1)
		if _, err := mpi.Recv(buf, 0, 5, w); err != nil || buf[0] != 42 {
			return fmt.Errorf("recv while the others create: %v %v", buf, err)
		}
		if c, err := w.CreateGroup(g, 7); err != nil || !c.IsNull() {
			return fmt.Errorf("create group by a non-member: %v, null %v, want a null communicator", err, c.IsNull())
		}
		empty, err := wg.Incl(nil)
		if err != nil {
			return err
		}
		if c, err := w.CreateGroup(empty, 8); err != nil || !c.IsNull() {
			return fmt.Errorf("create group of an empty group: %v, null %v, want a null communicator", err, c.IsNull())
		}
		return nil
	}
	reversed := slices.Clone(members)
	slices.Reverse(reversed)
	rg, err := wg.Incl(reversed)
	if err != nil {
		return err
	}
	orders := [][]int{members, reversed}
	groups := []mpi.Group{g, rg}
	errs := make([]error, len(groups))
	var wait sync.WaitGroup
	for i := range groups {
		wait.Add(1)
		go func() {
			defer wait.Done()
			errs[i] = useGroup(w, groups[i], orders[i], 7+i)
		}()
	}
	wait.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if me == 0 {
		if err := mpi.Send([]int{42}, 1, 5, w); err != nil {
			return err
		}
	}
	if _, err := w.CreateGroup(mpi.Group{}, 7); !errors.Is(err, mpi.ErrGroup) {
		return fmt.Errorf("create group of a null group: %v, want ErrGroup", err)
	}
	return nil
}

// useGroup makes the communicator of g (world ranks order) with tag and
// checks its ranks and a reduction over it.
func useGroup(w mpi.Comm, g mpi.Group, order []int, tag int) error {
	c, err := w.CreateGroup(g, tag)
	if err != nil {
		return fmt.Errorf("create group %v: %w", order, err)
	}
	want := slices.Index(order, w.Rank())
	if c.Rank() != want || c.Size() != len(order) {
		return fmt.Errorf("group %v: rank %d of %d, want %d of %d", order, c.Rank(), c.Size(), want, len(order))
	}
	got := make([]int, 2)
	if err := mpi.Allreduce([]int{w.Rank(), want}, got, mpi.Sum, c); err != nil || got[0] != 5 || got[1] != 3 {
		return fmt.Errorf("group %v: allreduce on the new communicator: %v %v, want [5 3]", order, got, err)
	}
	return c.Free()
}

// interErrors: bad calls fail at every rank that makes them, none waits.
func interErrors(w mpi.Comm) error {
	half, err := w.Split(w.Rank()%2, 0)
	if err != nil {
		return err
	}
	other := 1 - w.Rank()%2
	freed, err := w.Dup()
	if err != nil {
		return err
	}
	freedCopy := freed // Free nulls freed; its copy still names the communicator
	if err := freed.Free(); err != nil {
		return err
	}
	checks := []struct {
		what string
		call func() error
		is   error
		text string
	}{
		{"local leader out of range", func() error {
			_, err := mpi.IntercommCreate(half, half.Size(), w, other, 1)
			return err
		}, mpi.ErrRank, fmt.Sprintf("local leader %d is out of range", half.Size())},
		{"remote leader out of range", func() error {
			_, err := mpi.IntercommCreate(half, 0, w, w.Size(), 1)
			return err
		}, mpi.ErrRank, fmt.Sprintf("remote leader %d is out of range", w.Size())},
		{"nil peer at the leaders", func() error {
			_, err := mpi.IntercommCreate(half, 0, mpi.Comm{}, other, 1)
			return err
		}, mpi.ErrComm, "peer communicator is nil"},
		{"tag out of range at the leaders", func() error {
			_, err := mpi.IntercommCreate(half, 0, w, other, -1)
			return err
		}, mpi.ErrTag, "tag -1 is out of range for the peer communicator"},
		{"freed peer at the leaders", func() error {
			_, err := mpi.IntercommCreate(half, 0, freedCopy, other, 1)
			return err
		}, mpi.ErrComm, "was freed"},
		{"freed local", func() error {
			_, err := mpi.IntercommCreate(freedCopy, 0, w, other, 1)
			return err
		}, mpi.ErrComm, "was freed"},
		{"nil local", func() error {
			_, err := mpi.IntercommCreate(mpi.Comm{}, 0, w, other, 1)
			return err
		}, mpi.ErrComm, "communicator is nil"},
		// Both groups are world: every rank is in both.
		{"overlapping groups", func() error {
			_, err := mpi.IntercommCreate(w, 0, w, 0, 2)
			return err
		}, mpi.ErrArg, fmt.Sprintf("world ranks %v are in both", seq(w.Size()))},
		{"merge of an intracommunicator", func() error {
			_, err := w.Merge(false)
			return err
		}, mpi.ErrComm, "is an intracommunicator"},
	}
	for _, c := range checks {
		err := c.call()
		if !errors.Is(err, c.is) || !strings.Contains(fmt.Sprint(err), c.text) {
			return fmt.Errorf("%s: %v, want %v saying %q", c.what, err, c.is, c.text)
		}
		if n := strings.Count(fmt.Sprint(err), "intercomm create"); n > 1 {
			return fmt.Errorf("%s: %v names the call %d times, want once", c.what, err, n)
		}
	}
	// The world still works after the failed calls.
	ic, err := mpi.IntercommCreate(half, 0, w, other, 3)
	if err != nil {
		return fmt.Errorf("create after the failures: %w", err)
	}
	wg, err := w.Group()
	if err != nil {
		return err
	}
	theirs, err := wg.Incl([]int{other}) // a rank of the remote group
	if err != nil {
		return err
	}
	if _, err := ic.Create(theirs); !errors.Is(err, mpi.ErrGroup) || !strings.Contains(fmt.Sprint(err), "not in the local group") {
		return fmt.Errorf("create of an intercommunicator from a remote rank: %v, want ErrGroup saying it is not in the local group", err)
	}
	return errors.Join(ic.Free(), half.Free())
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
