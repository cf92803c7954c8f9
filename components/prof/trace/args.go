package trace

import "github.com/gompi/gompi/pmpi"

// args are a recorded call's arguments, as the trace shows them. They are
// kept small, since a rank may hold a million: what few calls have (an
// error, a label, a second arrow) waits behind more.
type args struct {
	set          argSet
	comm, commID string // the communicator's name and the trace's id for it
	peer, tag    int32  // in the communicator's ranks
	root         int32
	index        int32 // WaitAny's and TestAny's completed request
	count        int32 // requests of WaitAll, TestAll; completed ones of WaitSome
	dest         int32 // Sendrecv's send half
	sendTag      int32
	bytes        int64
	sendBytes    int64
	flow         flowEnd // the first arrow that starts or ends in the call
	more         *extra
}

// extra is what few calls record.
type extra struct {
	err   error
	label string    // a phase's or a new communicator's name
	flows []flowEnd // arrows after the first: a WaitAll's receives
}

// flowEnd is one end of a message arrow: its id, with the top bit set at
// the receive's end; 0 for none.
type flowEnd uint64

const flowIn flowEnd = 1 << 63

func (f flowEnd) id() uint64 { return uint64(f &^ flowIn) }
func (f flowEnd) in() bool   { return f&flowIn != 0 }

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
	a.peer, a.tag, a.set = int32(peer), int32(tag), a.set|hasPeer|hasTag
	return a
}

func (a args) withBytes(n int) args {
	a.bytes, a.set = int64(n), a.set|hasBytes
	return a
}

func (a args) withRoot(root int) args {
	a.root, a.set = int32(root), a.set|hasRoot
	return a
}

func (a args) withCount(n int) args {
	a.count, a.set = int32(n), a.set|hasCount
	return a
}

func (a args) withIndex(i int) args {
	a.index, a.set = int32(i), a.set|hasIndex
	return a
}

func (a args) withSend(dest, tag, bytes int) args {
	a.dest, a.sendTag, a.sendBytes, a.set = int32(dest), int32(tag), int64(bytes), a.set|hasSend
	return a
}

func (a args) withErr(err error) args {
	if err != nil {
		a.extra().err = err
	}
	return a
}

func (a args) withLabel(l string) args {
	a.extra().label = l
	return a
}

// withFlow adds an arrow's end; 0 adds nothing.
func (a args) withFlow(f flowEnd) args {
	switch {
	case f == 0:
	case a.flow == 0:
		a.flow = f
	default:
		a.extra().flows = append(a.more.flows, f)
	}
	return a
}

// extra returns a's extra part, copied so that args values stay independent.
func (a *args) extra() *extra {
	if a.more == nil {
		a.more = &extra{}
	} else {
		c := *a.more
		a.more = &c
	}
	return a.more
}

// flows lists every arrow end of the call.
func (a args) flows() []flowEnd {
	var fs []flowEnd
	if a.flow != 0 {
		fs = append(fs, a.flow)
	}
	if a.more != nil {
		fs = append(fs, a.more.flows...)
	}
	return fs
}

func (a args) err() error {
	if a.more == nil {
		return nil
	}
	return a.more.err
}

func (a args) label() string {
	if a.more == nil {
		return ""
	}
	return a.more.label
}

// commArgs names comm in the arguments of the call sp, if sp is
// recorded: a paused tracer takes no lock and looks nothing up.
func (t *Tracer) commArgs(sp span, comm *pmpi.Comm) args {
	if comm == nil || !sp.on {
		return args{}
	}
	t.mu.Lock()
	id := t.m.commID(comm)
	t.mu.Unlock()
	return args{comm: comm.Name(), commID: id}
}

// size is the bytes of count elements of dt.
func size(count int, dt pmpi.Datatype) int { return count * dt.Size() }

// sizeOfEach is the bytes of a w-collective's blocks, each of its own
// datatype.
func sizeOfEach(counts []int, dts []pmpi.Datatype) int {
	n := 0
	for i := range min(len(counts), len(dts)) {
		n += size(counts[i], dts[i])
	}
	return n
}

func sum(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
