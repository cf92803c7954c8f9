package pml

import (
	"sync"
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
	// cancelling: a send whose receiver was asked to drop it (under the engine's lock)
	cancelling bool
	first      int // a rendezvous send: bytes that went with the RTS

	// A matched rendezvous receive: who sent it, how much it accepted and how
	// much has arrived.
	from     int
	total    int
	accepted int
	received atomic.Int64

	// Completion: status is written before completed is set, both under mu.
	// done is made only by a waiter that goes to sleep: most never do.
	mu        sync.Mutex
	done      chan struct{}
	completed atomic.Bool
	status    Status
	pooled    bool        // from the engine's pool: Release may recycle it
	held      atomic.Bool // its eager fragment was posted: the module may hold it back
}

// closed is a channel that is always closed, for waiters on what is done.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// wakeChan returns a channel closed when r completes.
func (r *Request) wakeChan() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.completed.Load() {
		return closed
	}
	if r.done == nil {
		r.done = make(chan struct{})
	}
	return r.done
}

// settled returns r's status under its lock: after this, whoever
// completed r has finished with it and nothing but the caller touches it.
func (r *Request) settled() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// matches reports whether a posted receive accepts a message.
func (r *Request) matches(from, tag int) bool {
	return (r.peer == AnySource || r.peer == from) && (r.tag == AnyTag || r.tag == tag)
}

// Done reports whether the request has completed.
func (r *Request) Done() bool { return r.completed.Load() }
