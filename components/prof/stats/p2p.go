package stats

import "github.com/gompi/gompi/pmpi"

// The point-to-point calls count the message's bytes: a send's, a
// receive's as received (Recv) or as posted (Irecv, whose length is known
// only at its Wait). Sends also count in the p2p matrix, at the sender.
// A call whose peer is ProcNull moves nothing: it counts as a call of
// 0 bytes, so that a halo exchange's edges add no traffic. Every call
// that names a communicator counts for it as well (comms.go); the
// constructors (CommDup, CommSplit...) count for their parent.

// moved is the bytes a call of count elements of dt moves with peer.
func moved(count int, dt pmpi.Datatype, peer int) int64 {
	if peer == pmpi.ProcNull {
		return 0
	}
	return int64(count * dt.Size())
}

func (m *module) Send(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Send(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		n := moved(count, dt, dest)
		m.end(fnSend, t0, n, comm, dest)
	}
	return err
}

func (m *module) Ssend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Ssend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		n := moved(count, dt, dest)
		m.end(fnSsend, t0, n, comm, dest)
	}
	return err
}

func (m *module) Isend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Isend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		n := moved(count, dt, dest)
		m.end(fnIsend, t0, n, comm, dest)
	}
	return r, err
}

func (m *module) Issend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Issend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		n := moved(count, dt, dest)
		m.end(fnIssend, t0, n, comm, dest)
	}
	return r, err
}

func (m *module) Recv(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (pmpi.Status, error) {
	t0 := m.begin()
	st, err := m.Next.Recv(buf, count, dt, source, tag, comm)
	if t0 >= 0 {
		m.end(fnRecv, t0, int64(st.CountOf(pmpi.Byte)), comm, -1)
	}
	return st, err
}

func (m *module) Irecv(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Irecv(buf, count, dt, source, tag, comm)
	if t0 >= 0 {
		m.end(fnIrecv, t0, moved(count, dt, source), comm, -1)
	}
	return r, err
}

// Sendrecv counts the bytes it sends (none to ProcNull).
func (m *module) Sendrecv(sendbuf []byte, sendcount int, sendtype pmpi.Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype pmpi.Datatype, source, recvtag int, comm *pmpi.Comm) (pmpi.Status, error) {
	t0 := m.begin()
	st, err := m.Next.Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm)
	if t0 >= 0 {
		n := moved(sendcount, sendtype, dest)
		m.end(fnSendrecv, t0, n, comm, dest)
	}
	return st, err
}

func (m *module) Probe(source, tag int, comm *pmpi.Comm) (pmpi.Status, error) {
	t0 := m.begin()
	st, err := m.Next.Probe(source, tag, comm)
	if t0 >= 0 {
		m.end(fnProbe, t0, 0, comm, -1)
	}
	return st, err
}

func (m *module) Iprobe(source, tag int, comm *pmpi.Comm) (pmpi.Status, bool, error) {
	t0 := m.begin()
	st, ok, err := m.Next.Iprobe(source, tag, comm)
	if t0 >= 0 {
		m.end(fnIprobe, t0, 0, comm, -1)
	}
	return st, ok, err
}

func (m *module) Wait(r *pmpi.Request) (pmpi.Status, error) {
	t0 := m.begin()
	st, err := m.Next.Wait(r)
	if t0 >= 0 {
		m.end(fnWait, t0, 0, nil, -1)
	}
	return st, err
}

func (m *module) Test(r *pmpi.Request) (pmpi.Status, bool, error) {
	t0 := m.begin()
	st, ok, err := m.Next.Test(r)
	if t0 >= 0 {
		m.end(fnTest, t0, 0, nil, -1)
	}
	return st, ok, err
}

func (m *module) Cancel(r *pmpi.Request) error {
	t0 := m.begin()
	err := m.Next.Cancel(r)
	if t0 >= 0 {
		m.end(fnCancel, t0, 0, nil, -1)
	}
	return err
}

func (m *module) WaitAll(reqs []*pmpi.Request, sts []pmpi.Status) error {
	t0 := m.begin()
	err := m.Next.WaitAll(reqs, sts)
	if t0 >= 0 {
		m.end(fnWaitall, t0, 0, nil, -1)
	}
	return err
}

func (m *module) WaitAny(reqs []*pmpi.Request) (int, pmpi.Status, error) {
	t0 := m.begin()
	i, st, err := m.Next.WaitAny(reqs)
	if t0 >= 0 {
		m.end(fnWaitany, t0, 0, nil, -1)
	}
	return i, st, err
}

func (m *module) WaitSome(reqs []*pmpi.Request, indices []int, sts []pmpi.Status) (int, error) {
	t0 := m.begin()
	n, err := m.Next.WaitSome(reqs, indices, sts)
	if t0 >= 0 {
		m.end(fnWaitsome, t0, 0, nil, -1)
	}
	return n, err
}

func (m *module) TestAll(reqs []*pmpi.Request, sts []pmpi.Status) (bool, error) {
	t0 := m.begin()
	ok, err := m.Next.TestAll(reqs, sts)
	if t0 >= 0 {
		m.end(fnTestall, t0, 0, nil, -1)
	}
	return ok, err
}

func (m *module) TestAny(reqs []*pmpi.Request) (int, pmpi.Status, bool, error) {
	t0 := m.begin()
	i, st, ok, err := m.Next.TestAny(reqs)
	if t0 >= 0 {
		m.end(fnTestany, t0, 0, nil, -1)
	}
	return i, st, ok, err
}

func (m *module) CommDup(comm *pmpi.Comm) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.CommDup(comm)
	if t0 >= 0 {
		m.end(fnCommDup, t0, 0, comm, -1)
	}
	return c, err
}

// CommIdup counts the call that starts the duplication; the Wait that
// completes it counts as a Wait.
func (m *module) CommIdup(comm *pmpi.Comm) (*pmpi.Comm, *pmpi.Request, error) {
	t0 := m.begin()
	c, r, err := m.Next.CommIdup(comm)
	if t0 >= 0 {
		m.end(fnCommIdup, t0, 0, comm, -1)
	}
	return c, r, err
}

func (m *module) CommIdupWithInfo(comm *pmpi.Comm, info *pmpi.Info) (*pmpi.Comm, *pmpi.Request, error) {
	t0 := m.begin()
	c, r, err := m.Next.CommIdupWithInfo(comm, info)
	if t0 >= 0 {
		m.end(fnCommIdupWithInfo, t0, 0, comm, -1)
	}
	return c, r, err
}

func (m *module) CommSplit(comm *pmpi.Comm, color, key int) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.CommSplit(comm, color, key)
	if t0 >= 0 {
		m.end(fnCommSplit, t0, 0, comm, -1)
	}
	return c, err
}

func (m *module) CommSplitType(comm *pmpi.Comm, splitType, key int) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.CommSplitType(comm, splitType, key)
	if t0 >= 0 {
		m.end(fnCommSplitType, t0, 0, comm, -1)
	}
	return c, err
}

func (m *module) CommCreate(comm *pmpi.Comm, group *pmpi.Group) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.CommCreate(comm, group)
	if t0 >= 0 {
		m.end(fnCommCreate, t0, 0, comm, -1)
	}
	return c, err
}

func (m *module) IntercommCreate(local *pmpi.Comm, localLeader int, peer *pmpi.Comm, remoteLeader, tag int) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.IntercommCreate(local, localLeader, peer, remoteLeader, tag)
	if t0 >= 0 {
		m.end(fnIntercommCreate, t0, 0, local, -1)
	}
	return c, err
}

func (m *module) IntercommMerge(inter *pmpi.Comm, high bool) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.IntercommMerge(inter, high)
	if t0 >= 0 {
		m.end(fnIntercommMerge, t0, 0, inter, -1)
	}
	return c, err
}

func (m *module) CommCreateGroup(comm *pmpi.Comm, group *pmpi.Group, tag int) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := m.Next.CommCreateGroup(comm, group, tag)
	if t0 >= 0 {
		m.end(fnCommCreateGroup, t0, 0, comm, -1)
	}
	return c, err
}
