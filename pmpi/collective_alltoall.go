package pmpi

import (
	"slices"
)

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
	rc, rdp, err := k.vectorIn("receive", &recv, rcounts, rdispls, rdt)
	if err != nil {
		return err
	}
	var sc, sdp []int
	if IsInPlace(send) {
		send, sc, sdp = slices.Clone(recv), rc, rdp
	} else if sc, sdp, err = k.vectorIn("send", &send, scounts, sdispls, sdt); err != nil {
		return err
	} else if err := k.apart(send, recv); err != nil {
		return err
	}
	if k.t.Alltoallv == nil {
		return k.missing()
	}
	return k.done(k.t.Alltoallv(comm.cc, send, sc, sdp, recv, rc, rdp))
}
