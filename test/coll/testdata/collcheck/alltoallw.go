package main

import "github.com/gompi/gompi/mpi"

func init() { scenarios["alltoallw"] = alltoallwScenario }

// The alltoallw scenario exchanges blocks whose every one has its own
// datatype and byte displacement: rank s sends rank d amount(s, d)
// elements, none for some pairs (a rank to itself among them), as a
// strided vector to odd ranks and as plain int64s to even ones, received
// as a vector from ranks 3k+2 and as plain int64s from the others, each
// block in a room of its own, the rooms in reverse order on the send
// side. Blocking, non-blocking, persistent (started twice with new data)
// and in place; then the errors a rank sees alone.

// wRoom is the int64s each block has room for: the in-place blocks'
// largest count, 8, strided two apart.
const wRoom = 16

// amount is how many int64s rank s sends rank d.
func amount(s, d int) int { return 2 * ((s*s + d) % 3) }

// wValue is element e of what rank s sends rank d in round k.
func wValue(k, s, d, e int) int64 { return int64(k*1000000 + s*1000 + d*10 + e) }

// wLayout is where element e of a block lies from the block's start,
// in int64s: strided blocks take every other one.
func wLayout(strided bool, e int) int {
	if strided {
		return 2 * e
	}
	return e
}

// wSide is one side of an Alltoallw: the counts, byte displacements and
// datatypes per rank, and which blocks are strided.
type wSide struct {
	counts, displs []int
	types          []mpi.Datatype
	strided        []bool
}

// side lays out n blocks: block j holds count(j) elements, strided if
// strided(j), in room at(j).
func side(n int, count func(int) int, strided func(int) bool, at func(int) int, pair mpi.Layout[int64]) wSide {
	w := wSide{make([]int, n), make([]int, n), make([]mpi.Datatype, n), make([]bool, n)}
	for j := range n {
		k := count(j)
		w.strided[j] = strided(j)
		w.displs[j] = at(j) * wRoom * 8
		if w.strided[j] {
			w.counts[j], w.types[j] = k/2, pair.Datatype()
		} else {
			w.counts[j], w.types[j] = k, mpi.TypeOf[int64]()
		}
	}
	return w
}

func alltoallwScenario(x *checker, world mpi.Comm) {
	n, me := world.Size(), world.Rank()
	// pair is two int64s three apart, its extent four: element e of a
	// block of pairs is at 4*(e/2) + 2*(e%2), the same as every other
	// int64 (wLayout).
	v, err := mpi.Vector[int64](2, 1, 2)
	x.ok(err, "vector type")
	pair, err := v.Resized(0, 32)
	x.ok(err, "resized vector type")
	s := side(n, func(j int) int { return amount(me, j) }, func(j int) bool { return j%2 == 1 },
		func(j int) int { return n - 1 - j }, pair)
	r := side(n, func(j int) int { return amount(j, me) }, func(j int) bool { return j%3 == 2 },
		func(j int) int { return j }, pair)

	fill := func(k int) []int64 {
		send := make([]int64, n*wRoom)
		for j := range n {
			for e := range amount(me, j) {
				send[(n-1-j)*wRoom+wLayout(s.strided[j], e)] = wValue(k, me, j, e)
			}
		}
		return send
	}
	want := func(k int) []int64 {
		out := make([]int64, n*wRoom)
		for j := range n {
			for e := range amount(j, me) {
				out[j*wRoom+wLayout(r.strided[j], e)] = wValue(k, j, me, e)
			}
		}
		return out
	}

	send := fill(0)
	got := make([]int64, n*wRoom)
	x.ok(mpi.Alltoallw(send, s.counts, s.displs, s.types, got, r.counts, r.displs, r.types, world), "Alltoallw")
	same(x, got, want(0), "Alltoallw")

	clear(got)
	req, err := mpi.Ialltoallw(send, s.counts, s.displs, s.types, got, r.counts, r.displs, r.types, world)
	x.ok(err, "Ialltoallw")
	_, err = req.Wait()
	x.ok(err, "Ialltoallw's wait")
	same(x, got, want(0), "Ialltoallw")

	p, err := mpi.AlltoallwInit(send, s.counts, s.displs, s.types, got, r.counts, r.displs, r.types, world)
	x.ok(err, "AlltoallwInit")
	for k := range 2 {
		copy(send, fill(k))
		clear(got)
		x.ok(p.Start(), "AlltoallwInit's start %d", k)
		_, err = p.Wait()
		x.ok(err, "AlltoallwInit's wait %d", k)
		same(x, got, want(k), "AlltoallwInit, start %d", k)
	}
	x.ok(p.Free(), "AlltoallwInit's free")

	alltoallwInPlace(x, world, pair)
	alltoallwErrors(x, world, v)
}

// alltoallwInPlace: block j of the buffer goes to rank j and is replaced
// by what rank j sends back, amount(me, j)+amount(j, me) elements both
// ways, strided for odd j.
func alltoallwInPlace(x *checker, world mpi.Comm, pair mpi.Layout[int64]) {
	n, me := world.Size(), world.Rank()
	both := func(a, b int) int { return amount(a, b) + amount(b, a) }
	w := side(n, func(j int) int { return both(me, j) }, func(j int) bool { return j%2 == 1 }, func(j int) int { return j }, pair)
	fill := func(buf []int64, k int, from bool) {
		clear(buf)
		for j := range n {
			for e := range both(me, j) {
				v := wValue(k, me, j, e)
				if from {
					v = wValue(k, j, me, e)
				}
				buf[j*wRoom+wLayout(w.strided[j], e)] = v
			}
		}
	}
	buf, want := make([]int64, n*wRoom), make([]int64, n*wRoom)
	fill(buf, 0, false)
	fill(want, 0, true)
	x.ok(mpi.AlltoallwInPlace(buf, w.counts, w.displs, w.types, world), "AlltoallwInPlace")
	same(x, buf, want, "AlltoallwInPlace")

	fill(buf, 1, false)
	req, err := mpi.IalltoallwInPlace(buf, w.counts, w.displs, w.types, world)
	x.ok(err, "IalltoallwInPlace")
	_, err = req.Wait()
	x.ok(err, "IalltoallwInPlace's wait")
	fill(want, 1, true)
	same(x, buf, want, "IalltoallwInPlace")

	p, err := mpi.AlltoallwInPlaceInit(buf, w.counts, w.displs, w.types, world)
	x.ok(err, "AlltoallwInPlaceInit")
	for k := 2; k < 4; k++ {
		fill(buf, k, false) // each start sends what the buffer holds then
		x.ok(p.Start(), "AlltoallwInPlaceInit's start %d", k)
		_, err = p.Wait()
		x.ok(err, "AlltoallwInPlaceInit's wait %d", k)
		fill(want, k, true)
		same(x, buf, want, "AlltoallwInPlaceInit, start %d", k)
	}
	x.ok(p.Free(), "AlltoallwInPlaceInit's free")
}

// alltoallwErrors: arguments wrong at every rank alike, found before any
// message, so the ranks stay in step.
func alltoallwErrors(x *checker, world mpi.Comm, v mpi.Layout[int64]) {
	n := world.Size()
	ones, zeros, int64s := make([]int, n), make([]int, n), make([]mpi.Datatype, n)
	displs := make([]int, n)
	for j := range n {
		ones[j], int64s[j], displs[j] = 1, mpi.TypeOf[int64](), 8*j
	}
	send, recv := make([]int64, n), make([]int64, n)
	call := func(sc, sd []int, st []mpi.Datatype, recv []int64) error {
		return mpi.Alltoallw(send, sc, sd, st, recv, ones, displs, int64s, world)
	}
	x.wantErr(call(ones[:n-1], displs, int64s, recv), mpi.ErrArg, "a count short")
	x.wantErr(call(ones, displs, int64s[:n-1], recv), mpi.ErrArg, "a datatype short")
	neg := append([]int(nil), ones...)
	neg[n-1] = -1
	x.wantErr(call(neg, displs, int64s, recv), mpi.ErrCount, "a negative count")
	far := append([]int(nil), displs...)
	far[n-1] = 8 * n
	x.wantErr(call(ones, far, int64s, recv), mpi.ErrBuffer, "a block past the buffer's end")
	x.wantErr(call(ones, displs, []mpi.Datatype(nil), recv), mpi.ErrArg, "no datatypes")
	x.wantErr(call(ones, displs, make([]mpi.Datatype, n), recv), mpi.ErrType, "null datatypes")
	freed, err := mpi.Contiguous[int64](1)
	x.ok(err, "contiguous type")
	x.ok(freed.Free(), "free the contiguous type")
	types := append([]mpi.Datatype(nil), int64s...)
	types[0] = freed.Datatype()
	x.wantErr(call(ones, displs, types, recv), mpi.ErrType, "a freed datatype")
	// The block a rank sends itself must be as long as the one it
	// receives from itself: 2 int64s of v against one, truncated.
	types = append([]mpi.Datatype(nil), int64s...)
	types[world.Rank()] = v.Datatype()
	big := make([]int64, 3*n)
	x.wantErr(mpi.Alltoallw(big, ones, displs, types, recv, ones, displs, int64s, world), mpi.ErrTruncate, "a block to itself of another size")
	// Zero counts move nothing, but their datatypes must be valid, as
	// Open MPI and MPICH have them.
	x.ok(mpi.Alltoallw(send, zeros, zeros, int64s, recv, zeros, zeros, int64s, world), "Alltoallw of zero counts")
	x.wantErr(mpi.Alltoallw(send, zeros, zeros, int64s, recv, zeros, zeros, make([]mpi.Datatype, n), world), mpi.ErrType,
		"zero counts of null datatypes")
	x.wantErr(mpi.Alltoallw(send, ones, displs, int64s, send, ones, displs, int64s, world), mpi.ErrBuffer, "one buffer for both sides")
}
