package pmpi

import (
	"fmt"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/pml"
)

// Special ranks and tags.
const (
	AnySource = -1 // receive from any rank
	AnyTag    = -1 // receive any tag
	ProcNull  = -2 // a rank that sends and receives nothing, at once
	// TagUB is the largest tag a message may carry.
	TagUB = 1<<31 - 1
)

// The predefined communicators' names, as MPI spells them: Name and
// CommGetName return them unless CommSetName changed them, and
// CommGetName names a nil communicator CommNullName (as MPI 4.1 names
// MPI_COMM_NULL). A communicator derived from another is named after it:
// "MPI_COMM_WORLD.dup", "MPI_COMM_WORLD.split".
const (
	CommWorldName = "MPI_COMM_WORLD"
	CommSelfName  = "MPI_COMM_SELF"
	CommNullName  = "MPI_COMM_NULL"
)

// ErrorHandler says what happens when a call on a communicator fails.
type ErrorHandler int

const (
	// ErrorsReturn returns the error to the caller: the Go default.
	ErrorsReturn ErrorHandler = iota
	// ErrorsAreFatal prints the error and aborts the whole job.
	ErrorsAreFatal
)

// Comm is a communicator: a group of ranks and a context that keeps its
// messages apart from every other communicator's. Its collectives travel
// on the next context, so that they never mix with the user's messages.
type Comm struct {
	context uint32
	rank    int
	group   []int       // communicator rank -> world rank; an intercommunicator's remote group
	ranks   map[int]int // world rank -> communicator rank, of group; nil where identity (rankOf)
	// identity says rank i is world rank i (world and its duplicates):
	// statusOf then skips the map, once per received message.
	identity bool
	errh     atomic.Int32
	name     atomic.Pointer[string]
	builtin  bool // world and self: never freed
	freed    atomic.Bool
	// idup says, while freed holds, why: the communicator of a CommIdup
	// under way (idupPending) or failed (idupFailed).
	idup atomic.Int32

	name0 string      // the name it was made with: where name points first
	ccs   [2]collComm // cc and reqCC, where buildComm makes them

	lib   *library
	colls *coll.Table // nil for an intercommunicator
	cc    *collComm
	reqCC *collComm    // cc marked as a request's (coll.NonBlocking), for the calls started in order
	inter *interPart   // set for an intercommunicator
	topo  *topology    // set for a communicator with a process topology
	scope *BufferScope // the session it belongs to (see BufferScope); nil in the World Model
	ext   commExt      // the user's attributes and hints
	nbc   nbcState     // its non-blocking and persistent collectives (nbc.go)
	// keys is the pml.MatchKeys the hints give: the wildcards that its
	// receives and probes may not use.
	keys atomic.Uint32
	// ctxWindow is the word of the context bitmap where the last context
	// agreed over the communicator lies, alike on every member: where the
	// next agreement looks first (agreeInWindow).
	ctxWindow atomic.Uint32
}

// newComm makes the communicator of group (world ranks, in order) under
// context cid and registers it.
func newComm(l *library, name string, cid uint32, group []int) *Comm {
	c := buildComm(l, name, cid, group)
	l.comms.Store(cid, c)
	return c
}

// buildComm is newComm without registering the communicator under cid:
// for one whose context is agreed later (CommIdup).
func buildComm(l *library, name string, cid uint32, group []int) *Comm {
	c := &Comm{context: cid, group: group, rank: -1, lib: l, identity: true}
	for i, w := range group {
		if w == l.job.Rank {
			c.rank = i
		}
		c.identity = c.identity && w == i
	}
	if !c.identity { // rankOf needs no map for world and its duplicates
		c.ranks = make(map[int]int, len(group))
		for i, w := range group {
			c.ranks[w] = i
		}
	}
	c.name0 = name
	c.name.Store(&c.name0)
	c.ccs = [2]collComm{{c: c, ctx: cid + 1}, {c: c, ctx: cid + 1, nb: true}}
	c.cc, c.reqCC = &c.ccs[0], &c.ccs[1]
	return c
}

// rankOf translates a world rank to this communicator's rank.
func (c *Comm) rankOf(world int) (int, bool) {
	if c.identity {
		return world, world >= 0 && world < len(c.group)
	}
	r, ok := c.ranks[world]
	return r, ok
}

// Name is the communicator's name: CommWorldName, CommSelfName, a
// derived name such as "MPI_COMM_WORLD.dup", or what SetName set.
func (c *Comm) Name() string { return *c.name.Load() }

// Rank is this process's rank in the communicator.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the communicator: of the local group,
// for an intercommunicator (RemoteSize gives the other's).
func (c *Comm) Size() int { return len(c.localGroup()) }

// WorldRank translates a rank of the communicator to a world rank: a rank
// of the remote group for an intercommunicator, the ranks its
// point-to-point calls name.
func (c *Comm) WorldRank(rank int) int { return c.group[rank] }

// Peers is how many ranks a collective's blocks go to or come from: Size,
// or the remote group's size for an intercommunicator.
func (c *Comm) Peers() int { return len(c.group) }

// IsInter reports whether c is an intercommunicator, as CommTestInter
// does, for bindings that need to know without making that call.
func (c *Comm) IsInter() bool { return c.inter != nil }

// SetErrorHandler sets what happens when a call on the communicator fails.
func (c *Comm) SetErrorHandler(h ErrorHandler) { c.errh.Store(int32(h)) }

// ErrorHandler returns the communicator's error handler.
func (c *Comm) ErrorHandler() ErrorHandler { return ErrorHandler(c.errh.Load()) }

func (c *Comm) String() string { return "comm " + c.Name() }

// validPeer reports whether rank may be a call's peer: checkRank's test
// without its error, for the calls' fast path.
func (c *Comm) validPeer(rank int, anyOK bool) bool {
	return uint(rank) < uint(len(c.group)) || rank == ProcNull || (anyOK && rank == AnySource && !c.asserts(pml.KeySource))
}

// validTag is checkTag's test without its error.
func (c *Comm) validTag(tag int, anyOK bool) bool {
	return uint(tag) <= TagUB || (anyOK && tag == AnyTag && !c.asserts(pml.KeyTag))
}

// asserts reports whether c's hints rule out the wildcard k.
func (c *Comm) asserts(k pml.MatchKeys) bool { return pml.MatchKeys(c.keys.Load())&k != 0 }

// checkRank validates a peer rank; what is "send to" or "recv from".
func (c *Comm) checkRank(op string, rank int, anyOK bool) error {
	if anyOK && rank == AnySource && c.asserts(pml.KeySource) {
		return errorf(ClassRank, nil, "%s on %s: AnySource, which its hint mpi_assert_no_any_source=true rules out (name a rank, or set the hint false)", op, c)
	}
	if rank == ProcNull || (anyOK && rank == AnySource) {
		return nil
	}
	if rank < 0 || rank >= len(c.group) {
		allowed := fmt.Sprintf("0 to %d or ProcNull", len(c.group)-1)
		if c.inter != nil {
			allowed = "a rank of the remote group, " + allowed
		}
		if anyOK {
			allowed += " or AnySource"
		}
		return errorf(ClassRank, nil, "%s on %s: rank %d is out of range (%s)", op, c, rank, allowed)
	}
	return nil
}

func (c *Comm) checkTag(op string, tag int, anyOK bool) error {
	if anyOK && tag == AnyTag && c.asserts(pml.KeyTag) {
		return errorf(ClassTag, nil, "%s on %s: AnyTag, which its hint mpi_assert_no_any_tag=true rules out (name a tag, or set the hint false)", op, c)
	}
	if (anyOK && tag == AnyTag) || (tag >= 0 && tag <= TagUB) {
		return nil
	}
	return errorf(ClassTag, nil, "%s on %s: tag %d is out of range (0 to %d%s)", op, c, tag, TagUB,
		map[bool]string{true: " or AnyTag"}[anyOK])
}

// Transport names the btl module that carries this process's messages
// to the given rank of c (of the remote group, for an intercommunicator):
// "self", "sm", "tcp", or another btl component's. It reads
// the choice Init made for the peer, and is no MPI call: the profiling
// layers do not see it.
func (c *Comm) Transport(rank int) (string, error) {
	if err := checkComm("comm transport", c); err != nil {
		return "", err
	}
	if rank < 0 || rank >= len(c.group) {
		return "", c.handle(errorf(ClassRank, nil, "comm transport on %v: rank %d is out of range (0 to %d)", c, rank, len(c.group)-1))
	}
	return c.lib.routes.For(c.group[rank]).Name(), nil
}

// CollProviders lists, for tools, which coll component serves each
// collective on c, as "collective=component" in a fixed order.
func (c *Comm) CollProviders() []string {
	if c == nil || c.colls == nil {
		return nil
	}
	return c.colls.Providers()
}
