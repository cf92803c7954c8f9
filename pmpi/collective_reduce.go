package pmpi

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

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
		return o, k.inPlace(rd), rd, nil
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
	return reduceCall(nil, send, recv, count, dt, op, root, comm)
}

// reduceCall is Reduce, blocking when s is nil, else started as s says.
func reduceCall(s *collStart, send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interReduce(s, send, recv, count, dt, op, root, comm)
	}
	k, err := startColl(s, &nameReduce, comm)
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
	return k.run(s, &collOp{kind: collReduce, send: sd, recv: rd, op: o, root: root})
}

// Allreduce is Reduce with the result at every rank. send may be InPlace.
// On an intercommunicator each group receives the reduction of the
// other's send data, and InPlace is not allowed.
func (*realAPI) Allreduce(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	return allreduceCall(nil, send, recv, count, dt, op, comm)
}

// allreduceCall is Allreduce, blocking when s is nil, else started as s says.
func allreduceCall(s *collStart, send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interAllreduce(s, send, recv, count, dt, op, comm)
	}
	k, err := startColl(s, &nameAllreduce, comm)
	if err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collAllreduce, send: sd, recv: rd, op: o})
}

// Scan leaves at rank i the reduction of ranks 0 to i. send may be InPlace.
func (*realAPI) Scan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	return scanCall(nil, send, recv, count, dt, op, comm)
}

// scanCall is Scan, blocking when s is nil, else started as s says.
func scanCall(s *collStart, send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl(s, &nameScan, comm)
	if err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collScan, send: sd, recv: rd, op: o})
}

// Exscan leaves at rank i the reduction of ranks 0 to i-1; rank 0's recv
// is left as it was. send may be InPlace.
func (*realAPI) Exscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	return exscanCall(nil, send, recv, count, dt, op, comm)
}

// exscanCall is Exscan, blocking when s is nil, else started as s says.
func exscanCall(s *collStart, send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	k, err := startColl(s, &nameExscan, comm)
	if err != nil {
		return err
	}
	o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
	if err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collExscan, send: sd, recv: rd, op: o})
}

// ReduceScatter reduces the sum of counts elements and leaves counts[i]
// of them, in order, at rank i. send may be InPlace: recv then holds the
// whole vector, and the rank's part is left at its start.
func (*realAPI) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) error {
	return reduceScatterCall(nil, send, recv, counts, dt, op, comm)
}

// reduceScatterCall is ReduceScatter, blocking when s is nil, else started as s says.
func reduceScatterCall(s *collStart, send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interReduceScatter(s, send, recv, counts, dt, op, comm)
	}
	k, err := startColl(s, &nameReduceScatter, comm)
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
		sd, rd = k.inPlace(whole), whole[:bc[comm.rank]]
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
	return k.run(s, &collOp{kind: collReduceScatter, send: sd, recv: rd, counts: bc, op: o})
}

// ReduceScatterBlock is ReduceScatter with count elements for every rank.
func (*realAPI) ReduceScatterBlock(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	return reduceScatterBlockCall(nil, send, recv, count, dt, op, comm)
}

// reduceScatterBlockCall is ReduceScatterBlock, blocking when s is nil, else started as s says.
func reduceScatterBlockCall(s *collStart, send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interReduceScatterBlock(s, send, recv, count, dt, op, comm)
	}
	k, err := startColl(s, &nameReduceScatterBlock, comm)
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
		sd, rd = k.inPlace(whole), whole[:count*dt.Size()]
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
	return k.run(s, &collOp{kind: collReduceScatterBlock, send: sd, recv: rd, op: o})
}
