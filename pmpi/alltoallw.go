package pmpi

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"
)

// The w-forms of the all-to-all exchanges give every block its own count,
// datatype and displacement, the displacement in bytes (not in elements
// of the type, as in the v-forms). Each block is resolved here into its
// bytes, a slice of the user's buffer for a contiguous type or a packed
// copy for one that is not (unpacked once a receive succeeds), and the
// coll module moves a slice per block. Every block's datatype must be
// usable, a block of count 0's too, as Open MPI and MPICH require: a
// program that passes MPI_DATATYPE_NULL there fails on them.

// wBlocks resolves the blocks of buf: counts[i] elements of types[i] at
// byte displs[i], for each of parts peers, per naming them ("rank",
// "source"). at[i] is block i's offset in buf, or -1 for a packed copy.
func (k *collCall) wBlocks(what string, parts int, per string, buf []byte, counts, displs []int, types []Datatype) (blocks [][]byte, at []int, err error) {
	if len(counts) != parts || len(displs) != parts || len(types) != parts {
		return nil, nil, k.fail(ClassArg, "%d %s counts, %d displacements and %d datatypes for %d %ss (want one of each per %s)",
			len(counts), what, len(displs), len(types), parts, per, per)
	}
	blocks, at = make([][]byte, parts), make([]int, parts)
	for i := range parts {
		c, d := counts[i], displs[i]
		if c < 0 {
			return nil, nil, k.fail(ClassCount, "%s count %d for %s %d is negative", what, c, per, i)
		}
		// The checks name the block only when one fails: a name made
		// for every block made a call of 8-byte blocks on 4 ranks 2.5
		// times as long.
		t := types[i].t
		if !ready(t) {
			_, err := usable(fmt.Sprintf("the %s datatype of %s %d", what, per, i), types[i])
			return nil, nil, k.comm.handle(errorf(ClassType, nil, "%s on %v: %s", k.op, k.comm, err.(*Error).Msg))
		}
		if c == 0 {
			at[i] = -1
			continue
		}
		if d < 0 || d > len(buf) {
			return nil, nil, k.fail(ClassBuffer, "%s block of %s %d: its displacement, %d bytes, lies outside the %d-byte %s buffer",
				what, per, i, d, len(buf), what)
		}
		if !t.fits(len(buf)-d, c) {
			err := t.span(fmt.Sprintf("the %s block of %s %d, at byte %d", what, per, i, d), len(buf)-d, c)
			return nil, nil, k.comm.handle(errorf(ClassBuffer, nil, "%s on %v: %s", k.op, k.comm, err.(*Error).Msg))
		}
		if !t.packs {
			blocks[i], at[i] = buf[d:d+c*t.size], d
			continue
		}
		conv := packFor(t, buf[d:], c)
		if what != "send" {
			conv.user = buf[d:]
		}
		k.convs = append(k.convs, conv)
		blocks[i], at[i] = *conv.packed, -1
	}
	return blocks, at, nil
}

// blocksMeet reports whether a send block and a receive block of a
// w-form share a byte. The sides' buffers may overlap where their blocks
// do not: blocks interleaved in one array, or each in its own allocation
// from MPI_BOTTOM in C, the buffers then reaching from the lowest block
// to the highest. Each block is taken as the bytes from its first byte of
// data to its last.
func blocksMeet(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) bool {
	if !overlap(send, recv) {
		return false
	}
	var spans []span
	add := func(buf []byte, counts, displs []int, types []Datatype, recv bool) {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
		for i, c := range counts {
			if c > 0 && types[i].t.size > 0 {
				lo, hi := types[i].t.reach(c)
				spans = append(spans, span{base + uintptr(displs[i]+lo), base + uintptr(displs[i]+hi), recv})
			}
		}
	}
	add(send, scounts, sdispls, stypes, false)
	add(recv, rcounts, rdispls, rtypes, true)
	return spansMeet(spans)
}

// vBlocksMeet is blocksMeet for a v-form's sides, whose blocks are bc[i]
// bytes at bd[i] of their buffer; a side with nil counts is one block, its
// buffer. A receive buffer reaches from its origin, which may lie well
// before its first block, and a block of no elements may lie anywhere.
func vBlocksMeet(send []byte, sc, sd []int, recv []byte, rc, rd []int) bool {
	if !overlap(send, recv) {
		return false
	}
	var spans []span
	add := func(buf []byte, counts, displs []int, recv bool) {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
		if counts == nil {
			spans = append(spans, span{base, base + uintptr(len(buf)), recv})
			return
		}
		for i, c := range counts {
			if c > 0 {
				spans = append(spans, span{base + uintptr(displs[i]), base + uintptr(displs[i]+c), recv})
			}
		}
	}
	add(send, sc, sd, false)
	add(recv, rc, rd, true)
	return spansMeet(spans)
}

// span is the bytes [lo, hi) of one block of a send or a receive side.
type span struct {
	lo, hi uintptr
	recv   bool
}

// spansMeet reports whether a send span shares a byte with a receive span.
func spansMeet(spans []span) bool {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var end [2]uintptr // the farthest end of either side's blocks so far
	for _, s := range spans {
		me, other := 0, 1
		if s.recv {
			me, other = 1, 0
		}
		if end[other] > s.lo {
			return true
		}
		end[me] = max(end[me], s.hi)
	}
	return false
}

// inPlaceBlocks is the send side of an in-place w-form: a copy of each
// receive block. The blocks that lie in recv are taken from one copy of
// it, which a persistent call copies again at each start (k.from); a
// packed copy is cloned, and packed again at each start.
func (k *collCall) inPlaceBlocks(recv []byte, rblocks [][]byte, at []int) (clone []byte, sblocks [][]byte) {
	clone = k.inPlace(recv)
	sblocks = make([][]byte, len(rblocks))
	for j, b := range rblocks {
		if at[j] >= 0 {
			sblocks[j] = clone[at[j] : at[j]+len(b)]
		} else {
			sblocks[j] = slices.Clone(b)
		}
	}
	return clone, sblocks
}

// Alltoallw sends scounts[i] elements of stypes[i], sdispls[i] bytes into
// send, to rank i, and receives rcounts[j] elements of rtypes[j],
// rdispls[j] bytes into recv, from rank j. send may be InPlace: the
// blocks of recv are then sent and replaced, and scounts, sdispls and
// stypes are ignored.
func (*realAPI) Alltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error {
	return alltoallwCall(nil, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
}

// alltoallwCall is Alltoallw, blocking when s is nil, else started as s says.
func alltoallwCall(s *collStart, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interAlltoallw(s, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	}
	k, err := startColl(s, &nameAlltoallw, comm)
	if err != nil {
		return err
	}
	n := comm.Size()
	rb, at, err := k.wBlocks("receive", n, "rank", recv, rcounts, rdispls, rtypes)
	if err != nil {
		return err
	}
	o := collOp{kind: collAlltoallw, rblocks: rb}
	if IsInPlace(send) {
		o.send, o.sblocks = k.inPlaceBlocks(recv, rb, at)
		return k.run(s, &o)
	}
	if o.sblocks, _, err = k.wBlocks("send", n, "rank", send, scounts, sdispls, stypes); err != nil {
		return err
	}
	// A block to itself of another length is the component's to report
	// (coll.CheckOwnBlock): it still exchanges with the others, who would
	// wait for ever if this rank returned here.
	if blocksMeet(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes) {
		return k.apart(send, recv)
	}
	return k.run(s, &o)
}

// NeighborAlltoallw sends scounts[i] elements of stypes[i], sdispls[i]
// bytes into send, to destination i of comm's topology, and receives
// rcounts[j] elements of rtypes[j], rdispls[j] bytes into recv, from
// source j.
func (*realAPI) NeighborAlltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error {
	return neighborAlltoallwCall(nil, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
}

func neighborAlltoallwCall(s *collStart, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error {
	k, err := startColl(s, &nameNeighborAlltoallw, comm)
	if err != nil {
		return err
	}
	nb, err := k.neighborhood()
	if err != nil {
		return err
	}
	if err := k.notInPlace(send); err != nil {
		return err
	}
	rb, _, err := k.wBlocks("receive", len(nb.Sources), "source", recv, rcounts, rdispls, rtypes)
	if err != nil {
		return err
	}
	sb, _, err := k.wBlocks("send", len(nb.Dests), "destination", send, scounts, sdispls, stypes)
	if err != nil {
		return err
	}
	if blocksMeet(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes) {
		return k.separate(send, recv)
	}
	return k.run(s, &collOp{kind: collNeighborAlltoallw, sblocks: sb, rblocks: rb, nb: nb})
}

// Ialltoallw starts Alltoallw and returns its request.
func (*realAPI) Ialltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return alltoallwCall(s, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}

// AlltoallwInit makes a persistent Alltoallw: inactive until Start, run
// again at each.
func (*realAPI) AlltoallwInit(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return alltoallwCall(s, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}

// IneighborAlltoallw starts NeighborAlltoallw and returns its request.
func (*realAPI) IneighborAlltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return neighborAlltoallwCall(s, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}

// NeighborAlltoallwInit makes a persistent NeighborAlltoallw.
func (*realAPI) NeighborAlltoallwInit(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return neighborAlltoallwCall(s, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}
