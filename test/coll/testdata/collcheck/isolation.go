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
