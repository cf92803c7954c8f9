package pml

import (
	"sync/atomic"
)

// AnySource and AnyTag match any sender and any tag in a receive or probe.
const (
	AnySource = -1
	AnyTag    = -1
)

// Status describes a completed receive or a probed message.
type Status struct {
	Source    int   // world rank of the sender
	Tag       int   //
	Bytes     int   // bytes written into the receive buffer
	Total     int   // bytes the sender sent; above the buffer's size means truncation
	Cancelled bool  //
	Err       error // wraps btl.ErrPeerFailed when the peer died; nil otherwise
}

// Truncated reports whether the message was larger than the receive buffer.
func (s Status) Truncated() bool { return s.Total > s.Bytes }

type kind uint8

const (
	kindSend kind = iota + 1
	kindRecv
)

// Request is one pending send or receive. Its buffer belongs to the engine
// until the request completes.
type Request struct {
	kind    kind
	context uint32
	peer    int // destination (sends) or source, maybe AnySource (receives)
	tag     int
	buf     []byte
	sync    bool
	id      uint64 // rendezvous sends and matched rendezvous receives

	// A matched rendezvous receive: who sent it, how much it accepted and how
	// much has arrived.
	from     int
	total    int
	accepted int
	received atomic.Int64

	done      chan struct{}
	completed atomic.Bool
	status    Status // written before done is closed
}

func newRequest(k kind, context uint32, peer, tag int, buf []byte) *Request {
	return &Request{kind: k, context: context, peer: peer, tag: tag, buf: buf, done: make(chan struct{})}
}

// Done reports whether the request has completed.
func (r *Request) Done() bool { return r.completed.Load() }

// IsSend reports whether the request is a send.
func (r *Request) IsSend() bool { return r.kind == kindSend }

// Peer is the destination of a send or the source asked for by a receive.
func (r *Request) Peer() int { return r.peer }

// Tag is the tag of a send or the tag asked for by a receive.
func (r *Request) Tag() int { return r.tag }

// Status returns the request's status; valid once Done.
func (r *Request) Status() Status { return r.status }

// matches reports whether a posted receive accepts a message.
func (r *Request) matches(from, tag int) bool {
	return (r.peer == AnySource || r.peer == from) && (r.tag == AnyTag || r.tag == tag)
}
