package trace

import "github.com/gompi/gompi/pmpi"

// args are a recorded call's arguments, as the trace shows them.
type args struct {
	set          argSet
	comm, commID string // the communicator's name and the trace's id for it
	peer, tag    int    // in the communicator's ranks
	root, bytes  int
	index        int // WaitAny's and TestAny's completed request
	count        int // requests of WaitAll, TestAll; completed ones of WaitSome
	dest         int // Sendrecv's send half
	sendTag      int
	sendBytes    int
	err          error
	label        string // a phase's name
	scope        string // an instant event's scope: "t" thread, "p" process
}

// argSet says which of the int arguments a call has.
type argSet uint8

const (
	hasPeer argSet = 1 << iota
	hasTag
	hasRoot
	hasBytes
	hasIndex
	hasSend
	hasCount
)

func (a args) withPeer(peer, tag int) args {
	a.peer, a.tag, a.set = peer, tag, a.set|hasPeer|hasTag
	return a
}

func (a args) withBytes(n int) args {
	a.bytes, a.set = n, a.set|hasBytes
	return a
}

func (a args) withRoot(root int) args {
	a.root, a.set = root, a.set|hasRoot
	return a
}

func (a args) withCount(n int) args {
	a.count, a.set = n, a.set|hasCount
	return a
}

func (a args) withErr(err error) args {
	a.err = err
	return a
}

// commArgs names comm in a call's arguments.
func (t *Tracer) commArgs(comm *pmpi.Comm) args {
	if comm == nil {
		return args{}
	}
	t.mu.Lock()
	id := t.m.commID(comm)
	t.mu.Unlock()
	return args{comm: comm.Name(), commID: id}
}

// size is the bytes of count elements of dt.
func size(count int, dt pmpi.Datatype) int { return count * dt.Size() }

func sum(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
