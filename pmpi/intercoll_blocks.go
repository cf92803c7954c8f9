package pmpi

import (
	"github.com/gompi/gompi/frameworks/coll"
)

// The rest of MPI's collectives on an intercommunicator (intercoll.go): the
// rooted ones (Gather, Scatter, Reduce and their v-forms) and the
// all-to-all ones (Allgather, Alltoall, ReduceScatter and their kin). Every
// pair of ranks that exchange a block exchange a message, empty blocks
// too, so that counts that disagree are caught; the reductions reduce
// within a group over its bridge first, as Allreduce does. Ranks of a
// remote group are numbered in that group, as MPI says.

// rootRole says where a rooted collective's root argument puts this rank:
// the root (Root), its group's other ranks (ProcNull), or the other group,
// which names the root by its rank there.
type rootRole int

const (
	atRoot rootRole = iota
	besideRoot
	facingRoot
)

func (k *collCall) interRoot(root int) (rootRole, error) {
	switch {
	case root == Root:
		return atRoot, nil
	case root == ProcNull:
		return besideRoot, nil
	case root >= 0 && root < len(k.comm.group):
		return facingRoot, nil
	}
	return 0, k.fail(ClassRoot, "root %d is out of range (Root at the root, ProcNull at the other ranks of its group, and the root's rank in its group, 0 to %d, at the ranks of the other group)",
		root, len(k.comm.group)-1)
}

// exchange sends sends[i] to and receives recvs[i] from rank i of the
// remote group, and waits for all. An empty block is neither sent nor
// received: the two sides of a pair agree on its size, so a sender with
// nothing for a rank and that rank skip it alike.
func (r interRun) exchange(tag int, sends, recvs [][]byte) error {
	x := r.x
	reqs := make([]coll.Request, 0, len(sends)+len(recvs))
	for i, b := range recvs {
		if len(b) > 0 {
			reqs = append(reqs, x.Irecv(b, i, tag))
		}
	}
	for i, b := range sends {
		if len(b) > 0 {
			reqs = append(reqs, x.Isend(b, i, tag))
		}
	}
	return x.Wait(reqs...)
}

// split cuts buf into len(counts) blocks at displs, byte counts both.
func split(buf []byte, counts, displs []int) [][]byte {
	out := make([][]byte, len(counts))
	for i, c := range counts {
		out[i] = buf[displs[i] : displs[i]+c : displs[i]+c]
	}
	return out
}

// even is counts and displacements of n blocks of size bytes each.
func even(n, size int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = size, i*size
	}
	return counts, displs
}

// toEach is n copies of b: one block for every remote rank.
func toEach(n int, b []byte) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// rooted checks a Gather's or a Scatter's arguments at this rank (gather
// says which) and returns what runs it. The root's blocks, one per rank of
// the other group, come from rootBlocks, called at the root only; the
// other group's ranks send, or receive, count elements of dt in buf, which
// at the root is the side it does not read and may not be InPlace.
func (k *collCall) rooted(tag, root int, gather bool, buf []byte, count int, dt Datatype, rootBlocks func() ([][]byte, error)) (func(interRun) error, error) {
	role, err := k.interRoot(root)
	if err != nil {
		return nil, err
	}
	switch role {
	case atRoot:
		if err := k.notInPlace(buf); err != nil {
			return nil, err
		}
		blocks, err := rootBlocks()
		if err != nil {
			return nil, err
		}
		if gather {
			return func(r interRun) error { return r.exchange(tag, nil, blocks) }, nil
		}
		return func(r interRun) error { return r.exchange(tag, blocks, nil) }, nil
	case facingRoot:
		what := "receive"
		if gather {
			what = "send"
		}
		d, err := k.data(what, buf, count, dt)
		if err != nil {
			return nil, err
		}
		if len(d) == 0 {
			return nothing, nil // the root's block for this rank is empty too (see exchange)
		}
		if gather {
			return func(r interRun) error { return r.x.Send(d, root, tag) }, nil
		}
		return func(r interRun) error { return r.x.Recv(d, root, tag) }, nil
	}
	return nothing, nil
}

// evenBlocks is the root's buffer of n blocks of count elements of dt,
// one per rank of the other group.
func (k *collCall) evenBlocks(what string, buf []byte, count int, dt Datatype) ([][]byte, error) {
	n := len(k.comm.group)
	b, err := k.data(what, buf, count*n, dt)
	if err != nil {
		return nil, err
	}
	c, d := even(n, count*dt.Size())
	return split(b, c, d), nil
}

// vectorBlocks is the root's buffer of blocks of counts[i] elements of dt
// at displs[i], one per rank of the other group.
func (k *collCall) vectorBlocks(what string, buf []byte, counts, displs []int, dt Datatype) ([][]byte, error) {
	bc, bd, err := k.blocksIn(what, len(k.comm.group), "remote rank", &buf, counts, displs, dt)
	if err != nil {
		return nil, err
	}
	return split(buf, bc, bd), nil
}

// interGather: the root receives rcount elements from each rank of the
// other group, in their rank order; that group's ranks send.
func interGather(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	return interColl(s, &nameGather, comm, func(k *collCall) (func(interRun) error, error) {
		return k.rooted(coll.TagGather, root, true, send, scount, sdt, func() ([][]byte, error) {
			return k.evenBlocks("receive", recv, rcount, rdt)
		})
	})
}

// interGatherv is interGather with counts[i] elements from remote rank i
// at displs[i].
func interGatherv(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) error {
	return interColl(s, &nameGatherv, comm, func(k *collCall) (func(interRun) error, error) {
		return k.rooted(coll.TagGatherv, root, true, send, scount, sdt, func() ([][]byte, error) {
			return k.vectorBlocks("receive", recv, counts, displs, rdt)
		})
	})
}

// interScatter: the root sends block i of send, scount elements, to rank
// i of the other group, whose ranks receive.
func interScatter(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	return interColl(s, &nameScatter, comm, func(k *collCall) (func(interRun) error, error) {
		return k.rooted(coll.TagScatter, root, false, recv, rcount, rdt, func() ([][]byte, error) {
			return k.evenBlocks("send", send, scount, sdt)
		})
	})
}

// interScatterv is interScatter with counts[i] elements from displs[i] to
// remote rank i.
func interScatterv(s *collStart, send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	return interColl(s, &nameScatterv, comm, func(k *collCall) (func(interRun) error, error) {
		return k.rooted(coll.TagScatterv, root, false, recv, rcount, rdt, func() ([][]byte, error) {
			return k.vectorBlocks("send", send, counts, displs, sdt)
		})
	})
}

// interAllgather leaves in recv, at every rank, the send blocks of every
// rank of the other group in their rank order.
func interAllgather(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	return interColl(s, &nameAllgather, comm, func(k *collCall) (func(interRun) error, error) {
		if err := k.notInPlace(send); err != nil {
			return nil, err
		}
		sd, err := k.data("send", send, scount, sdt)
		if err != nil {
			return nil, err
		}
		rb, err := k.evenBlocks("receive", recv, rcount, rdt)
		if err != nil {
			return nil, err
		}
		return func(r interRun) error { return r.exchange(coll.TagAllgather, toEach(len(rb), sd), rb) }, nil
	})
}

// interAllgatherv is interAllgather with counts[i] elements from remote
// rank i at displs[i].
func interAllgatherv(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error {
	return interColl(s, &nameAllgatherv, comm, func(k *collCall) (func(interRun) error, error) {
		if err := k.notInPlace(send); err != nil {
			return nil, err
		}
		sd, err := k.data("send", send, scount, sdt)
		if err != nil {
			return nil, err
		}
		rb, err := k.vectorBlocks("receive", recv, counts, displs, rdt)
		if err != nil {
			return nil, err
		}
		return func(r interRun) error { return r.exchange(coll.TagAllgatherv, toEach(len(rb), sd), rb) }, nil
	})
}

// interAlltoall sends block i of send to rank i of the other group and
// receives block j of recv from its rank j.
func interAlltoall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	return interColl(s, &nameAlltoall, comm, func(k *collCall) (func(interRun) error, error) {
		if err := k.notInPlace(send); err != nil {
			return nil, err
		}
		sb, err := k.evenBlocks("send", send, scount, sdt)
		if err != nil {
			return nil, err
		}
		rb, err := k.evenBlocks("receive", recv, rcount, rdt)
		if err != nil {
			return nil, err
		}
		return func(r interRun) error { return r.exchange(coll.TagAlltoall, sb, rb) }, nil
	})
}

// interAlltoallv is interAlltoall with a count and displacement for each
// remote rank on both sides.
func interAlltoallv(s *collStart, send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error {
	return interColl(s, &nameAlltoallv, comm, func(k *collCall) (func(interRun) error, error) {
		if err := k.notInPlace(send); err != nil {
			return nil, err
		}
		sb, err := k.vectorBlocks("send", send, scounts, sdispls, sdt)
		if err != nil {
			return nil, err
		}
		rb, err := k.vectorBlocks("receive", recv, rcounts, rdispls, rdt)
		if err != nil {
			return nil, err
		}
		return func(r interRun) error { return r.exchange(coll.TagAlltoallv, sb, rb) }, nil
	})
}

// interAlltoallw is interAlltoallv with a datatype for each block and
// displacements in bytes.
func interAlltoallw(s *collStart, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error {
	return interColl(s, &nameAlltoallw, comm, func(k *collCall) (func(interRun) error, error) {
		if err := k.notInPlace(send); err != nil {
			return nil, err
		}
		n := len(comm.group)
		rb, _, err := k.wBlocks("receive", n, "remote rank", recv, rcounts, rdispls, rtypes)
		if err != nil {
			return nil, err
		}
		sb, _, err := k.wBlocks("send", n, "remote rank", send, scounts, sdispls, stypes)
		if err != nil {
			return nil, err
		}
		return func(r interRun) error { return r.exchange(coll.TagAlltoallw, sb, rb) }, nil
	})
}

// interReduce leaves at the root the reduction of the send data of every
// rank of the other group: that group reduces to its rank 0, which sends
// the result.
func interReduce(s *collStart, send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) error {
	return interColl(s, &nameReduce, comm, func(k *collCall) (func(interRun) error, error) {
		role, err := k.interRoot(root)
		if err != nil {
			return nil, err
		}
		if err := k.notInPlace(send, recv); err != nil {
			return nil, err
		}
		switch role {
		case atRoot:
			if _, err := k.bind(op, dt); err != nil {
				return nil, err
			}
			if err := k.records("count", count, dt, op); err != nil {
				return nil, err
			}
			rd, err := k.data("receive", recv, count, dt)
			if err != nil {
				return nil, err
			}
			return func(r interRun) error { return r.x.Recv(rd, 0, coll.TagReduce) }, nil
		case facingRoot:
			o, sd, _, err := k.reduction(send, nil, count, dt, op, false)
			if err != nil {
				return nil, err
			}
			return func(r interRun) error {
				mine, err := r.reduce(sd, len(sd), o)
				if err == nil && mine != nil {
					err = r.x.Send(mine, root, coll.TagReduce)
				}
				return err
			}, nil
		}
		return nothing, nil
	})
}

// interReduceScatter leaves at rank i of each group counts[i] elements of
// the reduction of the other group's send vectors (the sum of counts
// elements, the same total at both groups): each group reduces to its
// rank 0, the two swap, and each rank takes its part.
func interReduceScatter(s *collStart, send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) error {
	return interColl(s, &nameReduceScatter, comm, func(k *collCall) (func(interRun) error, error) {
		if len(counts) != comm.Size() {
			return nil, k.fail(ClassArg, "%d counts for a group of %d ranks (want one per rank of this group)", len(counts), comm.Size())
		}
		total, at := 0, 0
		for i, c := range counts {
			if c < 0 {
				return nil, k.fail(ClassCount, "count %d for rank %d is negative", c, i)
			}
			if i == comm.rank {
				at = total
			}
			total += c
		}
		return k.reduceScatter(send, recv, total, at, counts[comm.rank], dt, op)
	})
}

// interReduceScatterBlock is interReduceScatter with count elements for
// every rank: the send vectors hold the group's size times count.
func interReduceScatterBlock(s *collStart, send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	return interColl(s, &nameReduceScatterBlock, comm, func(k *collCall) (func(interRun) error, error) {
		if count < 0 {
			return nil, k.fail(ClassCount, "the count %d is negative", count)
		}
		return k.reduceScatter(send, recv, count*comm.Size(), count*comm.rank, count, dt, op)
	})
}

// reduceScatter checks a reduce-scatter of total elements of send, of
// which this rank keeps n from at, and returns what runs it: it reduces
// within the group, swaps the result with the other group's, and keeps
// its part.
func (k *collCall) reduceScatter(send, recv []byte, total, at, n int, dt Datatype, op Op) (func(interRun) error, error) {
	if err := k.notInPlace(send, recv); err != nil {
		return nil, err
	}
	o, sd, _, err := k.reduction(send, nil, total, dt, op, false)
	if err != nil {
		return nil, err
	}
	rd, err := k.data("receive", recv, n, dt)
	if err == nil {
		err = k.apart(sd, rd)
	}
	if err != nil {
		return nil, err
	}
	size := dt.Size()
	return func(r interRun) error {
		mine, err := r.reduce(sd, len(sd), o)
		if err != nil {
			return err
		}
		theirs, err := r.across(mine)
		if err == nil && len(theirs) != len(sd) {
			err = errorf(ClassCount, nil, "the remote group reduced %d bytes where this one reduced %d: the groups' counts or datatypes disagree", len(theirs), len(sd))
		}
		if err == nil {
			copy(rd, theirs[at*size:(at+n)*size])
		}
		return err
	}, nil
}
