package mpi

import "github.com/gompi/gompi/pmpi"

// BsendOverhead is the room each buffered message takes in an attached
// buffer beyond its own bytes (MPI_BSEND_OVERHEAD): size a buffer for n
// messages of s bytes as n*(s+BsendOverhead).
const BsendOverhead = pmpi.BsendOverhead

// BufferAutomatic, attached with BufferAttach or Comm.AttachBuffer, lets
// gompi find room for each buffered message itself (MPI_BUFFER_AUTOMATIC):
// buffered sends then never fail for want of room, and detaching returns
// BufferAutomatic.
var BufferAutomatic = pmpi.BufferAutomatic

// BufferAttach attaches buf for the process's buffered sends; they copy
// their messages into it until BufferDetach. One buffer at a time; buf
// must not be touched until it is detached.
func BufferAttach(buf []byte) error { return api().BufferAttach(buf) }

// BufferDetach waits until every buffered message has gone, then
// detaches the process's buffer and returns it.
func BufferDetach() ([]byte, error) { return api().BufferDetach() }

// BufferFlush waits until every message in the process's buffer has gone.
func BufferFlush() error { return api().BufferFlush() }

// BufferIflush starts BufferFlush: the request completes once every
// message in the process's buffer has gone.
func BufferIflush() (Request, error) {
	r, err := api().BufferIflush()
	return request(r), err
}

// IflushBuffer starts FlushBuffer (MPI_Comm_buffer_iflush).
func (c Comm) IflushBuffer() (Request, error) {
	r, err := api().CommBufferIflush(c.c)
	return request(r), err
}

// AttachBuffer attaches buf for the buffered sends on c, which use it
// instead of the process's buffer (MPI_Comm_attach_buffer).
func (c Comm) AttachBuffer(buf []byte) error { return api().CommAttachBuffer(c.c, buf) }

// DetachBuffer waits until every message in c's buffer has gone, then
// detaches it and returns it (MPI_Comm_detach_buffer).
func (c Comm) DetachBuffer() ([]byte, error) { return api().CommDetachBuffer(c.c) }

// FlushBuffer waits until every message in c's buffer has gone
// (MPI_Comm_flush_buffer).
func (c Comm) FlushBuffer() error { return api().CommBufferFlush(c.c) }

// Bsend sends buf in buffered mode: it copies the message into the
// attached buffer (the communicator's, else the process's) and returns;
// the copy goes from there, even if the program makes no further MPI
// call before it detaches the buffer or finalizes. Too little room
// fails with ErrBuffer, naming the bytes needed and free.
func Bsend[T Elem](buf []T, dest, tag int, comm Comm) error {
	return api().Bsend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
}

// Ibsend is Bsend returning a request, complete at once: the message is
// in the attached buffer.
func Ibsend[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	r, err := api().Ibsend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
	return request(r), err
}

// Rsend sends buf in ready mode: a correct program calls it only once
// rank dest has posted the matching receive. A message that finds no
// posted receive is still delivered to the receive that takes it later,
// which fails with ErrOther saying so.
func Rsend[T Elem](buf []T, dest, tag int, comm Comm) error {
	return api().Rsend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
}

// Irsend starts a ready-mode send (Rsend).
func Irsend[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	r, err := api().Irsend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
	return request(r), err
}

// SendrecvReplace sends buf to dest and receives a message from source
// into the same buf, which ranks exchanging in a ring may do without
// deadlock. What buf held is copied aside first.
func SendrecvReplace[T Elem](buf []T, dest, sendtag, source, recvtag int, comm Comm) (Status, error) {
	return api().SendrecvReplace(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, sendtag, source, recvtag, comm.c)
}

// Isendrecv starts Sendrecv: the request completes when both the send
// and the receive have, and its status is the receive's.
func Isendrecv[S, R Elem](sendbuf []S, dest, sendtag int, recvbuf []R, source, recvtag int, comm Comm) (Request, error) {
	r, err := api().Isendrecv(pmpi.Bytes(sendbuf), len(sendbuf), pmpi.TypeOf[S](), dest, sendtag,
		pmpi.Bytes(recvbuf), len(recvbuf), pmpi.TypeOf[R](), source, recvtag, comm.c)
	return request(r), err
}

// IsendrecvReplace starts SendrecvReplace; buf must not be touched until
// the request completes.
func IsendrecvReplace[T Elem](buf []T, dest, sendtag, source, recvtag int, comm Comm) (Request, error) {
	r, err := api().IsendrecvReplace(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, sendtag, source, recvtag, comm.c)
	return request(r), err
}
