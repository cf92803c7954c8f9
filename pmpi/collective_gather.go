package pmpi

import (
	"slices"
)

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
		if bc, bd, err = k.vectorIn("receive", &recv, counts, displs, rdt); err != nil {
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
	bc, bd, err := k.vectorIn("receive", &recv, counts, displs, rdt)
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
