package pmpi

// Scatter sends block i of send at root (scount elements of sdt) to rank
// i's recv. At the root, recv may be InPlace: its block stays in send.
func (*realAPI) Scatter(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	return scatterCall(nil, send, scount, sdt, recv, rcount, rdt, root, comm)
}

// scatterCall is Scatter, blocking when s is nil, else started as s says.
func scatterCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interScatter(s, send, scount, sdt, recv, rcount, rdt, root, comm)
	}
	k, err := startColl(s, &nameScatter, comm)
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
	return k.run(s, &collOp{kind: collScatter, send: sd, recv: rd, root: root})
}

// Scatterv is Scatter with counts[i] elements of sdt, from displs[i]
// elements into send, for rank i.
func (*realAPI) Scatterv(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	return scattervCall(nil, send, counts, displs, sdt, recv, rcount, rdt, root, comm)
}

// scattervCall is Scatterv, blocking when s is nil, else started as s says.
func scattervCall(s *collStart, send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interScatterv(s, send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	}
	k, err := startColl(s, &nameScatterv, comm)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.root(root), k.onlyAtRoot(root, recv)); err != nil {
		return err
	}
	var rd []byte
	var bc, bd []int
	if comm.rank == root {
		if bc, bd, err = k.vectorIn("send", &send, counts, displs, sdt); err != nil {
			return err
		}
		if IsInPlace(recv) {
			rd = make([]byte, bc[root])
		} else if rd, err = k.data("receive", recv, rcount, rdt); err != nil {
			return err
		} else if err := errorsFirst(k.match(bc[root], len(rd)), k.apartV(send, bc, bd, rd, nil, nil)); err != nil {
			return err
		}
	} else if rd, err = k.data("receive", recv, rcount, rdt); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collScatterv, send: send, scounts: bc, sdispls: bd, recv: rd, root: root})
}
