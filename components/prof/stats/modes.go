package stats

import "github.com/gompi/gompi/pmpi"

// The send modes count as Send and Isend do: the bytes at the call, and
// a message in the p2p matrix. A persistent send counts its bytes and its
// message at each Start, which the layer learns from the request it
// remembers from the Init call; the Init calls, RecvInit and the
// completion and free calls count their time only.

// persistentSend is what a Start of a persistent send moves.
type persistentSend struct {
	comm *pmpi.Comm
	dest int
	n    int64
}

func (m *module) Bsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Bsend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		m.end(fnBsend, t0, moved(count, dt, dest), comm, dest)
	}
	return err
}

func (m *module) Ibsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Ibsend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		m.end(fnIbsend, t0, moved(count, dt, dest), comm, dest)
	}
	return r, err
}

func (m *module) Rsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Rsend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		m.end(fnRsend, t0, moved(count, dt, dest), comm, dest)
	}
	return err
}

func (m *module) Irsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Irsend(buf, count, dt, dest, tag, comm)
	if t0 >= 0 {
		m.end(fnIrsend, t0, moved(count, dt, dest), comm, dest)
	}
	return r, err
}

// SendrecvReplace, Isendrecv and IsendrecvReplace count the bytes they
// send, as Sendrecv does.
func (m *module) SendrecvReplace(buf []byte, count int, dt pmpi.Datatype, dest, sendtag, source, recvtag int, comm *pmpi.Comm) (pmpi.Status, error) {
	t0 := m.begin()
	st, err := m.Next.SendrecvReplace(buf, count, dt, dest, sendtag, source, recvtag, comm)
	if t0 >= 0 {
		m.end(fnSendrecvReplace, t0, moved(count, dt, dest), comm, dest)
	}
	return st, err
}

func (m *module) Isendrecv(sendbuf []byte, sendcount int, sendtype pmpi.Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype pmpi.Datatype, source, recvtag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm)
	if t0 >= 0 {
		m.end(fnIsendrecv, t0, moved(sendcount, sendtype, dest), comm, dest)
	}
	return r, err
}

func (m *module) IsendrecvReplace(buf []byte, count int, dt pmpi.Datatype, dest, sendtag, source, recvtag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.IsendrecvReplace(buf, count, dt, dest, sendtag, source, recvtag, comm)
	if t0 >= 0 {
		m.end(fnIsendrecvReplace, t0, moved(count, dt, dest), comm, dest)
	}
	return r, err
}

func (m *module) SendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.sendInit(fnSendInit, m.Next.SendInit, buf, count, dt, dest, tag, comm)
}

func (m *module) BsendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.sendInit(fnBsendInit, m.Next.BsendInit, buf, count, dt, dest, tag, comm)
}

func (m *module) SsendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.sendInit(fnSsendInit, m.Next.SsendInit, buf, count, dt, dest, tag, comm)
}

func (m *module) RsendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.sendInit(fnRsendInit, m.Next.RsendInit, buf, count, dt, dest, tag, comm)
}

// sendInit counts a persistent send's Init and remembers what each of its
// Starts moves. It remembers while collection is off too: a Start after
// Pcontrol(1) counts.
func (m *module) sendInit(f fn, call func([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error),
	buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := call(buf, count, dt, dest, tag, comm)
	if err == nil && r != nil {
		m.persistent.Store(r, persistentSend{comm: comm, dest: dest, n: moved(count, dt, dest)})
	}
	if t0 >= 0 {
		m.end(f, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) RecvInit(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.RecvInit(buf, count, dt, source, tag, comm)
	if t0 >= 0 {
		m.end(fnRecvInit, t0, 0, comm, -1)
	}
	return r, err
}

// Start counts a persistent send's bytes and message; a receive's, none.
func (m *module) Start(r *pmpi.Request) error {
	t0 := m.begin()
	err := m.Next.Start(r)
	if t0 >= 0 {
		ps, _ := m.persistent.Load(r)
		if s, ok := ps.(persistentSend); ok && err == nil {
			m.end(fnStart, t0, s.n, s.comm, s.dest)
		} else {
			m.end(fnStart, t0, 0, nil, -1)
		}
	}
	return err
}

// Startall counts the bytes of the sends it starts, and each message.
func (m *module) Startall(reqs []*pmpi.Request) error {
	t0 := m.begin()
	err := m.Next.Startall(reqs)
	if t0 < 0 {
		return err
	}
	var sends []persistentSend
	var total int64
	if err == nil {
		for _, r := range reqs {
			if ps, ok := m.persistent.Load(r); ok {
				s := ps.(persistentSend)
				sends = append(sends, s)
				total += s.n
			}
		}
	}
	sh := m.count(fnStartall, t0, total, -1) // of requests, maybe of several communicators
	defer sh.mu.Unlock()
	for _, s := range sends {
		if _, w := m.route(s.comm, s.dest); w >= 0 && w < len(sh.p2p) {
			sh.p2p[w].msgs++
			sh.p2p[w].bytes += s.n
		}
	}
	return err
}

func (m *module) TestSome(reqs []*pmpi.Request, indices []int, sts []pmpi.Status) (int, error) {
	t0 := m.begin()
	n, err := m.Next.TestSome(reqs, indices, sts)
	if t0 >= 0 {
		m.end(fnTestsome, t0, 0, nil, -1)
	}
	return n, err
}

// RequestFree forgets a persistent send: its pointer may name another
// request later.
func (m *module) RequestFree(r *pmpi.Request) error {
	t0 := m.begin()
	m.persistent.Delete(r)
	err := m.Next.RequestFree(r)
	if t0 >= 0 {
		m.end(fnRequestFree, t0, 0, nil, -1)
	}
	return err
}
