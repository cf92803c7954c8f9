package pml

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/lowlevel"
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
	Err       error // wraps btl.ErrPeerFailed when the peer died; *EarlyReadyError for a ready send that came early; nil otherwise
}

// EarlyReadyError is a receive's error when the message it took came
// from a ready-mode send (MPI's Rsend) and arrived before any matching
// receive was posted: an erroneous program, reported instead of hidden.
// The message is still delivered.
type EarlyReadyError struct {
	From int // world rank of the sender
	Tag  int
}

func (e *EarlyReadyError) Error() string {
	return fmt.Sprintf("ready send from world rank %d, tag %d arrived before its receive was posted", e.From, e.Tag)
}

// Truncated reports whether the message was larger than the receive buffer.
func (s Status) Truncated() bool { return s.Total > s.Bytes }

type kind uint8

const (
	kindSend kind = iota + 1
	kindRecv
	kindGeneral // completed by its owner (CompleteGeneral), not by a message
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
	id      uint64 // rendezvous sends, matched rendezvous receives, and cancels of eager sends
	mark    uint32 // an eager send's mark, which a cancel names it by; 0 if it cannot be cancelled
	// cancelling: a send whose receiver was asked to drop it (under the engine's lock)
	cancelling bool
	first      int // a rendezvous send: bytes that went with the RTS

	// A matched rendezvous receive: who sent it, how much it accepted and how
	// much has arrived.
	from     int
	total    int
	accepted int
	received atomic.Int64

	// Completion: status is written, then state set to done. A waiter that
	// goes to sleep makes done and marks state first, under mu; most never
	// do, and their requests complete without a lock.
	mu     sync.Mutex
	done   chan struct{}
	slept  bool   // the waiter made done (set and read by the waiter only)
	state  uint32 // statePending, stateSleeper or stateDone: atomic once others may see r (finishNew)
	status Status
	pooled bool                  // from the engine's pool: Release may recycle it
	hdr    [MatchHeaderSize]byte // an eager send's header, while the module copies it
	held   uint32                // 1: its eager fragment was posted and the module may hold it back; atomic like state

	// early is set when the message came from a ready-mode send before
	// this receive was posted: the receive's error (EarlyReadyError).
	// Last: the fields above keep the places the hot paths found them at.
	early error
	// lay is the data of a request whose data is not one slice (buf nil).
	lay Layout
	// keep is what the transport needs kept until the receiver has read
	// the blocks a send exposed (btl.ScatterCopier's ExposeVector).
	keep any
	// since is when a rendezvous receive from a btl.BlockingCopier began,
	// for its Took: when the RTS's sender began to write it, for a
	// streamed one; when it was matched, for a read. Zero when untimed.
	since time.Time
}

// Request states.
const (
	statePending uint32 = iota
	stateSleeper        // pending, and a waiter sleeps on done
	stateDone
)

// closed is a channel that is always closed, for waiters on what is done.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// wakeChan returns a channel closed when r completes.
func (r *Request) wakeChan() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		r.done = make(chan struct{})
		r.slept = true
	}
	if !atomic.CompareAndSwapUint32(&r.state, statePending, stateSleeper) && atomic.LoadUint32(&r.state) == stateDone {
		return closed
	}
	return r.done
}

// finish publishes st as r's status and wakes its sleeping waiter. It is
// the last touch of r by whoever completes it, except when a waiter
// sleeps: then the close under mu is.
func (r *Request) finish(st Status) {
	r.status = st
	r.publish()
}

// publish is finish for a request whose status is written already.
func (r *Request) publish() {
	if atomic.SwapUint32(&r.state, stateDone) == stateSleeper {
		r.mu.Lock()
		close(r.done)
		r.mu.Unlock()
	}
}

// finishMatch is finish for a receive that matched a message, its
// status written field by field: a Status built on the stack and copied
// in was read back 16 bytes at a time from 8-byte stores still on their
// way to the cache, which the processor cannot forward to the loads.
func (r *Request) finishMatch(from, tag, n, total int) {
	st := &r.status
	st.Source, st.Tag, st.Bytes, st.Total, st.Cancelled, st.Err = from, tag, n, total, false, nil
	r.publish()
}

// finishNew is finish for a request that no other goroutine can see yet:
// an eager send, or a receive whose message was waiting, completed by the
// call that starts it. Plain stores do: whatever hands r to another
// goroutine orders them first. finish's atomic swap would wait, on amd64,
// for the fragment that the transport has just written into lines the
// receiver reads, a cache-line transfer per message in a window of sends.
// held says the module may hold the fragment back for the next ones
// (btl.Poster).
func (r *Request) finishNew(st Status, held bool) {
	r.status = st
	if held {
		r.held = 1
	}
	r.state = stateDone
}

// takeHeld reports whether r's fragment may still be held back by the
// module, and clears that. A release store, not a compare-and-swap: the
// module has most often published the fragment already, and a locked
// instruction would wait for its lines, which the receiver is reading;
// two waiters that both flush cost a second look at the ring.
func (r *Request) takeHeld() bool {
	if atomic.LoadUint32(&r.held) == 0 {
		return false
	}
	lowlevel.StoreRelease32(&r.held, 0)
	return true
}

// settledRef returns where r's status is, once r is done. After it,
// whoever completed r has finished with it and nothing but the caller
// touches it: a waiter that slept waits, through mu, for the completer's
// close to end.
func (r *Request) settledRef() *Status {
	if r.slept {
		r.mu.Lock()
		defer r.mu.Unlock()
	}
	return &r.status
}

// matches reports whether a posted receive accepts a message.
func (r *Request) matches(from, tag int) bool { return matches(r.peer, r.tag, from, tag) }

// matches reports whether a receive or probe of src and tag (either a
// wildcard) matches a message from world rank from with tag mtag.
func matches(src, tag, from, mtag int) bool {
	return (src == AnySource || src == from) && (tag == AnyTag || tag == mtag)
}

// Done reports whether the request has completed.
func (r *Request) Done() bool { return atomic.LoadUint32(&r.state) == stateDone }
