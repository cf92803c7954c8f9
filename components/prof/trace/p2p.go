package trace

import (
	"errors"

	"github.com/gompi/gompi/pmpi"
)

// pending is what the tracer remembers of a non-blocking operation until
// a Wait or Test completes it, and of a persistent one for its starts.
type pending struct {
	comm      *pmpi.Comm
	recv      bool
	stream    string // partStream for a partitioned operation
	peer, tag int
	bytes     int
}

// moved is the bytes a call of count elements of dt moves with peer: none
// with ProcNull, so that a halo exchange's edges record calls of 0 bytes,
// as stats counts them.
func moved(count int, dt pmpi.Datatype, peer int) int {
	if peer == pmpi.ProcNull {
		return 0
	}
	return size(count, dt)
}

// sendFlow counts a send and returns the start of its arrow.
func (t *Tracer) sendFlow(comm *pmpi.Comm, stream string, dest, tag int) flowEnd {
	t.mu.Lock()
	defer t.mu.Unlock()
	return flowEnd(t.m.sendOn(comm, stream, dest, tag))
}

// recvFlow counts a completed receive and returns the end of its arrow. A
// receive that failed took no message, unless it was only truncated.
func (t *Tracer) recvFlow(comm *pmpi.Comm, st pmpi.Status, err error) flowEnd {
	return t.recvFlowIn(comm, "", st.Source, st.Tag, st, err)
}

// recvFlowIn is recvFlow in stream, from source with tag.
func (t *Tracer) recvFlowIn(comm *pmpi.Comm, stream string, source, tag int, st pmpi.Status, err error) flowEnd {
	if err != nil && !errors.Is(err, pmpi.ErrTruncate) {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id := t.m.recvOn(comm, stream, source, tag, st.Cancelled); id != 0 {
		return flowEnd(id) | flowIn
	}
	return 0
}

func (t *Tracer) blockingSend(name string, buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm,
	call func([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) error) error {
	sp := t.begin()
	err := call(buf, count, dt, dest, tag, comm)
	sp = t.stop(sp)
	a := t.commArgs(sp, comm).withPeer(dest, tag).withBytes(moved(count, dt, dest)).withErr(err)
	if err == nil {
		a = a.withFlow(t.sendFlow(comm, "", dest, tag))
	}
	t.end(sp, name, a)
	return err
}

// Send records MPI_Send and the start of its message's arrow.
func (t *Tracer) Send(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	return t.blockingSend("MPI_Send", buf, count, dt, dest, tag, comm, t.Next.Send)
}

// Ssend records MPI_Ssend and the start of its message's arrow.
func (t *Tracer) Ssend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	return t.blockingSend("MPI_Ssend", buf, count, dt, dest, tag, comm, t.Next.Ssend)
}

// Recv records MPI_Recv and the end of its message's arrow.
func (t *Tracer) Recv(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (pmpi.Status, error) {
	sp := t.begin()
	st, err := t.Next.Recv(buf, count, dt, source, tag, comm)
	sp = t.stop(sp)
	t.end(sp, "MPI_Recv", t.received(sp, comm, source, tag, st, err).withFlow(t.recvFlow(comm, st, err)))
	return st, err
}

// received describes a completed receive: the peer and tag it matched,
// the bytes it got.
func (t *Tracer) received(sp span, comm *pmpi.Comm, source, tag int, st pmpi.Status, err error) args {
	a := t.commArgs(sp, comm).withErr(err)
	if st.Source >= 0 {
		source, tag = st.Source, st.Tag
	}
	return a.withPeer(source, tag).withBytes(st.CountOf(pmpi.Byte))
}

func (t *Tracer) startSend(name string, buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm,
	call func([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error)) (*pmpi.Request, error) {
	sp := t.begin()
	r, err := call(buf, count, dt, dest, tag, comm)
	sp = t.stop(sp)
	a := t.commArgs(sp, comm).withPeer(dest, tag).withBytes(moved(count, dt, dest)).withErr(err)
	if err == nil {
		a = a.withFlow(t.sendFlow(comm, "", dest, tag))
		t.track(r, pending{comm: comm, peer: dest, tag: tag, bytes: moved(count, dt, dest)})
	}
	t.end(sp, name, a)
	return r, err
}

// Isend records MPI_Isend and the start of its message's arrow: the
// message is on its way from here.
func (t *Tracer) Isend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.startSend("MPI_Isend", buf, count, dt, dest, tag, comm, t.Next.Isend)
}

// Issend records MPI_Issend and the start of its message's arrow.
func (t *Tracer) Issend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.startSend("MPI_Issend", buf, count, dt, dest, tag, comm, t.Next.Issend)
}

// Irecv records MPI_Irecv; the arrow ends at the Wait or Test that
// completes it.
func (t *Tracer) Irecv(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	sp := t.begin()
	r, err := t.Next.Irecv(buf, count, dt, source, tag, comm)
	sp = t.stop(sp)
	if err == nil {
		t.track(r, pending{comm: comm, recv: true, peer: source, tag: tag, bytes: moved(count, dt, source)})
	}
	t.end(sp, "MPI_Irecv", t.commArgs(sp, comm).withPeer(source, tag).withBytes(moved(count, dt, source)).withErr(err))
	return r, err
}

// Sendrecv records MPI_Sendrecv with both its arrows.
func (t *Tracer) Sendrecv(sendbuf []byte, sendcount int, sendtype pmpi.Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype pmpi.Datatype, source, recvtag int, comm *pmpi.Comm) (pmpi.Status, error) {
	sp := t.begin()
	st, err := t.Next.Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm)
	sp = t.stop(sp)
	a := t.received(sp, comm, source, recvtag, st, err).withSend(dest, sendtag, moved(sendcount, sendtype, dest))
	if err == nil {
		a = a.withFlow(t.sendFlow(comm, "", dest, sendtag))
	}
	t.end(sp, "MPI_Sendrecv", a.withFlow(t.recvFlow(comm, st, err)))
	return st, err
}

// Probe records MPI_Probe and what it found.
func (t *Tracer) Probe(source, tag int, comm *pmpi.Comm) (pmpi.Status, error) {
	sp := t.begin()
	st, err := t.Next.Probe(source, tag, comm)
	sp = t.stop(sp)
	t.end(sp, "MPI_Probe", t.received(sp, comm, source, tag, st, err))
	return st, err
}

// Iprobe records MPI_Iprobe and what it found, if anything.
func (t *Tracer) Iprobe(source, tag int, comm *pmpi.Comm) (pmpi.Status, bool, error) {
	sp := t.begin()
	st, found, err := t.Next.Iprobe(source, tag, comm)
	sp = t.stop(sp)
	a := t.commArgs(sp, comm).withPeer(source, tag).withErr(err)
	if found {
		a = t.received(sp, comm, source, tag, st, err)
	}
	t.end(sp, "MPI_Iprobe", a)
	return st, found, err
}

// Bsend records MPI_Bsend and the start of its message's arrow.
func (t *Tracer) Bsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	return t.blockingSend("MPI_Bsend", buf, count, dt, dest, tag, comm, t.Next.Bsend)
}

// Rsend records MPI_Rsend and the start of its message's arrow.
func (t *Tracer) Rsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	return t.blockingSend("MPI_Rsend", buf, count, dt, dest, tag, comm, t.Next.Rsend)
}

// Ibsend records MPI_Ibsend and the start of its message's arrow.
func (t *Tracer) Ibsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.startSend("MPI_Ibsend", buf, count, dt, dest, tag, comm, t.Next.Ibsend)
}

// Irsend records MPI_Irsend and the start of its message's arrow.
func (t *Tracer) Irsend(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.startSend("MPI_Irsend", buf, count, dt, dest, tag, comm, t.Next.Irsend)
}

// SendrecvReplace records MPI_SendrecvReplace with both its arrows.
func (t *Tracer) SendrecvReplace(buf []byte, count int, dt pmpi.Datatype, dest, sendtag, source, recvtag int, comm *pmpi.Comm) (pmpi.Status, error) {
	sp := t.begin()
	st, err := t.Next.SendrecvReplace(buf, count, dt, dest, sendtag, source, recvtag, comm)
	sp = t.stop(sp)
	a := t.received(sp, comm, source, recvtag, st, err).withSend(dest, sendtag, moved(count, dt, dest))
	if err == nil {
		a = a.withFlow(t.sendFlow(comm, "", dest, sendtag))
	}
	t.end(sp, "MPI_SendrecvReplace", a.withFlow(t.recvFlow(comm, st, err)))
	return st, err
}

// Isendrecv records MPI_Isendrecv and the start of its send's arrow; the
// receive's ends at the Wait or Test that completes it.
func (t *Tracer) Isendrecv(sendbuf []byte, sendcount int, sendtype pmpi.Datatype, dest, sendtag int,
	recvbuf []byte, recvcount int, recvtype pmpi.Datatype, source, recvtag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	sp := t.begin()
	r, err := t.Next.Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm)
	sp = t.stop(sp)
	t.startedSendrecv(sp, "MPI_Isendrecv", r, err, comm, dest, sendtag, moved(sendcount, sendtype, dest),
		source, recvtag, moved(recvcount, recvtype, source))
	return r, err
}

// IsendrecvReplace records MPI_IsendrecvReplace as Isendrecv.
func (t *Tracer) IsendrecvReplace(buf []byte, count int, dt pmpi.Datatype, dest, sendtag, source, recvtag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	sp := t.begin()
	r, err := t.Next.IsendrecvReplace(buf, count, dt, dest, sendtag, source, recvtag, comm)
	sp = t.stop(sp)
	t.startedSendrecv(sp, "MPI_IsendrecvReplace", r, err, comm, dest, sendtag, moved(count, dt, dest),
		source, recvtag, moved(count, dt, source))
	return r, err
}

func (t *Tracer) startedSendrecv(sp span, name string, r *pmpi.Request, err error, comm *pmpi.Comm,
	dest, sendtag, sent, source, recvtag, recvd int) {
	a := t.commArgs(sp, comm).withPeer(source, recvtag).withBytes(recvd).withSend(dest, sendtag, sent).withErr(err)
	if err == nil {
		a = a.withFlow(t.sendFlow(comm, "", dest, sendtag))
		t.track(r, pending{comm: comm, recv: true, peer: source, tag: recvtag, bytes: recvd})
	}
	t.end(sp, name, a)
}

// Mprobe records MPI_Mprobe and what it found.
func (t *Tracer) Mprobe(source, tag int, comm *pmpi.Comm) (pmpi.Message, pmpi.Status, error) {
	sp := t.begin()
	msg, st, err := t.Next.Mprobe(source, tag, comm)
	sp = t.stop(sp)
	t.end(sp, "MPI_Mprobe", t.received(sp, comm, source, tag, st, err))
	return msg, st, err
}

// Improbe records MPI_Improbe and what it found, if anything.
func (t *Tracer) Improbe(source, tag int, comm *pmpi.Comm) (pmpi.Message, pmpi.Status, bool, error) {
	sp := t.begin()
	msg, st, found, err := t.Next.Improbe(source, tag, comm)
	sp = t.stop(sp)
	a := t.commArgs(sp, comm).withPeer(source, tag).withErr(err)
	if found {
		a = t.received(sp, comm, source, tag, st, err)
	}
	t.end(sp, "MPI_Improbe", a)
	return msg, st, found, err
}

// Mrecv records MPI_Mrecv and the end of its message's arrow: the message
// was matched by the probe, but it is received here.
func (t *Tracer) Mrecv(buf []byte, count int, dt pmpi.Datatype, msg *pmpi.Message) (pmpi.Status, error) {
	comm := messageComm(msg)
	sp := t.begin()
	st, err := t.Next.Mrecv(buf, count, dt, msg)
	sp = t.stop(sp)
	t.end(sp, "MPI_Mrecv", t.received(sp, comm, st.Source, st.Tag, st, err).withFlow(t.recvFlow(comm, st, err)))
	return st, err
}

// Imrecv records MPI_Imrecv; the arrow ends at the Wait or Test that
// completes it.
func (t *Tracer) Imrecv(buf []byte, count int, dt pmpi.Datatype, msg *pmpi.Message) (*pmpi.Request, error) {
	comm := messageComm(msg)
	sp := t.begin()
	r, err := t.Next.Imrecv(buf, count, dt, msg)
	sp = t.stop(sp)
	if err == nil && comm != nil {
		// The status at completion names the sender and tag.
		t.track(r, pending{comm: comm, recv: true, peer: pmpi.AnySource, tag: pmpi.AnyTag, bytes: size(count, dt)})
	}
	t.end(sp, "MPI_Imrecv", t.commArgs(sp, comm).withBytes(size(count, dt)).withErr(err))
	return r, err
}

// messageComm is the communicator msg came on, read before the receive
// makes it MessageNull; nil for none.
func messageComm(msg *pmpi.Message) *pmpi.Comm {
	if msg == nil {
		return nil
	}
	return msg.Comm()
}
