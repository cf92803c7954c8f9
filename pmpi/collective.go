package pmpi

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/gompi/gompi/frameworks/coll"
)

// The collectives check their arguments as far as one rank can see them,
// resolve MPI_IN_PLACE into buffers that do not overlap, turn counts into
// bytes, and call the function the communicator's coll table chose.

var inPlaceMark [1]byte

// InPlace, passed as a send buffer (or as the receive buffer of Scatter
// and Scatterv at the root), is MPI_IN_PLACE: the data is taken from, and
// left in, the other buffer.
var InPlace = inPlaceMark[:0:0]

// IsInPlace reports whether b is InPlace.
func IsInPlace(b []byte) bool {
	return cap(b) == 0 && unsafe.SliceData(b) == unsafe.SliceData(InPlace)
}

// collCall is one collective call's checked state.
type collCall struct {
	op   string
	comm *Comm
	t    *coll.Table
}

func startColl(op string, comm *Comm) (collCall, error) {
	if _, err := collArgs(op, comm); err != nil {
		return collCall{}, err
	}
	return collCall{op: op, comm: comm, t: comm.colls}, nil
}

func (k *collCall) fail(class ErrorClass, format string, args ...any) error {
	return k.comm.handle(errorf(class, nil, "%s on %v: %s", k.op, k.comm, fmt.Sprintf(format, args...)))
}

// done wraps what the algorithm returned.
func (k *collCall) done(err error) error {
	if err == nil {
		return nil
	}
	return k.comm.handle(errorf(classOf(err), err, "%s on %v", k.op, k.comm))
}

func (k *collCall) missing() error {
	return k.comm.handle(errorf(ClassIntern, coll.ErrNoProvider, "%s on %v (coll components: check the coll parameter)", k.op, k.comm))
}

func (k *collCall) root(root int) error {
	if root < 0 || root >= k.comm.Size() {
		return k.fail(ClassRoot, "root %d is out of range (0 to %d)", root, k.comm.Size()-1)
	}
	return nil
}

// data returns the first count elements of dt in buf.
func (k *collCall) data(what string, buf []byte, count int, dt Datatype) ([]byte, error) {
	if dt.Size() <= 0 {
		return nil, k.fail(ClassType, "the %s datatype is invalid", what)
	}
	if count < 0 {
		return nil, k.fail(ClassCount, "the %s count %d is negative", what, count)
	}
	if count > len(buf)/dt.Size() {
		return nil, k.fail(ClassBuffer, "the %s buffer of %d bytes is too small for %d elements of %s", what, len(buf), count, dt.Name())
	}
	return buf[:count*dt.Size()], nil
}

// vector turns per-rank counts and displacements in elements of dt into
// bytes and checks that each block lies inside a buffer of n bytes.
func (k *collCall) vector(what string, counts, displs []int, dt Datatype, n int) ([]int, []int, error) {
	size := k.comm.Size()
	if len(counts) != size || (displs != nil && len(displs) != size) {
		return nil, nil, k.fail(ClassArg, "%d %s counts and %d displacements for %d ranks (want one per rank)", len(counts), what, len(displs), size)
	}
	if dt.Size() <= 0 {
		return nil, nil, k.fail(ClassType, "the %s datatype is invalid", what)
	}
	bc, bd := make([]int, size), make([]int, size)
	off := 0
	for i := range size {
		d := off
		if displs != nil {
			d = displs[i]
		}
		switch {
		case counts[i] < 0:
			return nil, nil, k.fail(ClassCount, "%s count %d for rank %d is negative", what, counts[i], i)
		case d < 0 || (d+counts[i])*dt.Size() > n:
			return nil, nil, k.fail(ClassBuffer, "%s block of rank %d (%d elements at %d) lies outside the buffer of %d elements",
				what, i, counts[i], d, n/dt.Size())
		}
		bc[i], bd[i] = counts[i]*dt.Size(), d*dt.Size()
		off += counts[i]
	}
	return bc, bd, nil
}

// match checks that a block sent and a block received have the same size.
func (k *collCall) match(sendBytes, recvBytes int) error {
	if sendBytes != recvBytes {
		return k.fail(ClassCount, "this rank sends blocks of %d bytes but receives blocks of %d: the counts or datatypes disagree", sendBytes, recvBytes)
	}
	return nil
}

// apart fails if a and b share memory: the in-place form is the way to
// reduce or gather into the same buffer.
func (k *collCall) apart(a, b []byte) error {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	if pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a)) {
		return k.fail(ClassBuffer, "the send and receive buffers overlap (use the in-place form)")
	}
	return nil
}

func (k *collCall) onlyAtRoot(root int, what []byte) error {
	if IsInPlace(what) && k.comm.rank != root {
		return k.fail(ClassBuffer, "InPlace is allowed only at the root")
	}
	return nil
}

// Barrier returns once every rank of comm has called it.
func (*realAPI) Barrier(comm *Comm) error {
	k, err := startColl("barrier", comm)
	if err != nil {
		return err
	}
	if k.t.Barrier == nil {
		return k.missing()
	}
	return k.done(k.t.Barrier(comm.cc))
}

// Bcast sends count elements of dt in buf from root to every rank.
func (*realAPI) Bcast(buf []byte, count int, dt Datatype, root int, comm *Comm) error {
	k, err := startColl("bcast", comm)
	if err != nil {
		return err
	}
	if err := k.root(root); err != nil {
		return err
	}
	data, err := k.data("", buf, count, dt)
	if err != nil {
		return err
	}
	if k.t.Bcast == nil {
		return k.missing()
	}
	return k.done(k.t.Bcast(comm.cc, data, root))
}

// bind joins op to dt, or fails saying why MPI does not define op on dt.
func (k *collCall) bind(op Op, dt Datatype) (coll.Op, error) {
	o, why := bind(op, dt)
	if why != "" {
		return nil, k.fail(ClassOp, "%s", why)
	}
	return o, nil
}

// records fails unless count elements of dt are whole records of op; what
// names the count.
func (k *collCall) records(what string, count int, dt Datatype, op Op) error {
	if rec := op.Record(); count%rec != 0 {
		return k.fail(ClassCount, "the %s %d is not a whole number of the operation's records of %d elements of %s",
			what, count, rec, dt.Name())
	}
	return nil
}

// reduction checks the arguments every reduction shares and resolves
// InPlace: the send data is then a copy of recv's.
func (k *collCall) reduction(send, recv []byte, count int, dt Datatype, op Op, recvHere bool) (coll.Op, []byte, []byte, error) {
	o, err := k.bind(op, dt)
	if err == nil {
		err = k.records("count", count, dt, op)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var rd []byte
	if recvHere {
		if rd, err = k.data("receive", recv, count, dt); err != nil {
			return nil, nil, nil, err
		}
	}
	if IsInPlace(send) {
		return o, slices.Clone(rd), rd, nil
	}
	sd, err := k.data("send", send, count, dt)
	if err == nil {
		err = k.apart(sd, rd)
	}
	return o, sd, rd, err
}

// Reduce combines count elements of dt from every rank with op and leaves
// the result in recv at root. At the root, send may be InPlace.
func (*realAPI) Reduce(send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) error {
	k, err := startColl("reduce", comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, send)); err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, comm.rank == root)
	if err != nil {
		return err
	}
	if k.t.Reduce == nil {
		return k.missing()
	}
	return k.done(k.t.Reduce(comm.cc, sd, rd, o, root))
}

// Allreduce is Reduce with the result at every rank. send may be InPlace.
func (*realAPI) Allreduce(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl("allreduce", comm)
	if err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	if k.t.Allreduce == nil {
		return k.missing()
	}
	return k.done(k.t.Allreduce(comm.cc, sd, rd, o))
}

// Scan leaves at rank i the reduction of ranks 0 to i. send may be InPlace.
func (*realAPI) Scan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl("scan", comm)
	if err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	if k.t.Scan == nil {
		return k.missing()
	}
	return k.done(k.t.Scan(comm.cc, sd, rd, o))
}

// Exscan leaves at rank i the reduction of ranks 0 to i-1; rank 0's recv
// is left as it was. send may be InPlace.
func (*realAPI) Exscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl("exscan", comm)
	if err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	if k.t.Exscan == nil {
		return k.missing()
	}
	return k.done(k.t.Exscan(comm.cc, sd, rd, o))
}

// ReduceScatter reduces the sum of counts elements and leaves counts[i]
// of them, in order, at rank i. send may be InPlace: recv then holds the
// whole vector, and the rank's part is left at its start.
func (*realAPI) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl("reduce scatter", comm)
	if err != nil {
		return err
	}
	o, err := k.bind(op, dt)
	if err != nil {
		return err
	}
	total := 0
	for _, c := range counts {
		total += max(c, 0)
	}
	bc, _, err := k.vector("receive", counts, nil, dt, total*dt.Size())
	if err != nil {
		return err
	}
	for r, c := range counts {
		if err := k.records(fmt.Sprintf("count of rank %d", r), c, dt, op); err != nil {
			return err
		}
	}
	var sd, rd []byte
	if IsInPlace(send) {
		whole, err := k.data("receive", recv, total, dt)
		if err != nil {
			return err
		}
		sd, rd = slices.Clone(whole), whole[:bc[comm.rank]]
	} else {
		if sd, err = k.data("send", send, total, dt); err != nil {
			return err
		}
		if rd, err = k.data("receive", recv, counts[comm.rank], dt); err != nil {
			return err
		}
		if err := k.apart(sd, rd); err != nil {
			return err
		}
	}
	if k.t.ReduceScatter == nil {
		return k.missing()
	}
	return k.done(k.t.ReduceScatter(comm.cc, sd, rd, bc, o))
}

// ReduceScatterBlock is ReduceScatter with count elements for every rank.
func (*realAPI) ReduceScatterBlock(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl("reduce scatter block", comm)
	if err != nil {
		return err
	}
	o, err := k.bind(op, dt)
	if err == nil {
		err = k.records("count", count, dt, op)
	}
	if err != nil {
		return err
	}
	n := comm.Size()
	var sd, rd []byte
	if IsInPlace(send) {
		whole, err := k.data("receive", recv, count*n, dt)
		if err != nil {
			return err
		}
		sd, rd = slices.Clone(whole), whole[:count*dt.Size()]
	} else {
		if sd, err = k.data("send", send, count*n, dt); err != nil {
			return err
		}
		if rd, err = k.data("receive", recv, count, dt); err != nil {
			return err
		}
		if err := k.apart(sd, rd); err != nil {
			return err
		}
	}
	if k.t.ReduceScatterBlock == nil {
		return k.missing()
	}
	return k.done(k.t.ReduceScatterBlock(comm.cc, sd, rd, o))
}

// Gather collects scount elements of sdt from every rank into recv at
// root, rcount elements of rdt per rank in rank order. At the root, send
// may be InPlace: its own block is already in recv.
func (*realAPI) Gather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	k, err := startColl("gather", comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, send)); err != nil {
		return err
	}
	var sd, rd []byte
	if comm.rank == root {
		if rd, err = k.data("receive", recv, rcount*comm.Size(), rdt); err != nil {
			return err
		}
		block := rcount * rdt.Size()
		if IsInPlace(send) {
			sd = slices.Clone(rd[root*block : (root+1)*block])
		} else if sd, err = k.data("send", send, scount, sdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(len(sd), block), k.apart(sd, rd)); err != nil {
			return err
		}
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	}
	if k.t.Gather == nil {
		return k.missing()
	}
	return k.done(k.t.Gather(comm.cc, sd, rd, root))
}

// Gatherv is Gather with counts[i] elements of rdt from rank i, placed at
// displs[i] elements into recv.
func (*realAPI) Gatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) error {
	k, err := startColl("gatherv", comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, send)); err != nil {
		return err
	}
	var sd []byte
	var bc, bd []int
	if comm.rank == root {
		if bc, bd, err = k.vector("receive", counts, displs, rdt, len(recv)); err != nil {
			return err
		}
		if IsInPlace(send) {
			sd = slices.Clone(recv[bd[root] : bd[root]+bc[root]])
		} else if sd, err = k.data("send", send, scount, sdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(len(sd), bc[root]), k.apart(sd, recv)); err != nil {
			return err
		}
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	}
	if k.t.Gatherv == nil {
		return k.missing()
	}
	return k.done(k.t.Gatherv(comm.cc, sd, recv, bc, bd, root))
}

// Scatter sends block i of send at root (scount elements of sdt) to rank
// i's recv. At the root, recv may be InPlace: its block stays in send.
func (*realAPI) Scatter(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	k, err := startColl("scatter", comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, recv)); err != nil {
		return err
	}
	var sd, rd []byte
	if comm.rank == root {
		if sd, err = k.data("send", send, scount*comm.Size(), sdt); err != nil {
			return err
		}
		block := scount * sdt.Size()
		if IsInPlace(recv) {
			rd = make([]byte, block) // the root's block is already where it belongs
		} else if rd, err = k.data("receive", recv, rcount, rdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(block, len(rd)), k.apart(sd, rd)); err != nil {
			return err
		}
	} else if rd, err = k.data("receive", recv, rcount, rdt); err != nil {
		return err
	}
	if k.t.Scatter == nil {
		return k.missing()
	}
	return k.done(k.t.Scatter(comm.cc, sd, rd, root))
}

// Scatterv is Scatter with counts[i] elements of sdt, from displs[i]
// elements into send, for rank i.
func (*realAPI) Scatterv(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	k, err := startColl("scatterv", comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, recv)); err != nil {
		return err
	}
	var rd []byte
	var bc, bd []int
	if comm.rank == root {
		if bc, bd, err = k.vector("send", counts, displs, sdt, len(send)); err != nil {
			return err
		}
		if IsInPlace(recv) {
			rd = make([]byte, bc[root])
		} else if rd, err = k.data("receive", recv, rcount, rdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(bc[root], len(rd)), k.apart(send, rd)); err != nil {
			return err
		}
	} else if rd, err = k.data("receive", recv, rcount, rdt); err != nil {
		return err
	}
	if k.t.Scatterv == nil {
		return k.missing()
	}
	return k.done(k.t.Scatterv(comm.cc, send, bc, bd, rd, root))
}

// Allgather is Gather with the result at every rank. send may be InPlace:
// each rank's block is then already in recv.
func (*realAPI) Allgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	k, err := startColl("allgather", comm)
	if err != nil {
		return err
	}
	rd, err := k.data("receive", recv, rcount*comm.Size(), rdt)
	if err != nil {
		return err
	}
	block := rcount * rdt.Size()
	var sd []byte
	if IsInPlace(send) {
		sd = slices.Clone(rd[comm.rank*block : (comm.rank+1)*block])
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	} else if err := errorsFirst(k.match(len(sd), block), k.apart(sd, rd)); err != nil {
		return err
	}
	if k.t.Allgather == nil {
		return k.missing()
	}
	return k.done(k.t.Allgather(comm.cc, sd, rd))
}

// Allgatherv is Gatherv with the result at every rank. send may be InPlace.
func (*realAPI) Allgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error {
	k, err := startColl("allgatherv", comm)
	if err != nil {
		return err
	}
	bc, bd, err := k.vector("receive", counts, displs, rdt, len(recv))
	if err != nil {
		return err
	}
	var sd []byte
	me := comm.rank
	if IsInPlace(send) {
		sd = slices.Clone(recv[bd[me] : bd[me]+bc[me]])
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	} else if err := errorsFirst(k.match(len(sd), bc[me]), k.apart(sd, recv)); err != nil {
		return err
	}
	if k.t.Allgatherv == nil {
		return k.missing()
	}
	return k.done(k.t.Allgatherv(comm.cc, sd, recv, bc, bd))
}

// Alltoall sends block i of send (scount elements of sdt) to rank i and
// receives block j of recv from rank j. send may be InPlace: recv's
// blocks are then sent and replaced.
func (*realAPI) Alltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	k, err := startColl("alltoall", comm)
	if err != nil {
		return err
	}
	n := comm.Size()
	rd, err := k.data("receive", recv, rcount*n, rdt)
	if err != nil {
		return err
	}
	var sd []byte
	if IsInPlace(send) {
		sd = slices.Clone(rd)
	} else if sd, err = k.data("send", send, scount*n, sdt); err != nil {
		return err
	} else if err := errorsFirst(k.match(scount*sdt.Size(), rcount*rdt.Size()), k.apart(sd, rd)); err != nil {
		return err
	}
	if k.t.Alltoall == nil {
		return k.missing()
	}
	return k.done(k.t.Alltoall(comm.cc, sd, rd))
}

// Alltoallv is Alltoall with per-rank counts and displacements. send may
// be InPlace: recv's counts and displacements then describe both.
func (*realAPI) Alltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error {
	k, err := startColl("alltoallv", comm)
	if err != nil {
		return err
	}
	rc, rdp, err := k.vector("receive", rcounts, rdispls, rdt, len(recv))
	if err != nil {
		return err
	}
	var sc, sdp []int
	if IsInPlace(send) {
		send, sc, sdp = slices.Clone(recv), rc, rdp
	} else if sc, sdp, err = k.vector("send", scounts, sdispls, sdt, len(send)); err != nil {
		return err
	} else if err := k.apart(send, recv); err != nil {
		return err
	}
	if k.t.Alltoallv == nil {
		return k.missing()
	}
	return k.done(k.t.Alltoallv(comm.cc, send, sc, sdp, recv, rc, rdp))
}

func errorsFirst(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
