package pmpi

import (
	"fmt"

	"github.com/gompi/gompi/internal/pml"
)

// Root, passed as the root of a rooted collective on an
// intercommunicator, marks the root itself (MPI_ROOT); the other ranks of
// its group pass ProcNull, and the ranks of the other group the root's
// rank in its group.
const Root = -3

// The collectives on an intercommunicator that gompi serves, as MPI
// defines them, are built from the bridge's (the local group's)
// collectives and one exchange between the two groups' rank 0s, or from
// the root to the other group's rank 0, on the intercommunicator's
// collective context.

// interBarrier returns once every rank of both groups has called it:
// each group's rank 0 knows its group has entered after the bridge's
// barrier, swaps that news with the other's, and across tells the group.
func interBarrier(comm *Comm) error {
	const op = "barrier"
	if _, err := interArgs(op, comm); err != nil {
		return err
	}
	b := comm.inter.bridge
	if b.colls.Barrier == nil {
		return missingInter(op, comm)
	}
	if err := b.colls.Barrier(b.cc); err != nil {
		return comm.handle(errorf(classOf(err), served(b.colls, "barrier", err), "%s on %v", op, comm))
	}
	if _, err := comm.side().across(nil); err != nil {
		return comm.handle(errorf(classOf(err), err, "%s on %v", op, comm))
	}
	return nil
}

// interBcast sends count elements of dt from the root, in one group, to
// every rank of the other: the root sends to the other group's rank 0,
// which broadcasts over its bridge.
func interBcast(buf []byte, count int, dt Datatype, root int, comm *Comm) error {
	const op = "bcast"
	l, err := interArgs(op, comm)
	if err != nil {
		return err
	}
	k := collCall{op: op, comm: comm}
	if root == ProcNull {
		return nil
	}
	if root != Root && (root < 0 || root >= len(comm.group)) {
		return k.fail(ClassRoot, "root %d is out of range (Root at the root, ProcNull at the other ranks of its group, and the root's rank in its group, 0 to %d, at the ranks of the other group)",
			root, len(comm.group)-1)
	}
	data, err := k.data("", buf, count, dt)
	if err != nil {
		return err
	}
	if root == Root {
		if err := l.engine.Send(comm.context+1, comm.group[0], tagInterBcast, data, false); err != nil {
			return comm.handle(failure(fmt.Sprintf("%s on %v: send to rank 0 of the remote group", op, comm), err))
		}
		return nil
	}
	b := comm.inter.bridge
	if b.colls.Bcast == nil {
		return missingInter(op, comm)
	}
	var recvErr error
	if b.rank == 0 {
		var st pml.Status
		l.engine.Recv(comm.context+1, comm.group[root], tagInterBcast, data, &st)
		recvErr = collComm{c: comm, ctx: comm.context + 1}.result(root, len(data), &st)
	}
	// The bridge's broadcast runs whatever rank 0 received, so that no
	// rank of the group waits for a broadcast that never comes.
	if err := b.colls.Bcast(b.cc, data, 0); err != nil {
		return comm.handle(errorf(classOf(err), served(b.colls, "bcast", err), "%s on %v", op, comm))
	}
	if recvErr != nil {
		return comm.handle(errorf(classOf(recvErr), recvErr, "%s on %v", op, comm))
	}
	return nil
}

// interAllreduce leaves in recv at every rank the reduction, with op, of
// the send data of every rank of the other group: each group reduces its
// own to its rank 0, which swaps the result with the other's and
// broadcasts what it got.
func interAllreduce(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	const name = "allreduce"
	if _, err := interArgs(name, comm); err != nil {
		return err
	}
	k := collCall{op: name, comm: comm}
	if IsInPlace(send) {
		return k.fail(ClassBuffer, "InPlace is not allowed on an intercommunicator (MPI defines no in-place form there)")
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	b := comm.inter.bridge
	if b.colls.Reduce == nil {
		return missingInter(name, comm)
	}
	var mine []byte
	if b.rank == 0 {
		mine = make([]byte, len(rd))
	}
	if err := b.colls.Reduce(b.cc, sd, mine, o, 0); err != nil {
		return comm.handle(errorf(classOf(err), served(b.colls, "reduce", err), "%s on %v", name, comm))
	}
	theirs, err := comm.side().across(mine)
	if err == nil && len(theirs) != len(rd) {
		err = errorf(ClassCount, nil, "the remote group reduced %d bytes where this one reduced %d: the groups' counts or datatypes disagree", len(theirs), len(rd))
	}
	if err != nil {
		return comm.handle(errorf(classOf(err), err, "%s on %v", name, comm))
	}
	copy(rd, theirs)
	return nil
}

func missingInter(op string, comm *Comm) error {
	return comm.handle(errorf(ClassIntern, nil, "%s on %v: the coll components serve no %s on its local group (check the coll parameter)", op, comm, op))
}

// errInterColl is the error of a collective call on an intercommunicator
// that gompi does not serve there: the scans, which MPI does not define
// there, and the non-blocking and persistent forms (named so in op).
func errInterColl(op string, comm *Comm) error {
	if op == "scan" || op == "exscan" {
		return comm.handle(errorf(ClassComm, nil, "%s on %v: MPI defines no %s on an intercommunicator", op, comm, op))
	}
	return comm.handle(errorf(ClassComm, nil, "%s on %v: non-blocking and persistent collectives on an intercommunicator are not supported by gompi; call the blocking form, or merge it with IntercommMerge",
		op, comm))
}
