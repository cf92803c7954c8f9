package mpi

import "github.com/gompi/gompi/pmpi"

// Message is a message that Mprobe or Improbe took out of matching: only
// Mrecv or Imrecv of it receives it, once, so that a probe and its
// receive cannot race another goroutine's receive. The zero Message is
// MessageNull.
type Message = pmpi.Message

var (
	// MessageNull is no message: Mrecv and Imrecv leave it in the variable
	// of the message they received.
	MessageNull = pmpi.MessageNull
	// MessageNoProc is the message a matched probe of ProcNull finds: its
	// receive returns ProcNull's status at once.
	MessageNoProc = pmpi.MessageNoProc
)

// Mprobe waits for a message that Recv with these arguments would receive,
// takes it out of matching and describes it: no other receive or probe,
// in any goroutine, sees it any more. Receive it with Mrecv or Imrecv.
// Its Count is Undefined, as it receives nothing: use GetCount for its
// length in elements, to allocate the buffer.
func Mprobe(source, tag int, comm Comm) (Message, Status, error) {
	return api().Mprobe(source, tag, comm.c)
}

// Improbe is Mprobe without waiting; found is false, and the message
// MessageNull, when no such message has arrived.
func Improbe(source, tag int, comm Comm) (msg Message, st Status, found bool, err error) {
	return api().Improbe(source, tag, comm.c)
}

// Mrecv receives the message *msg that Mprobe or Improbe returned into
// buf and sets *msg to MessageNull. A longer message fills buf and fails
// with ErrTruncate. MessageNull, or a message received already, fails
// with ErrRequest.
func Mrecv[T Elem](buf []T, msg *Message) (Status, error) {
	return api().Mrecv(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), msg)
}

// Imrecv starts the receive of *msg into buf and sets *msg to
// MessageNull; buf must not be read until the request completes.
func Imrecv[T Elem](buf []T, msg *Message) (Request, error) {
	r, err := api().Imrecv(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), msg)
	return request(r), err
}

// MrecvLayout is Mrecv of up to count elements of l into buf.
func MrecvLayout[T Elem](buf []T, count int, l Layout[T], msg *Message) (Status, error) {
	return api().Mrecv(pmpi.Bytes(buf), count, l.dt, msg)
}

// ImrecvLayout starts MrecvLayout; buf must not be read until the
// request completes, when the data lands in it.
func ImrecvLayout[T Elem](buf []T, count int, l Layout[T], msg *Message) (Request, error) {
	r, err := api().Imrecv(pmpi.Bytes(buf), count, l.dt, msg)
	return request(r), err
}
