package ess

import "time"

// State is what a rank reports when its launcher asks what it is doing:
// its pending operations, with the calls that wait on them, and its
// unexpected messages.
type State struct {
	Ops             []Op
	Unexpected      []Message // the first few
	UnexpectedTotal int
	Stacks          string // every goroutine's stack, when asked for
}

// Op is a pending receive, send or probe.
type Op struct {
	// Kind is "recv", "send", "probe", "coll" (a collective's wait on
	// shared memory), "finalize", or "deferred": Bytes non-blocking calls
	// that begin at the rank's next MPI call.
	Kind            string
	Peer, PeerWorld int // -1: any
	Tag             int // -1: any
	Comm            string
	Bytes           int
	Collective      string // the collective it belongs to, if any
	// The MPI call that waits on it, its call site (file:line) and for how
	// long; Call is empty when no call waits on it.
	Call, Site string
	Waited     time.Duration
}

// Message is an unexpected message: no receive has matched it yet.
type Message struct {
	From, FromWorld, Tag int
	Comm                 string
	Bytes                int
	Collective           string
	// Probed: a matched probe (Mprobe) took it out of matching, and only
	// the receive of its Message takes it.
	Probed bool
}
