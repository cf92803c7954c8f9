package mpi

import "github.com/gompi/gompi/pmpi"

// Send sends buf to rank dest of comm; it returns once buf may be reused.
func Send[T Elem](buf []T, dest, tag int, comm Comm) error {
	return api().Send(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
}

// Ssend sends buf and returns once the receiver has matched the message.
func Ssend[T Elem](buf []T, dest, tag int, comm Comm) error {
	return api().Ssend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
}

// Recv receives into buf from rank source (or AnySource) with tag (or
// AnyTag). A longer message fills buf and fails with ErrTruncate.
func Recv[T Elem](buf []T, source, tag int, comm Comm) (Status, error) {
	return api().Recv(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), source, tag, comm.c)
}

// Isend starts a send; buf must not change until the request completes.
// A message small enough to go at once (the transport's eager limit) has
// left when Isend returns: its Request stays Active until a Wait or Test,
// which completes it at once.
func Isend[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	r, err := api().Isend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
	return request(r), err
}

// Issend starts a synchronous send.
func Issend[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	r, err := api().Issend(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c)
	return request(r), err
}

// Irecv starts a receive; buf must not be read until the request completes.
func Irecv[T Elem](buf []T, source, tag int, comm Comm) (Request, error) {
	r, err := api().Irecv(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), source, tag, comm.c)
	return request(r), err
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source at
// once, so that ranks exchanging in a ring cannot deadlock.
func Sendrecv[S, R Elem](sendbuf []S, dest, sendtag int, recvbuf []R, source, recvtag int, comm Comm) (Status, error) {
	return api().Sendrecv(pmpi.Bytes(sendbuf), len(sendbuf), pmpi.TypeOf[S](), dest, sendtag,
		pmpi.Bytes(recvbuf), len(recvbuf), pmpi.TypeOf[R](), source, recvtag, comm.c)
}

// Probe waits for a message that Recv with these arguments would receive
// and describes it. Its Count is Undefined, as it receives nothing: use
// GetCount for its length in elements.
func Probe(source, tag int, comm Comm) (Status, error) { return api().Probe(source, tag, comm.c) }

// Iprobe is Probe without waiting; found is false when no such message has arrived.
func Iprobe(source, tag int, comm Comm) (st Status, found bool, err error) {
	return api().Iprobe(source, tag, comm.c)
}

// GetCount returns how many elements of T the described message holds,
// after a receive or a probe alike: Undefined if its bytes are not a
// whole number of them.
func GetCount[T Elem](st Status) int { return st.CountOf(pmpi.TypeOf[T]()) }
