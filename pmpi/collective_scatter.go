package pmpi

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
		if bc, bd, err = k.vectorIn("send", &send, counts, displs, sdt); err != nil {
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
