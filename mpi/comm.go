package mpi

import "github.com/gompi/gompi/pmpi"

// Comm is a communicator. The zero Comm is the null communicator
// (MPI_COMM_NULL): calls on it fail with ErrComm, Rank returns -1, Size 0
// and Name "MPI_COMM_NULL".
type Comm struct{ c *pmpi.Comm }

// CommWorld is the communicator of every rank of the job.
func CommWorld() Comm { return Comm{api().CommWorld()} }

// CommSelf is the communicator of this rank alone.
func CommSelf() Comm { return Comm{api().CommSelf()} }

// Rank is this process's rank in the communicator (in the local group of
// an intercommunicator), or -1 for an invalid one.
func (c Comm) Rank() int {
	r, err := api().CommRank(c.c)
	if err != nil {
		return -1
	}
	return r
}

// Size is the number of ranks in the communicator (in the local group of
// an intercommunicator), or 0 for an invalid one.
func (c Comm) Size() int {
	n, err := api().CommSize(c.c)
	if err != nil {
		return 0
	}
	return n
}

// rank and size are what a call needs to know of comm to shape its
// arguments, read from pmpi's communicator itself: they are no MPI call,
// and go through no profiling layer, so that the user's call reaches the
// tools as itself alone. An invalid (nil) comm gives -1 and 0, as Rank
// and Size do; the call made with it then reports ErrComm.
func (c Comm) rank() int {
	if c.c == nil {
		return -1
	}
	return c.c.Rank()
}

// peers is how many blocks a collective's buffer divides into (pmpi's
// Peers).
func (c Comm) peers() int {
	if c.c == nil {
		return 0
	}
	return c.c.Peers()
}

// Transport names the transport that carries this process's messages to
// the given rank of c (of the remote group, for an intercommunicator): "self" for itself, "sm" for a rank on the same
// host, "tcp" for one on another (unless the btl parameter chose
// otherwise); a rank out of range is an ErrRank. It reads
// what Init chose for each peer and is no MPI call: profiling tools do not
// see it, and it costs no message.
func (c Comm) Transport(rank int) (string, error) { return c.c.Transport(rank) }

// SetErrorHandler sets what a failing call on the communicator does:
// return the error (ErrorsReturn, the default) or abort the job.
func (c Comm) SetErrorHandler(h ErrorHandler) error { return api().CommSetErrhandler(c.c, h) }

// String names the communicator.
func (c Comm) String() string {
	if c.c == nil {
		return "comm " + pmpi.CommNullName
	}
	return c.c.String()
}

// IsNull reports whether c is no communicator: the zero Comm, what Split
// gives a rank of color Undefined, or a freed one.
func (c Comm) IsNull() bool { return c.c == nil }

// Dup makes a communicator of the same ranks with a context of its own:
// a library's traffic on it never meets the caller's. Every rank of c
// calls it.
func (c Comm) Dup() (Comm, error) {
	d, err := api().CommDup(c.c)
	return Comm{d}, err
}

// Idup starts Dup (MPI_Comm_idup) and returns at once the new
// communicator and a request: the communicator may be used once the
// request completes (Wait, Test, WaitAll... alike), and a call on it
// before fails with ErrComm. The copy callbacks run in the call, on c's
// attributes as they are then; a failing one fails the request. Every
// rank of c calls it, in the same order as c's other collectives.
func (c Comm) Idup() (Comm, Request, error) {
	d, r, err := api().CommIdup(c.c)
	return Comm{d}, request(r), err
}

// IdupWithInfo is Idup whose new communicator takes its hints from info
// rather than from c (MPI_Comm_idup_with_info); a nil info gives it none.
func (c Comm) IdupWithInfo(info *Info) (Comm, Request, error) {
	d, r, err := api().CommIdupWithInfo(c.c, info.p())
	return Comm{d}, request(r), err
}

// Split partitions c: ranks that pass the same color share a new
// communicator, ordered by key, then by rank in c. A rank that passes
// Undefined gets a null Comm. Every rank of c calls it. On an
// intercommunicator the parts of one color in the two groups make an
// intercommunicator; where only one group passes a color, its ranks get a
// null Comm.
func (c Comm) Split(color, key int) (Comm, error) {
	d, err := api().CommSplit(c.c, color, key)
	return Comm{d}, err
}

// SplitType partitions c by type: CommTypeShared gives the ranks of each
// host a communicator of their own, ordered by key. On an
// intercommunicator each host's ranks of one group face that host's
// ranks of the other; a rank whose host holds none of the other group
// gets a null Comm.
func (c Comm) SplitType(splitType, key int) (Comm, error) {
	d, err := api().CommSplitType(c.c, splitType, key)
	return Comm{d}, err
}

// Create makes a communicator of g, a group of c's ranks; the ranks
// outside the group they pass get a null Comm. The ranks may pass
// different groups if those are disjoint, every rank of each passing it:
// one call then makes them all (a grid's rows, say). On an
// intercommunicator each group passes a subgroup of its own local group,
// and the two make an intercommunicator (a null Comm if either is empty).
func (c Comm) Create(g Group) (Comm, error) {
	d, err := api().CommCreate(c.c, g.g)
	return Comm{d}, err
}

// Free releases a communicator made by Dup, Split, SplitType, Create,
// CreateGroup, IntercommCreate or Merge and makes c null.
func (c *Comm) Free() error {
	err := api().CommFree(c.c)
	if err == nil {
		c.c = nil
	}
	return err
}

// Disconnect frees c as Free does once every rank of c has called it (of
// both groups, for an intercommunicator), and makes c null: MPI's
// Comm_disconnect. Every message on c must have been received by then.
func (c *Comm) Disconnect() error {
	err := api().CommDisconnect(c.c)
	if err == nil {
		c.c = nil
	}
	return err
}

// Compare returns Ident (the same communicator), Congruent (the same ranks
// in the same order), Similar (the same ranks in another order) or Unequal.
// Two intercommunicators compare by both groups; an intercommunicator and
// an intracommunicator are Unequal.
func (c Comm) Compare(o Comm) (Comparison, error) { return api().CommCompare(c.c, o.c) }

// Group returns the group of c's ranks: the local group of an
// intercommunicator.
func (c Comm) Group() (Group, error) {
	g, err := api().CommGroup(c.c)
	return Group{g}, err
}

// MaxObjectName is the longest name SetName keeps, in bytes
// (MPI_MAX_OBJECT_NAME less C's terminating zero).
const MaxObjectName = pmpi.MaxObjectName

// SetName names c, for tools and error messages. A name over
// MaxObjectName bytes is cut to fit, at a character boundary, as MPI
// truncates it; an empty name is refused (ErrArg).
func (c Comm) SetName(name string) error { return api().CommSetName(c.c, name) }

// Name returns c's name: "MPI_COMM_WORLD", "MPI_COMM_SELF",
// "MPI_COMM_NULL" for the zero Comm, a derived name such as
// "MPI_COMM_WORLD.split", or what SetName set; "" for a communicator
// freed through another copy of c.
func (c Comm) Name() string {
	n, err := api().CommGetName(c.c)
	if err != nil {
		return ""
	}
	return n
}
