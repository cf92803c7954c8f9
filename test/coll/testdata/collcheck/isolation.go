package main

import (
	"github.com/gompi/gompi/mpi"
)

// isolation runs collectives on c while every rank has a receive from any
// source with any tag posted on c: the collectives' messages travel on
// their own context and must never match it; the user's message, sent
// afterwards, must.
func isolation(x *checker, c mpi.Comm) {
	me, size := c.Rank(), c.Size()
	got := []int64{-1, -1}
	req, err := mpi.Irecv(got, mpi.AnySource, mpi.AnyTag, c)
	x.ok(err, "%s irecv any source any tag", c.Name())
	for _, root := range roots(size) {
		bcast(x, c, int32s, 5, root, c.Name()+" bcast beside a posted receive")
		gather(x, c, int64Kind, 2, root, c.Name()+" gather beside a posted receive")
	}
	alltoall(x, c, int64Kind, 2, c.Name()+" alltoall beside a posted receive")
	reduce(x, c, int64Reductions()[0], 2)
	// No rank sends its message before every rank has looked.
	_, done, err := req.Test()
	x.ok(err, "%s test the posted receive", c.Name())
	equal(x, done, false, "%s: a collective's message completed a user's receive", c.Name())
	x.ok(mpi.Barrier(c), "%s barrier beside a posted receive", c.Name())

	to, from := (me+1)%size, (me+size-1)%size
	x.ok(mpi.Send([]int64{int64(me), 77}, to, 9, c), "%s send after the collectives", c.Name())
	st, err := req.Wait()
	x.ok(err, "%s wait for the posted receive", c.Name())
	equal(x, st.Source, from, "%s: source of the user's message", c.Name())
	equal(x, st.Tag, 9, "%s: tag of the user's message", c.Name())
	same(x, got, []int64{int64(from), 77}, "%s: the user's message", c.Name())
}

var int64Kind = kind[int64]{"int64", func(v int) int64 { return int64(v) << 20 }, -3}

// contexts posts a receive from any source with any tag on world, then
// receives from the same rank with the same tag on a Dup and on a Split
// of world; each rank then sends to the next on the Dup, on the Split
// and, last, on world. Only the context tells the messages apart: each
// receive must get its own communicator's message, world's receive never
// the others' (they come first from the same sender).
func contexts(x *checker, w mpi.Comm) {
	me, size := w.Rank(), w.Size()
	dup, err := w.Dup()
	x.ok(err, "dup for the contexts check")
	split, err := w.Split(me%2, me)
	x.ok(err, "split for the contexts check")
	const tag = 4
	comms := []mpi.Comm{w, dup, split}
	names := []string{"world", "a dup of world", "a split of world"}
	got := make([][]int64, len(comms))
	var reqs []mpi.Request
	for i, c := range comms {
		got[i] = []int64{-1, -1}
		src := (c.Rank() + c.Size() - 1) % c.Size()
		if i == 0 {
			src = mpi.AnySource
		}
		req, err := mpi.Irecv(got[i], src, tag, c)
		x.ok(err, "irecv on %s", names[i])
		reqs = append(reqs, req)
	}
	for _, i := range []int{1, 2, 0} { // world's message last
		c := comms[i]
		req, err := mpi.Isend([]int64{int64(me), int64(i)}, (c.Rank()+1)%c.Size(), tag, c)
		x.ok(err, "isend on %s", names[i])
		reqs = append(reqs, req)
	}
	x.ok(mpi.WaitAll(reqs...), "wait for the contexts check's messages")
	for i, c := range comms {
		from := (c.Rank() + c.Size() - 1) % c.Size()
		same(x, got[i], []int64{int64(worldRank(x, c, from, w)), int64(i)}, "the message received on %s (%d ranks)", names[i], size)
	}
	x.ok(dup.Free(), "free the dup")
	x.ok(split.Free(), "free the split")
}

// worldRank is the world rank of rank r of c.
func worldRank(x *checker, c mpi.Comm, r int, w mpi.Comm) int {
	g, err := c.Group()
	x.ok(err, "group of %s", c.Name())
	wg, err := w.Group()
	x.ok(err, "world group")
	ranks, err := g.TranslateRanks([]int{r}, wg)
	x.ok(err, "translate a rank of %s", c.Name())
	return ranks[0]
}
