package pmpi

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/gompi/gompi/internal/pml"
)

// Message is a message that a matched probe (Mprobe, Improbe) took out of
// matching, MPI's MPI_Message: no receive or probe but an Mrecv or Imrecv
// of it sees it any more, so that a probe and its receive cannot race
// another goroutine's receive. The zero Message is MessageNull;
// MessageNoProc is what a probe of ProcNull finds. Messages compare equal
// when they are the same handle.
type Message struct {
	m      *pml.Matched // nil for MessageNull and MessageNoProc
	comm   *Comm
	source int // the sender's rank in comm
	tag    int
	noProc bool
}

var (
	// MessageNull is no message (MPI_MESSAGE_NULL): what Mrecv and Imrecv
	// leave in the variable of the message they received.
	MessageNull = Message{}
	// MessageNoProc is the message a matched probe of ProcNull finds
	// (MPI_MESSAGE_NO_PROC): its receive returns at once with ProcNull's
	// status and receives nothing.
	MessageNoProc = Message{noProc: true}
)

// Comm is the communicator the message came on; nil for MessageNull and
// MessageNoProc. Tools read it: Mrecv and Imrecv name no communicator.
func (m Message) Comm() *Comm { return m.comm }

// desc describes the message for an error: "the message from rank 3 of
// comm world, tag 7".
func (m Message) desc() string {
	return fmt.Sprintf("the message from rank %d of %v, tag %d", m.source, m.comm, m.tag)
}

// Mprobe waits for a message that Recv with these arguments would receive,
// takes it out of matching and returns it with its description. Status.Count
// is Undefined, as for Probe; Status.CountOf gives the message's length.
// On ProcNull it returns MessageNoProc at once.
func (*realAPI) Mprobe(source, tag int, comm *Comm) (Message, Status, error) {
	msg, st, _, err := mprobe("mprobe", source, tag, comm, true)
	return msg, st, err
}

// Improbe is Mprobe without waiting: found is false, and the message
// MessageNull, when no such message has arrived.
func (*realAPI) Improbe(source, tag int, comm *Comm) (msg Message, st Status, found bool, err error) {
	return mprobe("improbe", source, tag, comm, false)
}

func mprobe(op string, source, tag int, comm *Comm, wait bool) (Message, Status, bool, error) {
	l, err := probeArgs(op, source, tag, comm)
	if err != nil {
		return Message{}, Status{}, false, err
	}
	if source == ProcNull {
		return Message{noProc: true}, nullStatus(), true, nil // MessageNoProc
	}
	src := worldSource(comm, source)
	var (
		m  *pml.Matched
		st pml.Status
	)
	if wait {
		m, st, err = l.engine.Mprobe(comm.context, src, tag)
	} else {
		l.poll()
		m, st, err = l.engine.Improbe(comm.context, src, tag)
	}
	if err != nil {
		return Message{}, Status{}, false, comm.handle(failure(fmt.Sprintf("%s from %s of %v, %s", op, rankDesc(source), comm, tagDesc(tag)), err))
	}
	if m == nil {
		l.engine.Idle()
		return Message{}, Status{}, false, nil
	}
	s := statusOf(comm, st, Byte)
	s.Count = Undefined // received nothing, in no datatype: CountOf gives the length
	return Message{m: m, comm: comm, source: s.Source, tag: s.Tag}, s, true, nil
}

// Mrecv receives the message *msg, which Mprobe or Improbe returned, into
// up to count elements of dt in buf, as Recv would have received it: a
// longer message fills buf and fails with ErrTruncate. It sets *msg to
// MessageNull once it has taken the message, truncated or not; after an
// error in the arguments *msg is unchanged. On MessageNoProc it returns
// ProcNull's status at once; on MessageNull, or a message received
// already (through a copy of its Message), it fails with ErrRequest.
func (*realAPI) Mrecv(buf []byte, count int, dt Datatype, msg *Message) (Status, error) {
	const op = "mrecv"
	l, data, m, err := mrecvArgs(op, buf, count, dt, msg)
	if err != nil {
		return Status{Err: err}, err
	}
	if m.noProc {
		*msg = MessageNull
		return nullStatus(), nil
	}
	var st pml.Status
	if err := mrecvInto(l, m.m, data, count, dt, &st); err != nil {
		err = m.comm.handle(received(op, m))
		return Status{Err: err}, err
	}
	*msg = MessageNull
	if st.Err == nil && !st.Truncated() && !dt.t.derived {
		var s Status
		statusInto(&s, m.comm, &st, dt)
		return s, nil
	}
	r := Request{comm: m.comm, dt: dt, op: "recv", peer: m.source, tag: m.tag, recv: true}
	return r.settled(st)
}

// mrecvInto receives the matched message mm into count elements of dt
// in data, through a stream if dt packs. Written out rather than through
// Request.receiveInto: its closure and the Request it needed put two
// allocations and a zeroing of the Request on every Mrecv.
func mrecvInto(l *library, mm *pml.Matched, data []byte, count int, dt Datatype, st *pml.Status) error {
	if !dt.t.packs {
		return l.engine.Mrecv(mm, data, st)
	}
	data, c := streamFor(dt.t, data, count)
	if c == nil {
		return l.engine.Mrecv(mm, data, st)
	}
	err := l.engine.MrecvLayout(mm, c, st)
	c.release()
	return err
}

// Imrecv starts the receive of *msg as Mrecv does; buf must not be read
// until the request completes, and Wait or Test complete it as a receive
// started by Irecv.
func (*realAPI) Imrecv(buf []byte, count int, dt Datatype, msg *Message) (*Request, error) {
	const op = "imrecv"
	l, data, m, err := mrecvArgs(op, buf, count, dt, msg)
	if err != nil {
		return nil, err
	}
	if m.noProc {
		*msg = MessageNull
		return l.newRequest(l.self, dt, "recv", ProcNull, AnyTag, true), nil
	}
	req := l.newRequest(m.comm, dt, "recv", m.source, m.tag, true)
	if dt.t.packs {
		data, req.conv = streamFor(dt.t, data, count)
	}
	if req.conv != nil {
		req.pml, err = l.engine.StartMrecvLayout(&req.pmlStore, m.m, req.conv)
	} else {
		req.pml, err = l.engine.StartMrecv(&req.pmlStore, m.m, data)
	}
	if err != nil {
		if req.conv != nil {
			req.releaseConv()
		}
		req.recycle(atomic.LoadUint32(&req.gen))
		return nil, m.comm.handle(received(op, m))
	}
	*msg = MessageNull
	return req, nil
}

// received is the error of a matched receive of a message received
// already, through another copy of its Message.
func received(op string, m Message) error {
	return errorf(ClassRequest, nil, "%s: %s was received already (Mrecv and Imrecv receive a message once)", op, m.desc())
}

// mrecvArgs checks that MPI runs and validates a matched receive's
// arguments; it returns the message and the part of buf that count
// elements occupy.
func mrecvArgs(op string, buf []byte, count int, dt Datatype, msg *Message) (*library, []byte, Message, error) {
	l, err := running(op)
	if err != nil {
		return nil, nil, Message{}, err
	}
	if msg == nil {
		return nil, nil, Message{}, errorf(ClassArg, nil, "%s: the message pointer is nil (pass the address of the Message that Mprobe or Improbe returned)", op)
	}
	m := *msg
	if m == (Message{}) { // MessageNull
		return nil, nil, Message{}, errorf(ClassRequest, nil,
			"%s: the message is MessageNull (a matched receive takes a Message from Mprobe or Improbe, and leaves MessageNull in its place)", op)
	}
	if dt.t == nil || dt.t.derived {
		if data, ok := derivedOK(buf, count, dt); ok {
			return l, data, m, nil
		}
	} else if hi, n := bits.Mul64(uint64(max(count, 0)), uint64(dt.Size())); count >= 0 && hi == 0 && n <= uint64(len(buf)) {
		return l, buf[:n], m, nil
	}
	// Something is wrong: name the message, which costs a formatting.
	where := "MessageNoProc"
	if !m.noProc {
		where = m.desc()
	}
	var bad error
	switch {
	case dt.t == nil || dt.t.derived:
		data, err := derivedArgs(op+" of "+where, buf, count, dt)
		if err == nil {
			return l, data, m, nil
		}
		bad = err
	case count < 0:
		bad = errorf(ClassCount, nil, "%s of %s: count %d is negative", op, where, count)
	default:
		bad = errorf(ClassBuffer, nil, "%s of %s: buffer of %d bytes is too small for %d elements of %s",
			op, where, len(buf), count, dt.Name())
	}
	if m.comm != nil {
		bad = m.comm.handle(bad)
	}
	return nil, nil, Message{}, bad
}
