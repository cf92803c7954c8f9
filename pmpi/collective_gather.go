package pmpi

// Gather collects scount elements of sdt from every rank into recv at
// root, rcount elements of rdt per rank in rank order. At the root, send
// may be InPlace: its own block is already in recv.
func (*realAPI) Gather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	return gatherCall(nil, send, scount, sdt, recv, rcount, rdt, root, comm)
}

// gatherCall is Gather, blocking when s is nil, else started as s says.
func gatherCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interGather(s, send, scount, sdt, recv, rcount, rdt, root, comm)
	}
	k, err := startColl(s, &nameGather, comm)
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
			sd = k.inPlace(rd[root*block : (root+1)*block])
		} else if sd, err = k.data("send", send, scount, sdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(len(sd), block), k.apart(sd, rd)); err != nil {
			return err
		}
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collGather, send: sd, recv: rd, root: root})
}

// Gatherv is Gather with counts[i] elements of rdt from rank i, placed at
// displs[i] elements into recv.
func (*realAPI) Gatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) error {
	return gathervCall(nil, send, scount, sdt, recv, counts, displs, rdt, root, comm)
}

// gathervCall is Gatherv, blocking when s is nil, else started as s says.
func gathervCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interGatherv(s, send, scount, sdt, recv, counts, displs, rdt, root, comm)
	}
	k, err := startColl(s, &nameGatherv, comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, send)); err != nil {
		return err
	}
	var sd []byte
	var bc, bd []int
	if comm.rank == root {
		if bc, bd, err = k.vectorIn("receive", &recv, counts, displs, rdt); err != nil {
			return err
		}
		if IsInPlace(send) {
			sd = k.inPlace(recv[bd[root] : bd[root]+bc[root]])
		} else if sd, err = k.data("send", send, scount, sdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(len(sd), bc[root]), k.apartV(sd, nil, nil, recv, bc, bd)); err != nil {
			return err
		}
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collGatherv, send: sd, recv: recv, counts: bc, displs: bd, root: root})
}

// Allgather is Gather with the result at every rank. send may be InPlace:
// each rank's block is then already in recv.
func (*realAPI) Allgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	return allgatherCall(nil, send, scount, sdt, recv, rcount, rdt, comm)
}

// allgatherCall is Allgather, blocking when s is nil, else started as s says.
func allgatherCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interAllgather(s, send, scount, sdt, recv, rcount, rdt, comm)
	}
	k, err := startColl(s, &nameAllgather, comm)
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
		sd = k.inPlace(rd[comm.rank*block : (comm.rank+1)*block])
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	} else if err := errorsFirst(k.match(len(sd), block), k.apart(sd, rd)); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collAllgather, send: sd, recv: rd})
}

// Allgatherv is Gatherv with the result at every rank. send may be InPlace.
func (*realAPI) Allgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error {
	return allgathervCall(nil, send, scount, sdt, recv, counts, displs, rdt, comm)
}

// allgathervCall is Allgatherv, blocking when s is nil, else started as s says.
func allgathervCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interAllgatherv(s, send, scount, sdt, recv, counts, displs, rdt, comm)
	}
	k, err := startColl(s, &nameAllgatherv, comm)
	if err != nil {
		return err
	}
	bc, bd, err := k.vectorIn("receive", &recv, counts, displs, rdt)
	if err != nil {
		return err
	}
	var sd []byte
	me := comm.rank
	if IsInPlace(send) {
		sd = k.inPlace(recv[bd[me] : bd[me]+bc[me]])
	} else if sd, err = k.data("send", send, scount, sdt); err != nil {
		return err
	} else if err := errorsFirst(k.match(len(sd), bc[me]), k.apartV(sd, nil, nil, recv, bc, bd)); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collAllgatherv, send: sd, recv: recv, counts: bc, displs: bd})
}
