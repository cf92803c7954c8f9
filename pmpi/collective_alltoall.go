package pmpi

// Alltoall sends block i of send (scount elements of sdt) to rank i and
// receives block j of recv from rank j. send may be InPlace: recv's
// blocks are then sent and replaced.
func (*realAPI) Alltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	return alltoallCall(nil, send, scount, sdt, recv, rcount, rdt, comm)
}

// alltoallCall is Alltoall, blocking when s is nil, else started as s says.
func alltoallCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interAlltoall(s, send, scount, sdt, recv, rcount, rdt, comm)
	}
	k, err := startColl(s, &nameAlltoall, comm)
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
		sd = k.inPlace(rd)
	} else if sd, err = k.data("send", send, scount*n, sdt); err != nil {
		return err
	} else if err := errorsFirst(k.match(scount*sdt.Size(), rcount*rdt.Size()), k.apart(sd, rd)); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collAlltoall, send: sd, recv: rd})
}

// Alltoallv is Alltoall with per-rank counts and displacements. send may
// be InPlace: recv's counts and displacements then describe both.
func (*realAPI) Alltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error {
	return alltoallvCall(nil, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
}

// alltoallvCall is Alltoallv, blocking when s is nil, else started as s says.
func alltoallvCall(s *collStart, send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interAlltoallv(s, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	}
	k, err := startColl(s, &nameAlltoallv, comm)
	if err != nil {
		return err
	}
	rc, rdp, err := k.vectorIn("receive", &recv, rcounts, rdispls, rdt)
	if err != nil {
		return err
	}
	var sc, sdp []int
	if IsInPlace(send) {
		send, sc, sdp = k.inPlace(recv), rc, rdp
	} else if sc, sdp, err = k.vectorIn("send", &send, scounts, sdispls, sdt); err != nil {
		return err
	} else if err := k.apartV(send, sc, sdp, recv, rc, rdp); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collAlltoallv, send: send, scounts: sc, sdispls: sdp, recv: recv, counts: rc, displs: rdp})
}
